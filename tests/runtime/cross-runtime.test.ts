/**
 * One black-box HTTP sequence against the Node server and against the Worker as the README starts
 * it (`npm run start:worker`: wrangler dev --local), answers compared field by field with times,
 * ids and keys masked. What differs by design is listed in docs/guide/runtimes.md ("Node and the
 * Worker, answer by answer") and in BY_DESIGN below; anything else that differs fails.
 *
 * wrangler, workerd and Miniflare come from the on-demand `runtimes` group: installed on first
 * use (the await below, before any timeout runs), and a failed install fails this file.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { ensureRuntimes, type KeptServer, startNodeAt, startWorkerDev } from './runtimes.ts';

await ensureRuntimes();

type Json = any;
/** One answer as compared: the step, its status, its media type and its masked body. */
interface Step {
  step: string;
  status: number;
  type: string;
  body: Json;
}
/** A run of the sequence on one runtime: the compared steps and the headers kept aside. */
interface Transcript {
  steps: Step[];
  headers: Record<string, Record<string, string>>;
  /** Times seen in answers that were not ISO 8601 with milliseconds (none expected). */
  badTimes: string[];
  /** The interleaved unauthenticated and authenticated requests that failed or hung. */
  interleaved: string[];
}

/**
 * The same settings on both runtimes: the interleaved 401s must not rate-limit the test's client.
 * The Worker saves its index cache an hour after a write, not during the sequence: a search right
 * after a cache save ranks with other scores than before it, on any runtime (reported, not ours).
 */
const ENV = { LOG_LEVEL: 'info', RATE_LIMIT_FAILURES: '1000', INDEX_CACHE_SAVE_SECONDS: '3600' };

/**
 * Differences by design, per step and field (docs/guide/runtimes.md lists them), all in the setup
 * answer: `pairing` and `links` (Node pairs through its embedded relay, the Worker is open-port),
 * `server.host` (the Worker counts as reachable by anyone, 0.0.0.0) and `server.cors` (Node adds
 * the origins it listens on; a Worker listens on none).
 */
const SETUP_BY_DESIGN = ['host', 'cors', 'pairing', 'links'];
const BY_DESIGN: Record<string, string[]> = {
  'setup, first key': SETUP_BY_DESIGN,
  'setup after link (redacted)': SETUP_BY_DESIGN,
  'after restart: setup': SETUP_BY_DESIGN,
};

/** Headers of the connection or of one answer: never compared. */
const PER_ANSWER_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'x-request-id',
]);
/** Headers workerd sets itself (docs/guide/runtimes.md): it compresses what the client accepts. */
const HEADERS_BY_DESIGN = new Set(['content-encoding', 'vary']);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Fields whose values are per run: ids, keys, durations, addresses. */
const PER_RUN = new Set([
  'id',
  'requestId',
  'apiKey',
  'key',
  'keyId',
  'uptimeSeconds',
  'ms',
  'url',
  'serverId',
  'token',
  'code',
  'pairingCode',
  'from',
  'to',
  'port',
  'trashId',
]);
/** An API key's id inside a string (`by: key:key_…`): per run. */
const KEY_ID = /key_[A-Za-z0-9_-]{12}/g;
const TIME_FIELD = /(^at$|At$|^time$|^mtime$)/;

function mask(value: Json, badTimes: string[], key = ''): Json {
  if (Array.isArray(value)) return value.map((v) => mask(v, badTimes, key));
  if (value && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mask(v, badTimes, k);
    return out;
  }
  if (TIME_FIELD.test(key) && value !== null) {
    if (typeof value !== 'string' || !ISO_MS.test(value)) badTimes.push(`${key}=${value}`);
    return '<time>';
  }
  if (typeof value === 'string' && ISO_MS.test(value)) return '<time>';
  if (typeof value === 'string') value = value.replace(KEY_ID, '<keyId>');
  if (PER_RUN.has(key) && (typeof value === 'string' || typeof value === 'number')) return `<${key}>`;
  return value;
}

