import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { type RunningServer, startServer } from '../../deploy/node/server.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { tempDir } from '../helpers/app.ts';
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

/** FUZZ_DUMP=file writes every answer of ours there, to read them over. */
const dump: string[] = [];
const STACK = /\n\s+at\s|node:internal|\.ts:\d+:\d+|\.js:\d+:\d+/;

describe('HTTP fuzzing of a running server and relay (loopback)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: RunningServer;
  let relayPort: number;
  let knowledge: FuzzKnowledge;
  let secrets: string[];
  const logs: string[] = [];
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
    const config = loadConfig(
      {
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
      tmp.dir,
    );
    server = await startServer(config, { logger: jsonLogger('debug', (l) => logs.push(l)) });
    await server.ready;
    const setup = (await (await fetch(`${server.url}/api/v1/system/setup`)).json()).data;
    relayPort = Number(new URL(setup.pairing.relayUrl).port);
    const key = { 'x-service-key': setup.apiKey };
    await until(
      'the condition',
      async () =>
        (await (await fetch(`${server.url}/api/v1/system/info`, { headers: key })).json()).data.relay
          .state === 'online',
      60_000,
    );
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
    };
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  /** Sends `requests` (8 at a time) until done or out of time; returns failures and the count sent. */
  async function run(port: number, requests: RawRequest[], deadline: number) {
    const failures: { req: RawRequest; res?: RawResponse; why: string }[] = [];
    let next = 0;
    let sent = 0;
    const statuses: Record<number, number> = {};
    const check = (req: RawRequest, res: RawResponse) => {
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
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
      while (next < requests.length && Date.now() < deadline) {
        const req = requests[next++]!;
        sent++;
        try {
          check(req, await sendRaw(port, req));
        } catch (err) {
          failures.push({ req, why: String(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { failures, sent, statuses };
  }

  const show = (f: { req: RawRequest; res?: RawResponse; why: string }) =>
    `${f.why}: ${f.req.method} ${f.req.target} -> ${f.res?.status} ${f.res?.body.slice(0, 200)}`;

  it(
    'survives random requests: no 500, no secret, no stack trace, nothing outside the vault',
    async () => {
      const deadline = Date.now() + BUDGET_MS;
      const toServer = fc.sample(
        rawRequest(knowledge, requestLine(serverRoute(knowledge), serverTarget(knowledge))),
        {
          seed: SEED,
          numRuns: RUNS,
        },
      );
      const toRelay = fc.sample(
        rawRequest(knowledge, requestLine(relayRoute(knowledge), relayTarget(knowledge))),
        {
          seed: SEED + 1,
          numRuns: RUNS,
        },
      );
      const a = await run(server.port, toServer, deadline - BUDGET_MS / 2);
      const b = await run(relayPort, toRelay, deadline);
      console.log(
        `HTTP fuzz (seed ${SEED}, FUZZ_SEED to repeat): ${a.sent} requests to the server, ${b.sent} to the relay, ${a.sent + b.sent} in all`,
        `\nstatuses, server: ${JSON.stringify(a.statuses)}\nstatuses, relay: ${JSON.stringify(b.statuses)}`,
      );
      if (process.env.FUZZ_DUMP) await writeFile(process.env.FUZZ_DUMP, dump.join('\n'));
      const failures = [...a.failures, ...b.failures];
      expect(failures.map(show)).toEqual([]);
      expect(a.sent + b.sent).toBeGreaterThanOrEqual(Math.min(500, RUNS));

      // Still up, directly and through the relay.
      const key = { 'x-service-key': knowledge.apiKey };
      expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(200);
      expect(
        (await fetch(`http://127.0.0.1:${relayPort}/r/${knowledge.serverId}/api/v1/notes`, { headers: key }))
          .status,
      ).toBe(200);

      // Nothing was written or changed outside the vault and the data folder.
      await server.stop();
      const files = await filesUnder(tmp.dir);
      expect(files.filter(isOutside)).toEqual(outsideBefore);
      // The history store (docs/history.md) keeps its journal and one pack under data/history/.
      const history = files.filter((f) => f.startsWith('data/history/'));
      expect(history).toContain('data/history/journal');
      expect(
        history.every((f) => /^data\/history\/(journal|pack-\d+)$/.test(f)),
        history.join(),
      ).toBe(true);
      // The kept gzip list (docs/api.md) is there once a full list was built and saved.
      const data = files.filter((f) => f.startsWith('data/') && !f.startsWith('data/history/')).sort();
      expect(data.filter((f) => f !== 'data/list-gzip.bin')).toEqual([
        'data/credentials.json',
        'data/index-journal.log',
        'data/index-snapshot.bin',
      ]);
      expect(await readFile(join(tmp.dir, 'sentinel.txt'), 'utf8')).toBe('SENTINEL-OUTSIDE-THE-VAULT');
      expect(await readFile(join(tmp.dir, 'box', 'beside.md'), 'utf8')).toBe('SENTINEL-BESIDE-THE-VAULT');

      // No secret in the log, and no unhandled error.
      const log = logs.join('');
      for (const s of secrets) expect(log.includes(s), 'a secret in the log').toBe(false);
      expect(logs.filter((l) => l.includes('"level":"error"'))).toEqual([]);
    },
    BUDGET_MS + 70_000,
  );
});
