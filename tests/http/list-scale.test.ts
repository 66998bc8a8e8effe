/**
 * The list at scale (10k to 100k notes): after any write the compressed list is the same, once
 * inflated, as a fresh encoding of the same summaries, cut into the same chunks, and only the
 * chunks the write touched are serialized again; `?format=columns` decodes to the spec's list
 * exactly and is far smaller once gzip'd.
 */
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { createCompressedList } from '../../adapters/http/list/compressed-list.ts';
import {
  decodeColumns,
  encodeColumns,
  encodeColumnsAnswer,
  type ListColumns,
} from '../../adapters/http/list-columns.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createNoteService, type NoteService } from '../../core/notes/service.ts';
import { silentLogger } from '../helpers/logger.ts';

const name = (i: number) => `note-${String(i).padStart(4, '0')}`;

/** `n` notes in a few folders, each linking two others (so writes change backlinks elsewhere). */
function vault(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const links = [(i * 7 + 3) % n, (i * 13 + 5) % n].map((j) => `[[${name(j)}]]`).join(' and ');
    files[`f${i % 5}/${name(i)}.md`] =
      `# Title ${i}\n\nBody of ${i} with ${links}, a [[missing ${i}]] link, [[${name((i + 1) % n)}#Part|alias]] and #t${i % 7}.\n`;
  }
  return files;
}

async function service(files: Record<string, string>): Promise<NoteService> {
  const clock = { now: () => Date.now() };
  const notes = createNoteService({
    store: memoryNoteStore({ files, clock }),
    clock,
    state: memoryStateStore(),
    logger: silentLogger,
  });
  await notes.load();
  return notes;
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const specBody = (notes: NoteService) => JSON.stringify({ success: true, data: notes.list().items });

/** The path of the note at each chunk edge (first and last note of every chunk). */
function edges(sizes: number[], paths: string[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(paths[at]!, paths[at + n - 1]!);
    at += n;
  }
  return out;
}

type Op =
  | { kind: 'create'; at: number; suffix: string; link: boolean }
  | { kind: 'update'; at: number; link: boolean }
  | { kind: 'delete'; at: number }
  | { kind: 'move'; at: number; to: number; suffix: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    at: fc.nat(),
    suffix: fc.constantFrom(' a', '0', '~'),
    link: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('update' as const), at: fc.nat(), link: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('move' as const),
    at: fc.nat(),
    to: fc.nat(),
    suffix: fc.constantFrom(' b', '1', '~'),
  }),
);