const NOTES: [string, string][] = [
  [
    'projects/alpha.md',
    '---\ntitle: Alpha plan\ntags: [work, plan]\nstatus: draft\n---\n# Alpha\n\nSee [[beta]] and [[projects/gamma|Gamma]].\n\n#urgent\n',
  ],
  ['beta.md', '# Beta\n\nBack to [[projects/alpha]]. A crocodile.\n'],
  ['projects/gamma.md', '# Gamma\n\nTagged #work, links [[beta]].\n'],
  ['deep/é t/über note.md', '# Über\n\nunicode path\n'],
];

const PROTECTED: [string, string, unknown?][] = [
  ['GET', '/api/v1/notes'],
  ['GET', '/api/v1/notes/beta.md'],
  ['POST', '/api/v1/notes', { path: 'x.md', content: '# x' }],
  ['PUT', '/api/v1/notes/beta.md', { content: '# x' }],
  ['DELETE', '/api/v1/notes/beta.md'],
  ['GET', '/api/v1/folders'],
  ['GET', '/api/v1/search?q=alpha'],
  ['GET', '/api/v1/tags'],
  ['GET', '/api/v1/trash'],
  ['GET', '/api/v1/notes/beta.md/versions'],
  ['GET', '/api/v1/auth/keys'],
];

const BAD_PATHS = [
  '../escape.md',
  '..%2Fescape.md',
  '%2e%2e/escape.md',
  'a/../../b.md',
  '%00.md',
  'nul%00byte.md',
  '%ff.md',
  '%',
  '.hidden/x.md',
  '.quire/history/x.md',
  'back%5Cslash.md',
  `${'x'.repeat(300)}.md`,
  'a//b.md',
  'notes.txt',
  '/absolute.md',
];

