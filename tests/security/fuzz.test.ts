import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { runCommand } from '../helpers/child.ts';
import { until } from '../helpers/wait.ts';
import { SEED } from './arbitraries.ts';
import {
  type FuzzKnowledge,
  rawRequest,
  relayRoute,
  relayTarget,
  requestLine,
  serverRoute,
  serverTarget,
} from './fuzz-requests.ts';
import { healthProbe } from './health-probe.ts';
import { type RawRequest, type RawResponse, sendRaw } from './raw-http.ts';

/** Requests per target; FUZZ_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);
/** Stop sending new requests after this long (the count reached is printed). */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 20_000);
const CONCURRENCY = 8;

const SEEDED_NOTES: Record<string, string> = {
  'a.md': '# A\nSee [[b]] and [c](folder/c.md). #alpha',
  'b.md': '---\ntitle: Bee\ntags: [x]\n---\nBack to [[a]].',
  'folder/c.md': '# C\n![[a]]',
};

/** Every file under `dir`, relative and sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isDirectory()) out.push(relative(dir, join(e.parentPath, e.name)));
  }
  return out.sort();
}

/** The key scopes the fuzz sends with besides the full key (core/auth/scope.ts). */
const SCOPES = {
  readOnly: { capabilities: ['notes:read', 'files:read'] },
  folderLimited: {
    capabilities: ['notes:read', 'notes:write', 'files:read', 'files:write', 'agent'],
    folders: ['folder/'],
  },
  writeOnly: { capabilities: ['notes:write', 'files:write'] },
  excluding: { capabilities: ['notes:read', 'notes:write', 'admin'], exclude: ['folder/'] },
};

/**
 * What the new route families need to be reached past their first check: keys of other scopes,
 * real version ids (a note written twice), real trash ids (a note deleted), an OAuth client.
 */
