/**
 * The reads of the model test: every answer compared with the model. `strict` false is the
 * phase right after a start: an answer may then also be an honest "not ready" (503 with
 * Retry-After), which `check` counts and returns; a 200 with other data is a failure either way.
 */
import { isDeepStrictEqual } from 'node:util';
import { decodeColumns } from '../../adapters/http/list-columns.ts';
import type { Rng } from '../reliability/scenarios/rng.ts';
import type { Answer, Client } from './client.ts';
import { pruneTree, sha256, type VaultModel } from './model.ts';

/** A mismatch between the server and the model. */
export class Violation extends Error {}

const FIELDS = ['path', 'title', 'tags', 'links', 'backlinks', 'wordCount', 'checksum'] as const;
/** The fields of one note the model computes (timestamps apart). */
export const NOTE_FIELDS = [...FIELDS, 'content', 'frontmatter'] as const;

/** The model's fields of a summary or note (timestamps are not modelled; checked for shape only). */
export function comparable(x: any, keys: readonly string[] = FIELDS): any {
  if (x === null || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in x) out[k] = x[k];
  return out;
}

function same(what: string, got: unknown, want: unknown): void {
  if (isDeepStrictEqual(got, want)) return;
  // Arrays: the first item that differs (a whole list would drown the report).
  if (Array.isArray(got) && Array.isArray(want)) {
    const i = got.findIndex((g, k) => !isDeepStrictEqual(g, want[k]));
    const at = i < 0 ? want.length : i;
    throw new Violation(
      `${what} differs from the model at item ${at} (${got.length} items, the model ${want.length})\n` +
        `  got:  ${JSON.stringify(got[at])}\n  want: ${JSON.stringify(want[at])}`,
    );
  }
  throw new Violation(
    `${what} differs from the model\n  got:  ${JSON.stringify(got)}\n  want: ${JSON.stringify(want)}`,
  );
}

/** State the reads keep between steps. */
export interface ReadState {
  etag: { value: string; version: number } | null;
  /** The change feed's position and the vault it describes (path → checksum). */
  feed: { next: number | null; notes: Map<string, string> };
  /** Words written lately (each names the notes that must be found by it). */
  words: string[];
}

export function readState(): ReadState {
  return { etag: null, feed: { next: null, notes: new Map() }, words: [] };
}

/** Thrown-through answers: 503 with Retry-After is "not ready" when allowed; other statuses fail. */
function gate(what: string, a: Answer, strict: boolean, ok: number[] = [200]): boolean {
  if (ok.includes(a.status)) return true;
  if (!strict && a.status === 503 && a.headers['retry-after'] !== undefined) return false;
  throw new Violation(`${what} answered ${a.status} ${a.error ?? a.text.slice(0, 300)}`);
}

/** Every read once; returns how many answered "not ready" (always 0 when strict). */
export async function check(
  c: Client,
  m: VaultModel,
  st: ReadState,
  rng: Rng,
  strict: boolean,
): Promise<number> {
  let notReady = 0;
  const run = async (fn: () => Promise<boolean>) => {
    if (!(await fn())) notReady++;
  };
  const list = m.list();
  const want = list.map((s) => comparable(s));
  await run(() => checkList(c, m, st, want, strict));
  await run(() => checkPages(c, m, want, rng, strict));
  await run(async () => {
    const a = await c.request('GET', '/notes?format=columns', { headers: { 'accept-encoding': 'gzip' } });
    if (!gate('list ?format=columns', a, strict)) return false;
    same(
      'list ?format=columns (decoded)',
      decodeColumns(a.json.data).map((s) => comparable(s)),
      want,
    );
    return true;
  });
  await run(() => checkNote(c, m, rng, strict));
  await run(async () => {
    const a = await c.request('GET', '/tags', { headers: { 'accept-encoding': 'gzip, br' } });
    if (!gate('tags', a, strict)) return false;
    same('tags', a.json.data, m.tags());
    return true;
  });
  await run(async () => {
    const a = await c.request('GET', '/folders/tree', { headers: { 'accept-encoding': 'gzip' } });
    if (!gate('folder tree', a, strict)) return false;
    same('folder tree', pruneTree(a.json.data), m.tree());
    return true;
  });
  await run(() => checkSearch(c, m, st, strict));
  await run(() => checkTrash(c, m, strict));
  await run(() => checkFeed(c, m, st, strict));
  return notReady;
}