describe('the list after writes', () => {
  it('is, once inflated, a fresh encoding cut the same way, after creates, updates, deletes, moves and renames at chunk edges', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
        const notes = await service(vault(300));
        const list = createCompressedList();
        let cur = notes.list();
        list.update(cur.generation, cur.items);
        await list.gzipAsync(zlib);
        for (const op of ops) {
          // Aim at the notes on either side of a chunk boundary.
          const paths = cur.items.map((s) => s.path);
          const edge = edges(list.chunkSizes(), paths);
          const target = edge[op.at % edge.length]!;
          const other = edge[(op.kind === 'move' ? op.to : 0) % edge.length]!;
          if (op.kind === 'create') {
            const path = `${target.slice(0, -3)}${op.suffix}.md`;
            if (!paths.includes(path)) {
              await notes.create(path, op.link ? `# New\n\n[[${other.slice(3, -3)}]]\n` : 'plain\n');
            }
          } else if (op.kind === 'update') {
            await notes.update(target, {
              content: op.link ? `# Changed\n\n[[${other.slice(3, -3)}]]\n` : 'changed\n',
            });
          } else if (op.kind === 'delete') {
            if (paths.length > 5) await notes.remove(target);
          } else {
            // A rename in place (same folder) or a move next to another edge note, links rewritten.
            const to = `${other.slice(0, -3)}${op.suffix}.md`;
            if (to !== target && !paths.includes(to)) await notes.move(target, to, { updateLinks: true });
          }
          cur = notes.list();
          list.update(cur.generation, cur.items);
          const gz = await list.gzipAsync(zlib);
          const fresh = createCompressedList();
          fresh.update(cur.generation, cur.items);
          expect(text(zlib.gunzipSync(gz))).toBe(specBody(notes));
          expect(text(list.identity())).toBe(specBody(notes));
          expect(list.chunkSizes()).toEqual(fresh.chunkSizes());
        }
        await list.polishNow();
        expect(text(zlib.gunzipSync(list.gzip(zlib)))).toBe(specBody(notes));
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('serializes and deflates only the chunk a write touched', async () => {
    const files = vault(400);
    // A note nothing links to and that links nowhere: its update changes its own summary only.
    files['f2/lonely.md'] = 'alone\n';
    const notes = await service(files);
    const list = createCompressedList();
    let cur = notes.list();
    list.update(cur.generation, cur.items);
    list.gzip(zlib);
    const chunks = list.chunkCount();
    expect(chunks).toBeGreaterThan(5);
    const before = list.work();
    expect(before.serialized).toBe(chunks);
    expect(before.summaries).toBe(cur.items.length);

    await notes.update('f2/lonely.md', { content: 'still alone, longer now\n' });
    cur = notes.list();
    list.update(cur.generation, cur.items);
    const gz = list.gzip(zlib);
    const after = list.work();
    expect(after.serialized - before.serialized).toBe(1);
    expect(after.summaries - before.summaries).toBe(1);
    // The chunk itself, and the one after it only if the bytes it was primed with changed.
    expect(after.deflated - before.deflated).toBeGreaterThanOrEqual(1);
    expect(after.deflated - before.deflated).toBeLessThanOrEqual(2);
    expect(text(zlib.gunzipSync(gz))).toBe(specBody(notes));
    // Nothing changed: nothing is done.
    list.update(cur.generation + 0, cur.items);
    list.gzip(zlib);
    expect(list.work()).toEqual(after);
  });
});

describe('GET /api/v1/notes?format=columns', () => {
  async function app(files: Record<string, string>) {
    const notes = await service(files);
    const clock = { now: () => Date.now() };
    const a = createApp({ notes, version: '0.0.0-test', clock, logger: silentLogger });
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await a.request(`http://127.0.0.1:3000${path}`, { headers });
      return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
    };
    return { notes, get };
  }

  it("decodes to the spec list exactly, is smaller once gzip'd, and revalidates with its own ETag", async () => {
    const files = vault(600);
    files['img/pic.png'] = 'x';
    files['f1/embeds.md'] = '![[pic.png]] and [[f3/note-0003]] and [[nowhere.pdf]]\n';
    const t = await app(files);
    const spec = await t.get('/api/v1/notes');
    const cols = await t.get('/api/v1/notes?format=columns', { 'accept-encoding': 'gzip' });
    expect(cols.res.status).toBe(200);
    expect(cols.res.headers.get('content-encoding')).toBe('gzip');
    const body = JSON.parse(text(zlib.gunzipSync(cols.bytes))) as { success: boolean; data: ListColumns };
    expect(body.success).toBe(true);
    expect(body.data.format).toBe('quire-columns/1');
    expect(JSON.stringify({ success: true, data: decodeColumns(body.data) })).toBe(text(spec.bytes));
    const specGz = zlib.gzipSync(spec.bytes, { level: 6 });
    expect(cols.bytes.length).toBeLessThan(specGz.length * 0.75);
    const etag = cols.res.headers.get('etag')!;
    expect(etag).not.toBe(spec.res.headers.get('etag'));
    expect((await t.get('/api/v1/notes?format=columns', { 'if-none-match': etag })).res.status).toBe(304);
    await t.notes.update('f1/embeds.md', { content: 'changed\n' });
    const again = await t.get('/api/v1/notes?format=columns', { 'if-none-match': etag });
    expect(again.res.status).toBe(200);
    const back = JSON.parse(text(again.bytes)) as { data: ListColumns };
    expect(decodeColumns(back.data)).toEqual(t.notes.list().items);
  });

  it('builds the same text a slice at a time, pausing between slices', async () => {
    const notes = await service(vault(250));
    const items = notes.list().items;
    let pauses = 0;
    const bytes = await encodeColumnsAnswer(items, { slice: 40, pause: async () => void pauses++ });
    expect(pauses).toBe(Math.ceil(items.length / 40) - 1);
    expect(text(bytes)).toBe(JSON.stringify({ success: true, data: encodeColumns(items) }));
    expect(decodeColumns(encodeColumns(items))).toEqual(items);
  });

  it('refuses other formats and combinations with paging or fields', async () => {
    const t = await app(vault(20));
    for (const q of [
      'format=rows',
      'format=columns&limit=5',
      'format=columns&fields=path',
      'format=columns&cursor=YQ',
    ]) {
      const r = await t.get(`/api/v1/notes?${q}`);
      expect(r.res.status).toBe(400);
      expect(JSON.parse(text(r.bytes)).error.code).toBe('VALIDATION_ERROR');
    }
  });
});