/** Runs the whole sequence against `start`'s server, restarting it once over the same folder. */
async function sequence(start: (dir: string) => Promise<KeptServer>): Promise<Transcript> {
  const tmp = await tempDir('quire-cross-');
  let server = await start(tmp.dir);
  const t: Transcript = { steps: [], headers: {}, badTimes: [], interleaved: [] };
  let key = '';
  const call = async (
    method: string,
    path: string,
    opts: { body?: unknown; headers?: Record<string, string>; auth?: boolean } = {},
  ) => {
    const h: Record<string, string> = { ...opts.headers };
    if (opts.auth !== false && key) h['x-service-key'] = key;
    if (opts.body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: h,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: Json = text;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, json };
  };
  const record = async (
    step: string,
    method: string,
    path: string,
    opts: Parameters<typeof call>[2] = {},
  ) => {
    const r = await call(method, path, opts);
    const type = (r.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    t.steps.push({ step, status: r.status, type, body: mask(r.json, t.badTimes) });
    t.headers[step] = Object.fromEntries(r.headers);
    return r;
  };

  try {
    const setup = await record('setup, first key', 'GET', '/api/v1/system/setup');
    key = setup.json.data.apiKey;
    await record('link', 'POST', '/api/v1/auth/link');
    await record('setup after link (redacted)', 'GET', '/api/v1/system/setup', { auth: false });
    for (const [path, content] of NOTES)
      await record(`create ${path}`, 'POST', '/api/v1/notes', { body: { path, content } });
    await record('create again: conflict', 'POST', '/api/v1/notes', {
      body: { path: 'beta.md', content: '# again' },
    });
    await record('list', 'GET', '/api/v1/notes');
    const one = await record('one note', 'GET', '/api/v1/notes/projects%2Falpha.md');
    t.headers['one note etag'] = { etag: String(one.headers.get('etag') === `"${one.json.data.checksum}"`) };
    const checksum = one.json.data.checksum as string;
    await record('unicode path', 'GET', `/api/v1/notes/${encodeURIComponent('deep/é t/über note.md')}`);
    await record('If-None-Match: not modified', 'GET', '/api/v1/notes/projects%2Falpha.md', {
      headers: { 'if-none-match': `"${checksum}"` },
    });
    await record('If-Match stale: refused', 'PUT', '/api/v1/notes/projects%2Falpha.md', {
      body: { content: '# Alpha\n\nstale' },
      headers: { 'if-match': '"0000"' },
    });
    await record('If-Match current: written', 'PUT', '/api/v1/notes/projects%2Falpha.md', {
      body: { content: `${NOTES[0]![1]}\nSecond version.\n` },
      headers: { 'if-match': `"${checksum}"` },
    });
    await record('folder tree', 'GET', '/api/v1/folders');
    await record('search', 'GET', '/api/v1/search?q=crocodile');
    await record('search with a typo', 'GET', '/api/v1/search?q=alpah');
    await record('tags', 'GET', '/api/v1/tags');
    await record('versions', 'GET', '/api/v1/notes/projects%2Falpha.md/versions');
    await record('delete', 'DELETE', '/api/v1/notes/beta.md');
    await record('backlinks after the delete', 'GET', '/api/v1/notes/projects%2Falpha.md');
    const trash = await record('trash', 'GET', '/api/v1/trash');
    await record('restore', 'POST', `/api/v1/trash/${encodeURIComponent(trash.json.data[0].id)}/restore`);
    await record('trash after restore', 'GET', '/api/v1/trash');
    await record('list after restore', 'GET', '/api/v1/notes');
    for (const [method, path, body] of PROTECTED)
      await record(`401 ${method} ${path}`, method, path, { body, auth: false });
    await record('401 wrong key', 'GET', '/api/v1/notes', {
      auth: false,
      headers: { 'x-service-key': 'qk_wrong' },
    });
    for (const p of BAD_PATHS) await record(`bad path ${p.slice(0, 40)}`, 'GET', `/api/v1/notes/${p}`);
    await record('bad JSON', 'POST', '/api/v1/notes', {
      body: undefined,
      headers: { 'content-type': 'application/json' },
    });

    // 50 strangers' bodies, each followed by a client's request: none may fail or hang.
    for (let i = 0; i < 50; i++) {
      const big = 'x'.repeat(1024);
      const stranger = await call('PUT', `/api/v1/notes/s${i}.md`, {
        body: { content: big },
        auth: false,
      }).catch((e: Error) => ({ status: 0, json: e.message }));
      if (stranger.status !== 401)
        t.interleaved.push(`stranger ${i}: ${stranger.status} ${JSON.stringify(stranger.json)}`);
      const client =
        i % 2 === 0
          ? await call('GET', '/api/v1/notes/projects%2Fgamma.md').catch((e: Error) => ({
              status: 0,
              json: e.message,
            }))
          : await call('PUT', '/api/v1/notes/projects%2Fgamma.md', {
              body: { content: `# Gamma\n\nround ${i} [[beta]]\n` },
            }).catch((e: Error) => ({ status: 0, json: e.message }));
      if (client.status !== 200)
        t.interleaved.push(`client ${i}: ${client.status} ${JSON.stringify(client.json)}`);
    }
    await record('after the strangers', 'GET', '/api/v1/notes/projects%2Fgamma.md');
    // The runtime's own log: workerd reported a body read after its answer, or restarted the object.
    for (const sign of ["Can't read from request stream", 'restarted mid-request', 'Uncaught'])
      if (server.output().includes(sign)) t.interleaved.push(`the server logged "${sign}"`);

    await server.stop();
    server = await start(tmp.dir);
    await record('after restart: setup', 'GET', '/api/v1/system/setup', { auth: false });
    await record('after restart: list', 'GET', '/api/v1/notes');
    await record('after restart: one note', 'GET', '/api/v1/notes/projects%2Falpha.md');
    await record('after restart: search', 'GET', '/api/v1/search?q=crocodile');
    await record('after restart: versions', 'GET', '/api/v1/notes/projects%2Falpha.md/versions');
    return t;
  } finally {
    await server.stop();
    await tmp.cleanup();
  }
}

/** `t` with the fields BY_DESIGN names removed from the steps it names. */
function withoutByDesign(t: Transcript): Step[] {
  const drop = (v: Json, fields: string[]): Json => {
    if (Array.isArray(v)) return v.map((x) => drop(x, fields));
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !fields.includes(k))
          .map(([k, x]) => [k, drop(x, fields)]),
      );
    return v;
  };
  return t.steps.map((s) => (BY_DESIGN[s.step] ? { ...s, body: drop(s.body, BY_DESIGN[s.step]!) } : s));
}