async function checkList(c: Client, m: VaultModel, st: ReadState, want: unknown[], strict: boolean) {
  for (const enc of ['identity', 'gzip', 'br']) {
    const a = await c.request('GET', '/notes', { headers: { 'accept-encoding': enc } });
    if (!gate(`list (${enc})`, a, strict)) return false;
    if (enc !== 'identity' && a.encoding === 'identity' && a.text.length > 1400)
      throw new Violation(`list asked with ${enc} came uncompressed (${a.text.length} bytes)`);
    for (const s of a.json.data)
      if (typeof s.createdAt !== 'string' || typeof s.updatedAt !== 'string')
        throw new Violation(`list (${enc}): ${s.path} has no timestamps`);
    same(
      `list (${enc}, ${a.encoding})`,
      a.json.data.map((s: any) => comparable(s)),
      want,
    );
    const etag = a.headers.etag;
    if (typeof etag !== 'string') continue;
    if (st.etag && st.etag.version !== m.version && st.etag.value !== etag) {
      // The vault changed since that ETag was given: it must not be answered 304.
      const old = await c.request('GET', '/notes', { headers: { 'if-none-match': st.etag.value } });
      if (old.status === 304)
        throw new Violation(`list answered 304 to the ETag of an older vault (${st.etag.value})`);
    }
    const again = await c.request('GET', '/notes', { headers: { 'if-none-match': etag } });
    if (again.status !== 304 && again.status !== 200)
      throw new Violation(`list with If-None-Match answered ${again.status}`);
    if (again.status === 200)
      same(
        'list after If-None-Match',
        again.json.data.map((s: any) => comparable(s)),
        want,
      );
    st.etag = { value: etag, version: m.version };
  }
  return true;
}