async function seedForTheNewRoutes(url: string, apiKey: string): Promise<Partial<FuzzKnowledge>> {
  const call = async (method: string, path: string, body?: unknown, type = 'application/json') => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-service-key': apiKey, 'content-type': type },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json();
  };
  const keys: string[] = [];
  for (const [name, scope] of Object.entries(SCOPES))
    keys.push((await call('POST', '/api/v1/auth/keys', { name, scope })).data.apiKey);
  await call('PUT', '/api/v1/notes/a.md', { content: '# A\nSee [[b]], rewritten once. #alpha' });
  await call('PUT', '/api/v1/notes/folder%2Fc.md', { content: '# C\n![[a]] and more' });
  await call('POST', '/api/v1/notes', { path: 'gone.md', content: 'to the trash' });
  await call('DELETE', '/api/v1/notes/gone.md');
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(200).fill(7)]);
  for (const f of ['pic.png', 'folder/doc.pdf']) {
    const res = await fetch(`${url}/api/v1/files/${encodeURIComponent(f)}`, {
      method: 'PUT',
      headers: { 'x-service-key': apiKey, 'content-type': 'application/octet-stream' },
      body: png,
    });
    expect(res.status, `PUT ${f}`).toBeLessThan(300);
  }
  const versions: string[] = [];
  for (const n of ['a.md', 'folder%2Fc.md'])
    for (const v of (await call('GET', `/api/v1/notes/${n}/versions`)).data) versions.push(v.id);
  const trash = (await call('GET', '/api/v1/trash')).data.map((t: { id: string }) => t.id);
  const redirectUri = 'http://127.0.0.1:9/callback';
  const client = await (
    await fetch(`${url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], client_name: 'fuzz' }),
    })
  ).json();
  expect(versions.length).toBeGreaterThan(0);
  expect(trash.length).toBeGreaterThan(0);
  const files = ['pic.png', 'folder%2Fdoc.pdf', 'folder/doc.pdf'];
  const publications: string[] = [];
  for (const body of [{ path: 'folder' }, { path: 'a.md', password: 'a long fuzz password' }])
    publications.push((await call('POST', '/api/v1/publications', body)).data.id);
  return { keys, versions, trash, files, clientId: client.client_id, redirectUri, publications };
}

/** OAuth's endpoints and metadata, directly or through the relay. */
const OAUTH_ROUTE =
  /\/(oauth\/(register|authorize|token|revoke)|\.well-known\/oauth-(authorization-server|protected-resource(\/mcp)?))$/;
/** No answer within this long is a stall (a long poll here waits at most a second). */
const STALL_MS = 10_000;

/** `RUNS` samples of `arb`, drawn 2,000 at a time as the run takes them (a long run's bodies stay small in memory). */
function lazySample<T>(arb: fc.Arbitrary<T>, seed: number): () => T | undefined {
  let batch: T[] = [];
  let taken = 0;
  return () => {
    if (taken >= RUNS) return undefined;
    if (taken % 2_000 === 0)
      batch = fc.sample(arb, { seed: seed + taken, numRuns: Math.min(2_000, RUNS - taken) });
    return batch[taken++ % 2_000];
  };
}

/** The route family of a request target (through the relay too), for the reach table. */
function familyOf(target: string): string {
  const path = target.split('?')[0]!.replace(/^\/r\/[^/]*/, '');
  if (/^\/(oauth\/|\.well-known\/oauth|api\/v1\/auth\/oauth\/)/.test(path)) return 'oauth';
  if (/^\/api\/v1\/notes\/.+\/versions(\/|$)/.test(path)) return 'history';
  const m = /^\/api\/v1\/([a-z]+)/.exec(path) ?? /^\/(mcp)\b/.exec(path);
  return m?.[1] ?? 'other';
}

/** The families this round's fuzz must reach past the guards (a success or a route's own refusal). */
const MUST_REACH = ['oauth', 'history', 'trash', 'files', 'events', 'tags', 'mcp'];

/** FUZZ_DUMP=file writes every answer of ours there, to read them over. */
const dump: string[] = [];
const STACK = /\n\s+at\s|node:internal|\.ts:\d+:\d+|\.js:\d+:\d+/;

describe('HTTP fuzzing of a running server and relay (loopback)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: ReturnType<typeof runCommand> & { url: string; port: number };
  let relayPort: number;
  let knowledge: FuzzKnowledge;
  let secrets: string[];
  let outsideBefore: string[];
  const isOutside = (f: string) => !f.startsWith('box/vault/') && !f.startsWith('data/');

  beforeAll(async () => {
    tmp = await tempDir('quire-fuzz-');
    const vault = join(tmp.dir, 'box', 'vault');
    for (const [p, text] of Object.entries(SEEDED_NOTES)) {
      await mkdir(join(vault, p, '..'), { recursive: true });
      await writeFile(join(vault, p), text);
    }
    await writeFile(join(tmp.dir, 'sentinel.txt'), 'SENTINEL-OUTSIDE-THE-VAULT');
    await writeFile(join(tmp.dir, 'box', 'beside.md'), 'SENTINEL-BESIDE-THE-VAULT');
    outsideBefore = (await filesUnder(tmp.dir)).filter(isOutside);
    // The server and its relay in a process of their own (deploy/node/main.ts, as `quire serve`
    // runs), so the fuzz client's CPU does not show in the server's latency.
    // FUZZ_CPU_PROF=dir: the server's CPU profile, written there when it stops.
    const prof = process.env.FUZZ_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.FUZZ_CPU_PROF}`]
      : [];
    const child = runCommand(
      process.execPath,
      [...prof, '--import', 'tsx', 'tests/security/fuzz-server.ts'],
      {
        HOST: '127.0.0.1',
        LOG_LEVEL: 'debug',
        DATA_DIR: join(tmp.dir, 'data'),
        VAULT_DIR: vault,
        PORT: '0',
        RELAY_PORT: '0',
        MAX_BODY_BYTES: String(64 * 1024),
        RATE_LIMIT_FAILURES: '100000',
        RATE_LIMIT_AUTH_PER_MINUTE: '100000',
        AGENT_TIMEOUT_MS: '5000',
        // A request whose framing promises more body than it sends is cut off after this.
        HEADERS_TIMEOUT_MS: '2000',
        REQUEST_TIMEOUT_MS: '3000',
      },
    );
    const { url } = await child.waitForLog((l) => l.msg === 'listening', 60_000);
    server = Object.assign(child, { url, port: Number(new URL(url).port) });
    const setup = (await (await fetch(`${server.url}/api/v1/system/setup`)).json()).data;
    const key = { 'x-service-key': setup.apiKey };
    await until(
      'the condition',
      async () =>
        (await (await fetch(`${server.url}/api/v1/system/info`, { headers: key })).json()).data.relay
          .state === 'online',
      60_000,
    );
    // Read once the relay is up: the child logs `listening` before its relay has its port.
    const relayUrl = (await (await fetch(`${server.url}/api/v1/system/setup`)).json()).data.pairing.relayUrl;
    relayPort = Number(new URL(relayUrl).port);
    const creds = JSON.parse(await readFile(join(tmp.dir, 'data', 'credentials.json'), 'utf8'));
    secrets = [setup.apiKey, setup.apiKey.slice('quire_sk_'.length), creds.relaySecret, creds.pairing.code];
    // Complete setup, so the setup payload stops showing the key and the code, as in real use.
    expect((await fetch(`${server.url}/api/v1/auth/link`, { method: 'POST', headers: key })).status).toBe(
      200,
    );
    knowledge = {
      apiKey: setup.apiKey,
      serverId: setup.serverId,
      notes: Object.keys(SEEDED_NOTES).map(encodeURIComponent),
      ...(await seedForTheNewRoutes(server.url, setup.apiKey)),
    };
    secrets.push(...(knowledge.keys ?? []));
    const versionProbe = await sendRaw(server.port, {
      method: 'GET',
      target: '/api/v1/notes/a.md/versions/%E0%A4%A',
      headers: [['X-Service-Key', setup.apiKey]],
      body: null,
      chunked: false,
      shortLength: false,
      smuggle: null,
    });
    // A malformed escape in a version id once answered 500 (URIError); the fuzz found it.
    expect(versionProbe.status).toBe(400);
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    await tmp?.cleanup();
  });

  /** Sends `requests` (8 at a time) until done or out of time; returns failures and the count sent. */
  async function run(port: number, requests: () => RawRequest | undefined, deadline: number) {
    const failures: { req: RawRequest; res?: RawResponse; why: string }[] = [];
    let sent = 0;
    const statuses: Record<number, number> = {};
    const families: Record<string, { sent: number; passed: number }> = {};
    const check = (req: RawRequest, res: RawResponse) => {
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const family = familyOf(req.target);
      const seen = families[family] ?? { sent: 0, passed: 0 };
      families[family] = seen;
      seen.sent++;
      // Past the guards to the route's own work: a success, or a refusal of the route's own.
      if (res.status < 400 || res.status === 409 || res.status === 412 || res.status === 416) seen.passed++;
      const fail = (why: string) => failures.push({ req, res, why });
      if (res.status === 500) fail('500');
      // A HEAD answer has no body by definition (its GET twin carries the envelope).
      else if (res.status >= 500 && req.method.toUpperCase() !== 'HEAD' && !/"success":false/.test(res.body))
        fail(`${res.status} without the envelope`);
      for (const s of secrets)
        if (res.raw.includes(s) || res.body.includes(s)) fail('a secret in the answer');
      if (STACK.test(res.body) || res.body.includes(tmp.dir)) fail('a stack trace or a path in the body');
      if (res.body.includes('SENTINEL-')) fail('a file outside the vault was read');
      if (res.headers['x-request-id'] && res.headers['x-content-type-options'] !== 'nosniff')
        fail('an answer of ours without the security headers');
      // OAuth's endpoints answer as RFC 6749 asks ({error, error_description}), its pages in HTML.
      if (OAUTH_ROUTE.test(req.target.split('?')[0]!) && req.method !== 'HEAD') {
        const type = res.headers['content-type'] ?? '';
        if (res.status >= 400 && type.includes('application/json')) {
          let json: { success?: unknown; error?: unknown } | undefined;
          try {
            json = JSON.parse(res.body);
          } catch {}
          if (typeof json?.success !== 'boolean' && typeof json?.error !== 'string')
            fail('an OAuth error without its error field');
        } else if (res.status >= 400 && res.status !== 405 && !type.includes('text/html') && res.body !== '')
          fail(`an OAuth answer of type ${type}`);
        return;
      }
      // Published pages answer in HTML, their errors too (a malformed escape: the envelope).
      if (/^(\/r\/[^/]*)?\/p\//.test(req.target) && req.method !== 'HEAD') {
        const type = res.headers['content-type'] ?? '';
        if (
          res.status >= 400 &&
          !type.includes('text/html') &&
          !/"success":false/.test(res.body) &&
          res.body !== ''
        )
          fail(`a published page's error of type ${type}`);
        return;
      }
      // Files and event streams answer in their own types; MCP in JSON-RPC (checked below).
      const ownType = res.status < 400 && !(res.headers['content-type'] ?? '').includes('application/json');
      const rpc = /^\s*[[{]\s*"(jsonrpc|result|error)"|^\s*\[/.test(res.body) && /"jsonrpc"/.test(res.body);
      if (rpc && /"code":-32603/.test(res.body)) fail('an MCP internal error');
      if (res.body.includes('INTERNAL_ERROR')) fail('INTERNAL_ERROR in an answer');
      if (
        res.headers['x-request-id'] &&
        req.method !== 'HEAD' &&
        res.status !== 204 &&
        res.status !== 304 &&
        !ownType &&
        !rpc &&
        !(res.status === 202 && res.body === '')
      ) {
        let json: unknown;
        try {
          json = JSON.parse(res.body);
        } catch {
          fail('an answer of ours that is not JSON');
        }
        if (typeof (json as { success?: unknown })?.success !== 'boolean')
          fail('an answer without the envelope');
        if (process.env.FUZZ_DUMP)
          dump.push(`${res.status} ${req.method} ${req.target.slice(0, 60)} ${res.body.slice(0, 160)}`);
      }
    };
    const worker = async () => {
      for (let req = requests(); req && Date.now() < deadline; req = requests()) {
        sent++;
        try {
          check(req, await sendRaw(port, req, STALL_MS));
        } catch (err) {
          failures.push({ req, why: String(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { failures, sent, statuses, families };
  }

  const show = (f: { req: RawRequest; res?: RawResponse; why: string }) =>
    `${f.why}: ${f.req.method} ${f.req.target} -> ${f.res?.status} ${f.res?.body.slice(0, 200)}`;

  it(
    'survives random requests: no 500, no secret, no stack trace, nothing outside the vault',
    async () => {
      const deadline = Date.now() + BUDGET_MS;
      const toServer = lazySample(
        rawRequest(knowledge, requestLine(serverRoute(knowledge), serverTarget(knowledge))),
        SEED,
      );
      const toRelay = lazySample(
        rawRequest(knowledge, requestLine(relayRoute(knowledge), relayTarget(knowledge))),
        SEED + 1,
      );
      // Health idle first (the baseline of the same run), then during the fuzz.
      const idleProbe = healthProbe(server.port, STALL_MS);
      await until('30 idle health probes', () => idleProbe.taken() >= 30, 30_000);
      const idle = await idleProbe.stop();
      const probe = healthProbe(server.port, STALL_MS);
      const a = await run(server.port, toServer, deadline - BUDGET_MS / 2);
      const b = await run(relayPort, toRelay, deadline);
      const health = await probe.stop();
      console.log(
        `HTTP fuzz (seed ${SEED}, FUZZ_SEED to repeat): ${a.sent} requests to the server, ${b.sent} to the relay, ${a.sent + b.sent} in all`,
        `\nstatuses, server: ${JSON.stringify(a.statuses)}\nstatuses, relay: ${JSON.stringify(b.statuses)}`,
        `\nhealth idle: ${idle.count} probes, p50 ${idle.p50.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms`,
        `\nhealth during the fuzz: ${health.count} probes, p50 ${health.p50.toFixed(1)} ms, p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms`,
      );
      // The server's own loop, beside the client-side figure: the seconds it was held over 50 ms.
      const held = server.out.stdout
        .split('\n')
        .filter((l) => l.includes('"msg":"fuzz event loop"'))
        .map((l) => JSON.parse(l));
      console.log(
        `server event loop: ${held.length} seconds with a delay over 50 ms, worst ${Math.max(0, ...held.map((h) => h.max))} ms`,
      );
      const reach = Object.fromEntries(
        Object.keys({ ...a.families, ...b.families })
          .sort()
          .map((f) => {
            const sent = (a.families[f]?.sent ?? 0) + (b.families[f]?.sent ?? 0);
            return [f, `${(a.families[f]?.passed ?? 0) + (b.families[f]?.passed ?? 0)}/${sent}`];
          }),
      );
      console.log(`reached past the guards / sent, by family: ${JSON.stringify(reach)}`);
      if (process.env.FUZZ_DUMP) await writeFile(process.env.FUZZ_DUMP, dump.join('\n'));
      // Each family got past the guards at least once; held where it was sent often enough for
      // that to be certain (a loaded machine's short run sends fewer in its time).
      for (const f of MUST_REACH.filter((x) => (a.families[x]?.sent ?? 0) + (b.families[x]?.sent ?? 0) >= 50))
        expect((a.families[f]?.passed ?? 0) + (b.families[f]?.passed ?? 0), `${f} reached`).toBeGreaterThan(
          0,
        );
      const failures = [...a.failures, ...b.failures];
      const classes = new Map<string, { count: number; example: string }>();
      for (const f of failures) {
        const key = `${f.why} | ${f.req.method} ${familyOf(f.req.target)} -> ${f.res?.status}`;
        const c = classes.get(key) ?? { count: 0, example: show(f).slice(0, 400) };
        c.count++;
        classes.set(key, c);
      }
      if (classes.size > 0) console.log('failure classes:', JSON.stringify([...classes], null, 1));
      expect(failures.map(show).slice(0, 50)).toEqual([]);
      // Health answered every probe, none stalled; its p99 is held in the long run only (a busy
      // machine's short run records it).
      expect(health.bad).toEqual([]);
      expect(health.count).toBeGreaterThan(0);
      if (RUNS >= 20_000) expect(health.p99).toBeLessThan(100);
      expect(a.sent + b.sent).toBeGreaterThanOrEqual(Math.min(500, RUNS));

      // Still up, directly and through the relay.
      const key = { 'x-service-key': knowledge.apiKey };
      expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(200);
      expect(
        (await fetch(`http://127.0.0.1:${relayPort}/r/${knowledge.serverId}/api/v1/notes`, { headers: key }))
          .status,
      ).toBe(200);

      // Nothing was written or changed outside the vault and the data folder.
      expect(await server.stop(), server.out.stderr).toBe(0);
      const files = await filesUnder(tmp.dir);
      expect(files.filter(isOutside)).toEqual(outsideBefore);
      // The history store (docs/reference/history.md) keeps its journal and one pack under data/history/.
      const history = files.filter((f) => f.startsWith('data/history/'));
      expect(history).toContain('data/history/journal');
      expect(
        history.every((f) => /^data\/history\/(journal|pack-\d+)$/.test(f)),
        history.join(),
      ).toBe(true);
      // The kept gzip list (docs/reference/api.md) is there once a full list was built and saved.
      const data = files.filter((f) => f.startsWith('data/') && !f.startsWith('data/history/')).sort();
      // oauth.json is written with the first grant, not a registration (core/auth/oauth.ts).
      const optional = ['data/list-gzip.bin', 'data/oauth.json'];
      expect(data.filter((f) => !optional.includes(f))).toEqual([
        'data/credentials.json',
        'data/index-journal.log',
        'data/index-snapshot.bin',
        // The publications the seed made (core/publish), beside the people's state.
        'data/publications.json',
      ]);
      expect(await readFile(join(tmp.dir, 'sentinel.txt'), 'utf8')).toBe('SENTINEL-OUTSIDE-THE-VAULT');
      expect(await readFile(join(tmp.dir, 'box', 'beside.md'), 'utf8')).toBe('SENTINEL-BESIDE-THE-VAULT');

      // No secret in the log, and no unhandled error.
      const log = server.out.stdout + server.out.stderr;
      for (const s of secrets) expect(log.includes(s), 'a secret in the log').toBe(false);
      const lines = server.out.stdout.split('\n');
      expect(lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
      expect(server.out.stderr).toBe('');
    },
    BUDGET_MS + 70_000,
  );
});