describe('Node and the Worker under npm run start:worker answer the same sequence alike', () => {
  let node: Transcript;
  let worker: Transcript;
  beforeAll(async () => {
    [node, worker] = await Promise.all([
      sequence((dir) => startNodeAt(dir, ENV)),
      sequence((dir) => startWorkerDev(dir, ENV)),
    ]);
  }, 240_000);

  it('every step answers the same status, media type and body, times and ids masked', () => {
    const a = withoutByDesign(node);
    const b = withoutByDesign(worker);
    expect(b.map((s) => s.step)).toEqual(a.map((s) => s.step));
    const differ = a.flatMap((s, i) =>
      JSON.stringify(b[i]) === JSON.stringify(s) ? [] : [{ node: s, worker: b[i] }],
    );
    expect(differ).toEqual([]);
  });

  it('the headers differ only where docs/guide/runtimes.md says: compression, Vary, charset', () => {
    const differ: string[] = [];
    for (const step of Object.keys(node.headers)) {
      const a = node.headers[step]!;
      const b = worker.headers[step] ?? {};
      for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (PER_ANSWER_HEADERS.has(name) || HEADERS_BY_DESIGN.has(name)) continue;
        const norm = (v?: string) => (name === 'content-type' ? v?.replace(/;\s*charset=utf-8$/i, '') : v);
        const [x, y] = [norm(a[name]), norm(b[name])];
        if (name === 'etag' || name === 'ratelimit-reset' || name === 'retry-after') {
          if ((x === undefined) !== (y === undefined)) differ.push(`${step}: ${name} ${x} / ${y}`);
        } else if (x !== y) differ.push(`${step}: ${name} ${x} / ${y}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('the steps answer what they should (the sequence is not vacuous)', () => {
    const status = Object.fromEntries(node.steps.map((s) => [s.step, s.status]));
    expect(status['create projects/alpha.md']).toBe(201);
    expect(status['create again: conflict']).toBe(409);
    expect(status['If-None-Match: not modified']).toBe(304);
    expect(status['If-Match stale: refused']).toBe(412);
    expect(status.restore).toBe(200);
    expect(node.steps.filter((s) => s.step.startsWith('401 ')).map((s) => s.status)).toEqual(
      Array(12).fill(401),
    );
    const bad = node.steps.filter((s) => s.step.startsWith('bad path '));
    expect(bad).toHaveLength(15);
    for (const s of bad)
      expect([s.step, s.status, s.body?.success]).toEqual([s.step, expect.any(Number), false]);
    for (const s of bad) expect(s.status, s.step).toBeGreaterThanOrEqual(400);
    for (const s of bad) expect(s.status, s.step).toBeLessThan(500);
    expect(node.headers['one note etag']).toEqual({ etag: 'true' });
    expect(worker.headers['one note etag']).toEqual({ etag: 'true' });
  });

  it('every timestamp is ISO 8601 with milliseconds, trash and versions included', () => {
    expect(node.badTimes).toEqual([]);
    expect(worker.badTimes).toEqual([]);
    const trash = node.steps.find((s) => s.step === 'trash')!.body.data;
    expect(trash[0].deletedAt).toBe('<time>');
    const versions = node.steps.find((s) => s.step === 'versions')!.body.data;
    expect(versions[0].at).toBe('<time>');
  });

  it('50 unauthenticated bodies interleaved with a client: none fails or hangs, on both', () => {
    expect(node.interleaved).toEqual([]);
    expect(worker.interleaved).toEqual([]);
  });
});