async function checkPages(c: Client, m: VaultModel, want: any[], rng: Rng, strict: boolean) {
  const all = ['path', 'title', 'tags', 'links', 'backlinks', 'wordCount', 'checksum'];
  const fields = ['path', ...all.slice(1).filter(() => rng.chance(0.5))];
  const limit = rng.int(1, 4);
  const got: unknown[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const q = `fields=${fields.join(',')}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const a = await c.request('GET', `/notes?${q}`, { headers: { 'accept-encoding': 'gzip' } });
    if (!gate(`list ?${q}`, a, strict)) return false;
    for (const s of a.json.data) {
      if (Object.keys(s).some((k) => !fields.includes(k)))
        throw new Violation(`list ?${q} has fields beyond ${fields}: ${Object.keys(s)}`);
      got.push(comparable(s, fields));
    }
    cursor = a.json.page?.nextCursor ?? null;
    if (!cursor) break;
  }
  same(
    `list paged by ${limit} with fields ${fields}`,
    got,
    want.map((s) => comparable(s, fields)),
  );
  void m;
  return true;
}

async function checkNote(c: Client, m: VaultModel, rng: Rng, strict: boolean) {
  const paths = m.paths();
  if (paths.length === 0) return true;
  const p = rng.pick(paths);
  const a = await c.request('GET', `/notes/${encodeURIComponent(p)}`);
  if (!gate(`note ${p}`, a, strict)) return false;
  same(`note ${p}`, comparable(a.json.data, NOTE_FIELDS), m.note(p));
  if (a.headers.etag !== `"${sha256(m.notes.get(p)!)}"`)
    throw new Violation(`note ${p}: ETag ${a.headers.etag} is not its checksum`);
  const mcp = await c.tool('read_note', { path: p });
  if (!mcp.ok) {
    if (!strict && mcp.answer.status === 503) return false;
    throw new Violation(`MCP read_note ${p} failed: ${mcp.text.slice(0, 300)}`);
  }
  same(
    `MCP read_note ${p}`,
    comparable(mcp.data, NOTE_FIELDS),
    comparable(
      m.note(p),
      Object.keys(mcp.data).filter((k) => k !== 'updatedAt'),
    ),
  );
  const want = m.versions.get(p);
  if (want?.size) {
    const v = await c.request('GET', `/notes/${encodeURIComponent(p)}/versions`);
    if (!gate(`versions of ${p}`, v, strict)) return false;
    const have = new Set((v.json.data as { checksum: string }[]).map((x) => x.checksum));
    for (const sum of want)
      if (!have.has(sum)) throw new Violation(`versions of ${p} lack an acknowledged earlier text (${sum})`);
  }
  return true;
}

async function checkSearch(c: Client, m: VaultModel, st: ReadState, strict: boolean) {
  for (const word of st.words.slice(-2)) {
    const a = await c.request('GET', `/search?q=${word}&limit=50`);
    if (!gate(`search ${word}`, a, strict)) return false;
    const found = new Set((a.json.data as { path: string }[]).map((h) => h.path));
    for (const p of found)
      if (!m.notes.has(p)) throw new Violation(`search ${word} found ${p}, which is not a note`);
    for (const [p, text] of m.notes)
      if (text.includes(word) && !found.has(p))
        throw new Violation(`search ${word} did not find ${p}, which holds it (found: ${[...found]})`);
  }
  return true;
}

async function checkTrash(c: Client, m: VaultModel, strict: boolean) {
  const a = await c.request('GET', '/trash');
  if (!gate('trash', a, strict)) return false;
  const items = (a.json.data as { id: string; path: string; checksum: string; kind: string }[]).filter(
    (t) => t.kind === 'note',
  );
  const key = (path: string, sum: string) => `${path} ${sum}`;
  // Each server item matches one model item; the optional ones (removed on disk) may be missing.
  const open = [...m.trash];
  const extra: string[] = [];
  for (const t of items) {
    // The model item this one is: the one of its id, else one of its text, else an older text of
    // a note removed on disk (in that order: a looser match must not take another item's place).
    const same = (x: (typeof open)[number]) => x.path === t.path && (!x.id || x.id === t.id);
    let i = open.findIndex((x) => same(x) && x.id === t.id);
    if (i < 0) i = open.findIndex((x) => same(x) && sha256(x.content) === t.checksum);
    if (i < 0) i = open.findIndex((x) => same(x) && x.optional === true && !!x.held?.includes(t.checksum));
    if (i < 0) {
      extra.push(key(t.path, t.checksum));
      continue;
    }
    const x = open.splice(i, 1)[0]!;
    x.id = t.id;
    if (sha256(x.content) === t.checksum) x.optional = false;
    // An older text of a note removed on disk: held to this one (and, with its other text, never
    // restored by the generator, which restores by the model's text).
    else x.held = [t.checksum];
  }
  const missing = open.filter((x) => !x.optional).map((x) => key(x.path, sha256(x.content)));
  if (extra.length || missing.length)
    throw new Violation(
      `trash differs from the model: not in the model ${JSON.stringify(extra)}, missing ${JSON.stringify(missing)}`,
    );
  return true;
}

async function checkFeed(c: Client, m: VaultModel, st: ReadState, strict: boolean) {
  const f = st.feed;
  const after = f.next === null ? '' : `after=${f.next}&`;
  const a = await c.request('GET', `/events?${after}wait=0`, { headers: { accept: 'application/json' } });
  if (!gate('change feed', a, strict)) return false;
  const d = a.json.data;
  const truth = new Map([...m.notes].map(([p, t]) => [p, sha256(t)]));
  if (f.next === null || d.reset) {
    // A new run (or an id from before a restart): re-list, then follow.
    f.notes = truth;
    f.next = d.next;
    return true;
  }
  for (const e of d.events as { type: string; data: any }[]) {
    if (e.type === 'note.deleted') f.notes.delete(e.data.path);
    else if (e.type === 'note.moved') {
      f.notes.delete(e.data.from);
      f.notes.set(e.data.path, e.data.checksum);
    } else if (e.type === 'note.created' || e.type === 'note.updated' || e.type === 'note.restored')
      f.notes.set(e.data.path, e.data.checksum);
  }
  f.next = d.next;
  same(
    'the vault the change feed describes',
    Object.fromEntries([...f.notes].sort()),
    Object.fromEntries([...truth].sort()),
  );
  return true;
}
