import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotRoutesOf } from '../../adapters/http/hot.ts';
import { OPERATIONS } from '../../adapters/http/openapi/operations.ts';
import { type RunningServer, startServer } from '../../deploy/node/server.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import type { HotExchange } from '../../http-kit/hot-answer.ts';
import { hotDispatcher } from '../../http-kit/node/dispatch.ts';
import { SECURE_HEADERS } from '../../http-kit/secure-headers.ts';
import { tunnelConnector } from '../../relay/connector/tunnel-connector.ts';
import type { RunningRelay } from '../../relay/node/server.ts';
import { tempDir } from '../helpers/app.ts';
import { capturingLogger, silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';
import { e2eWorld } from '../relay/e2e-harness.ts';
import { newIdentity, pairing } from '../relay/fixtures.ts';
import { framePeer } from '../relay/frame-peer.ts';
import { type Answer, type Ask, appAsk, comparable, rawAsk } from './answer-contract.ts';

/**
 * The HTTP-answer contract suite: every route of the API (the OpenAPI operation table), with
 * real example requests (ok answers, 304 with If-None-Match, 404, 401 without a key, bad
 * input), asked over every path that answers it:
 *
 * - `app.request` (the Hono app itself) against the note server's Node dispatcher on a real
 *   socket (http-kit/node/dispatch.ts, the hot routes of adapters/http/hot.ts, else the app);
 * - through a real tunnel: the relay's Node dispatcher (its hot route relay/http/routes/proxy.ts
 *   `proxyHot`) with the server's end answering from the tunnel frame with the hot routes
 *   (relay/connector/tunnel-hot.ts), against the relay's Hono route (a relay started with
 *   `fastLane: false`) with a tunnel that hands every request to the app (`app.fetch`).
 *
 * Status, headers (all but the ones `NOT_COMPARED` and the per-request ids, answer-contract.ts)
 * and body bytes must be equal.
 */

const ORIGIN = 'http://localhost:5173';
const NOTES: Record<string, string> = {
  'a.md': '# A\nSee [[b]] and [[folder/with space]]. #x',
  'b.md': '---\ntitle: Bee\ntags: [x]\n---\nBack to [[a]].',
  'folder/with space.md': '# Spaced\nÜmlauts and emoji 🎉 [[a]]',
  'folder/c.md': '# C\n![[a]]',
};

/** Example values of path parameters: one that exists, one that does not. */
const FOUND: Record<string, string> = { path: 'a.md', id: 'nope', provider: 'telegram', route: 'x' };
const MISSING: Record<string, string> = { path: 'missing.md', id: 'nope', provider: 'nope', route: 'nope' };
/** Example queries for the routes that need one to answer 200. */
const QUERY: Record<string, string> = { '/api/v1/search': '?q=see', '/api/v1/notes': '?limit=2&fields=path' };

/**
 * Routes asked only without a key and with bad input, never as a success, each for its reason:
 * their success changes what every later answer says, or never ends.
 */
const NOT_ASKED_OK = new Map<string, string>([
  ['post /api/v1/auth/pair-code/rotate', 'rotates the pairing code (the next answers differ)'],
  ['get /api/v1/events', 'an event stream: its answer never ends'],
]);

const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURI(values[name] ?? 'x'));

/**
 * Targets beyond the table's examples, for the note read's hot route: encoded paths, a `%` left
 * after decoding, dot segments, a query, keys it does not know, a browser Origin not allowed, a
 * request id that is not a sane one. Each is asked on every path like the table's.
 */
const EXTRA: [string, [string, string][], boolean][] = [
  ['/api/v1/notes/folder/with%20space.md', [], true],
  ['/api/v1/notes/folder%2Fwith%20space.md', [], true],
  ['/api/v1/notes/b.md', [['If-None-Match', '"x", W/"y"']], true],
  ['/api/v1/notes/folder/c.md', [['If-None-Match', '"nope"']], true],
  ['/api/v1/notes/a.md?x=1', [], true],
  ['/api/v1/notes/missing%25.md', [], true],
  ['/api/v1/notes/./a.md', [], true],
  ['/api/v1/notes/%2e/a.md', [], true],
  ['/api/v1/notes/a.md', [['Origin', 'https://evil.example']], true],
  ['/api/v1/notes/a.md', [['X-Service-Key', 'quire_sk_wrong']], false],
  ['/api/v1/health?x=1', [], false],
];

/** Every operation's example requests; `key` is filled in per path. */
function cases(): (Ask & { op: string; withKey: boolean })[] {
  const out: (Ask & { op: string; withKey: boolean })[] = [];
  for (const op of OPERATIONS) {
    const method = op.method.toUpperCase();
    const name = `${op.method} ${op.path}`;
    const found = fill(op.path, FOUND) + (QUERY[op.path] ?? '');
    const missing = fill(op.path, MISSING);
    const id: [string, string] = ['X-Request-Id', `c-${out.length}`];
    // 401 without a key (or the public route's own answer).
    out.push({ op: name, withKey: false, method, target: found, headers: [id] });
    if (method === 'GET') {
      if (!NOT_ASKED_OK.has(name)) {
        out.push({ op: name, withKey: true, method, target: found, headers: [id] });
        out.push({ op: name, withKey: true, method: 'HEAD', target: found, headers: [id] });
        out.push({ op: name, withKey: true, method, target: found, headers: [id, ['Origin', ORIGIN]] });
      }
      // 404 (or 400) for what does not exist.
      if (missing !== found) out.push({ op: name, withKey: true, method, target: missing, headers: [id] });
    } else if (!NOT_ASKED_OK.has(name) || op.body) {
      // Bad input on what does not exist: nothing changes, whatever the route checks first.
      out.push({
        op: name,
        withKey: true,
        method,
        target: missing,
        headers: [id, ['Content-Type', 'application/json']],
        body: '{"bad json',
      });
    }
  }
  for (const [target, headers, withKey] of EXTRA)
    out.push({
      op: 'extra',
      withKey,
      method: 'GET',
      target,
      headers: [['X-Request-Id', `e-${out.length}`], ...headers],
    });
  out.push({
    op: 'extra',
    withKey: true,
    method: 'GET',
    target: '/api/v1/notes/a.md',
    headers: [['X-Request-Id', 'bad id!']],
  });
  return out;
}

let tmp: Awaited<ReturnType<typeof tempDir>>;
let server: RunningServer;
let key: string;
let logs: string[];
let world: ReturnType<typeof e2eWorld>;
const relays: { fast: { base: string; relay: RunningRelay }; full: { base: string; relay: RunningRelay } } =
  {} as never;
const stops: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  tmp = await tempDir('quire-contract-');
  for (const [p, text] of Object.entries(NOTES)) {
    await mkdir(join(tmp.dir, 'vault', p, '..'), { recursive: true });
    await writeFile(join(tmp.dir, 'vault', p), text);
  }
  const captured = capturingLogger();
  logs = captured.lines;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: join(tmp.dir, 'data'),
    VAULT_DIR: join(tmp.dir, 'vault'),
    PAIRING_MODE: 'open-port',
    CORS_ORIGINS: ORIGIN,
    RATE_LIMIT_FAILURES: '100000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
    LOG_LEVEL: 'debug',
  });
  server = await startServer(config, { logger: captured.logger });
  await server.ready;
  key = ((await (await fetch(`${server.url}/api/v1/system/setup`)).json()) as any).data.apiKey;

  // Two relays, one with its dispatcher and one without, each with a tunnel to this server's app.
  world = e2eWorld();
  const who = await newIdentity();
  for (const fastLane of [true, false]) {
    const relay = await world.relay({
      redisUrl: null,
      hotRoutes: fastLane,
      limits: { proxyPerClient: 100_000 },
    });
    // The server's end of the tunnel as the server runs it (deploy/shared/relay-link.ts): its hot
    // routes first, on one side only; the other side's tunnel hands every request to the app.
    const connector = startTunnel(relay.url, who, fastLane ? server.hotFrame : undefined);
    stops.push(() => connector.stop(500));
    await until('the tunnel to be online', () => connector.status().state === 'online', 10_000);
    relays[fastLane ? 'fast' : 'full'] = { base: `${relay.url}/r/${who.serverId}`, relay };
  }
}, 90_000);

afterAll(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world?.cleanup();
  await server?.stop();
  await tmp?.cleanup();
});

const withKey = (ask: Ask & { withKey: boolean }): Ask =>
  ask.withKey ? { ...ask, headers: [...ask.headers, ['X-Service-Key', key]] } : ask;

/** Asks both paths, returns both comparable answers (the second path after the first). */
async function both(
  one: () => Promise<Answer>,
  two: () => Promise<Answer>,
  swap: [[string, string][], [string, string][]] = [[], []],
) {
  const a = await one();
  const b = await two();
  return { a: comparable(a, swap[0]), b: comparable(b, swap[1]), raw: a };
}

describe('the HTTP-answer contract: every route, every path, the same answer', () => {
  it('covers every operation of the OpenAPI table', () => {
    const asked = new Set(cases().map((c) => c.op));
    expect(OPERATIONS.filter((o) => !asked.has(`${o.method} ${o.path}`))).toEqual([]);
  });

  it('app.request and the Node dispatcher on a real socket', async () => {
    // Warm: keys verified and notes cached, so the hot routes answer what they can.
    for (const t of ['/api/v1/notes/a.md', '/api/v1/notes/b.md'])
      await rawAsk(server.url, withKey({ method: 'GET', target: t, headers: [], withKey: true }));
    const before = server.fastLaneAnswers();
    const all = cases();
    for (const c of all) {
      const ask = withKey(c);
      const got = await both(
        () => appAsk(server.app, server.url, ask),
        () => rawAsk(server.url, ask),
      );
      const label = `${ask.method} ${ask.target} ${JSON.stringify(ask.headers.slice(1, 2))}`;
      expect(got.b, label).toEqual(got.a);
      expect(got.b.lengthOk, `${label}: content-length`).toBe(true);
      // A 304 with If-None-Match for every answer that has an ETag.
      const etag = got.raw.headers.find(([k]) => k === 'etag')?.[1];
      if (etag && got.raw.status === 200 && ask.method === 'GET') {
        const again = { ...ask, headers: [...ask.headers, ['If-None-Match', etag] as [string, string]] };
        const revalidated = await both(
          () => appAsk(server.app, server.url, again),
          () => rawAsk(server.url, again),
        );
        expect(revalidated.b, `${label} If-None-Match`).toEqual(revalidated.a);
        expect(revalidated.a.status, `${label} If-None-Match`).toBe(304);
      }
    }
    // The hot routes did answer on the socket (health, cached notes and their 304s).
    expect(server.fastLaneAnswers() - before).toBeGreaterThanOrEqual(4);
  });

  it('the same request gives the same access-log line on both paths', async () => {
    const ask = withKey({
      method: 'GET',
      target: '/api/v1/notes/a.md',
      headers: [['X-Request-Id', 'log-1']],
      withKey: true,
    });
    await appAsk(server.app, server.url, ask);
    await rawAsk(server.url, ask);
    const lines = logs
      .filter((l) => l.includes('"msg":"request"') && l.includes('"requestId":"log-1"'))
      .map((l) => l.replace(/"ms":[\d.]+/, '"ms":0'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(lines[0]);
  });

  it("the relay's dispatcher and its Hono route, through a real tunnel with and without the hot routes", async () => {
    // Warm: keys verified and notes cached, so the tunnel's hot routes answer what they can.
    for (const t of ['/api/v1/notes/a.md', '/api/v1/notes/b.md'])
      await rawAsk(relays.fast.base, withKey({ method: 'GET', target: t, headers: [], withKey: true }));
    const before = relays.fast.relay.laneTaken();
    const hotBefore = server.fastLaneAnswers();
    const swap = (r: { relay: RunningRelay }): [string, string][] => [
      [r.relay.url, '<relay>'],
      [encodeURIComponent(r.relay.url), '<relay>'],
    ];
    for (const c of cases()) {
      const ask = withKey(c);
      const got = await both(
        () => rawAsk(relays.fast.base, ask),
        () => rawAsk(relays.full.base, ask),
        [swap(relays.fast), swap(relays.full)],
      );
      const label = `relay ${ask.method} ${ask.target} ${JSON.stringify(ask.headers.slice(1, 2))}`;
      expect(got.a, label).toEqual(got.b);
      expect(got.a.lengthOk, `${label}: content-length`).toBe(true);
    }
    // Every GET and HEAD went through the hot route on one relay, none on the other.
    expect(relays.fast.relay.laneTaken() - before).toBeGreaterThan(50);
    expect(relays.full.relay.laneTaken()).toBe(0);
    // The server's end answered from the tunnel frame (health, cached notes, their 304s and HEADs).
    expect(server.fastLaneAnswers() - hotBefore).toBeGreaterThanOrEqual(6);
  });

  it("the server's end of the tunnel answers from the frame as app.request does, header for header, byte for byte", async () => {
    const good = await tunnelVsApp(server.hotFrame);
    expect(good.mismatches).toEqual([]);
    // The hot routes answered from the frame (health, cached notes, 304s, HEADs), the rest the app.
    expect(good.hot).toBeGreaterThanOrEqual(6);
    // Can fail: a frame that drops a security header (a relay's own frame would fill it back in).
    const { 'X-Frame-Options': _dropped, ...fewer } = SECURE_HEADERS;
    const broken = await tunnelVsApp({
      ...server.hotFrame,
      base: (x) => ({ ...fewer, 'X-Request-Id': x.requestId() }),
    });
    expect(broken.mismatches.length).toBeGreaterThan(0);
  });

  it('can fail: a tunnel whose frame drops a header or a byte is caught', async () => {
    // (A dropped security header would not show: the relay's own frame fills those in.)
    const broken = [
      // The frame changes the request id the client sent.
      {
        ...server.hotFrame,
        base: (x: HotExchange) => ({ ...SECURE_HEADERS, 'X-Request-Id': `${x.requestId()}-x` }),
      },
      // A hot route whose health body lost its last byte.
      {
        ...server.hotFrame,
        routes: server.hotFrame.routes.map((route) => async (req: Parameters<typeof route>[0]) => {
          const a = await route(req);
          return a?.body ? { ...a, body: a.body.subarray(0, -1) } : a;
        }),
      },
    ];
    for (const hot of broken) {
      const relay = await world.relay({
        redisUrl: null,
        hotRoutes: true,
        limits: { proxyPerClient: 100_000 },
      });
      const who = await newIdentity();
      const connector = startTunnel(relay.url, who, hot);
      try {
        await until('the tunnel to be online', () => connector.status().state === 'online', 10_000);
        const ask: Ask = { method: 'GET', target: '/api/v1/health', headers: [['X-Request-Id', 'f-2']] };
        const swap = (r: RunningRelay): [string, string][] => [[r.url, '<relay>']];
        const got = await both(
          () => rawAsk(`${relay.url}/r/${who.serverId}`, ask),
          () => rawAsk(relays.full.base, ask),
          [swap(relay), swap(relays.full.relay)],
        );
        expect(got.a).not.toEqual(got.b);
      } finally {
        await connector.stop(500);
      }
    }
  });

  it('can fail: a dispatcher that drops a header is caught', async () => {
    // The same app and hot routes behind a dispatcher whose frame forgets one security header.
    const { 'X-Frame-Options': _dropped, ...fewer } = SECURE_HEADERS;
    const broken: Server = createServer(
      hotDispatcher(
        getRequestListener((r) => server.app.fetch(r)),
        {
          routes: hotRoutesOf(server.app),
          logger: silentLogger,
          where: 'server',
          base: (x) => ({ ...fewer, 'X-Request-Id': x.requestId() }),
          trustProxy: false,
          draining: () => false,
        },
      ),
    );
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
      const ask: Ask = { method: 'GET', target: '/api/v1/health', headers: [['X-Request-Id', 'f-1']] };
      const got = await both(
        () => appAsk(server.app, url, ask),
        () => rawAsk(url, ask),
      );
      expect(got.b).not.toEqual(got.a);
      expect(got.a.headers).toContain('x-frame-options: DENY');
      expect(got.b.headers).not.toContain('x-frame-options: DENY');
    } finally {
      await new Promise((r) => broken.close(r));
    }
  });
});

/** The server's tunnel to `relayUrl` (a relay or a bare frame peer), started; `hot`: its hot routes. */
function startTunnel(
  relayUrl: string,
  who: Awaited<ReturnType<typeof newIdentity>>,
  hot: typeof server.hotFrame | undefined,
) {
  const connector = tunnelConnector({
    relayUrl,
    serverId: who.serverId,
    identity: who.identity,
    handle: (req) => Promise.resolve(server.app.fetch(req, { relayed: true })),
    hot,
    redeemPairCode: pairing().redeemPairCode,
    logger: silentLogger,
    backoff: { minMs: 20, maxMs: 200 },
  });
  connector.start();
  return connector;
}

/**
 * Every GET and HEAD of the suite sent down a tunnel by a bare frame peer (tests/relay/frame-peer.ts,
 * no relay to transform the answer) to a connector with the hot frame `hot`, each compared with
 * `app.request` of the same request as the app sees a relayed one (`relayed: true`, the relay's
 * forwarding headers): status, headers, bytes and the access-log line. Returns the mismatches and
 * how many the hot routes answered.
 */
async function tunnelVsApp(hot: typeof server.hotFrame) {
  const peer = await framePeer();
  const who = await newIdentity();
  const connector = startTunnel(peer.url, who, hot);
  const mismatches: string[] = [];
  const before = server.fastLaneAnswers();
  try {
    await until('the tunnel to be online', () => connector.status().state === 'online', 10_000);
    const forwarded: [string, string][] = [
      ['x-forwarded-for', '203.0.113.9'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-host', 'relay.example'],
      ['x-forwarded-prefix', `/r/${who.serverId}`],
    ];
    for (const c of cases()) {
      if (c.method !== 'GET' && c.method !== 'HEAD') continue;
      const ask = withKey(c);
      const headers = [...ask.headers.map(([k, v]): [string, string] => [k.toLowerCase(), v]), ...forwarded];
      const mark = logs.length;
      const t = await peer.ask(ask.method, ask.target, headers);
      const res = await server.app.request(
        `${peer.url}${ask.target}`,
        { method: ask.method, headers },
        { relayed: true },
      );
      const appHeaders: [string, string][] = [];
      res.headers.forEach((v, k) => {
        appHeaders.push([k, v]);
      });
      const viaTunnel = comparable({ status: t.status, headers: t.headers, body: Buffer.from(t.body) });
      const viaApp = comparable({
        status: res.status,
        headers: appHeaders,
        body: Buffer.from(await res.arrayBuffer()),
      });
      if (JSON.stringify(viaTunnel) !== JSON.stringify(viaApp))
        mismatches.push(
          `${ask.method} ${ask.target}: ${JSON.stringify(viaTunnel)} != ${JSON.stringify(viaApp)}`,
        );
      // The same access-log line on both paths (its ms and a fresh request id aside).
      const lines = logs
        .slice(mark)
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) =>
          l.replace(/"ms":[\d.]+/, '"ms":0').replace(/"requestId":"[0-9a-f-]{36}"/, '"requestId":"<uuid>"'),
        );
      if (lines.length !== 2 || lines[0] !== lines[1])
        mismatches.push(`log of ${ask.method} ${ask.target}: ${lines.join(' | ')}`);
    }
  } finally {
    await connector.stop(500);
    await peer.close();
  }
  return { mismatches, hot: server.fastLaneAnswers() - before };
}

describe('the note read hot route', () => {
  it('feels a revoke at once, and serves a note changed on disk fresh', async () => {
    const minted = (await (
      await fetch(`${server.url}/api/v1/auth/keys`, {
        method: 'POST',
        headers: { 'x-service-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'laptop' }),
      })
    ).json()) as any;
    const other = minted.data.apiKey as string;
    const get = (k: string) => fetch(`${server.url}/api/v1/notes/a.md`, { headers: { 'x-service-key': k } });
    for (let i = 0; i < 3; i++) expect((await get(other)).status).toBe(200);
    const before = server.fastLaneAnswers();
    expect((await get(other)).status).toBe(200);
    expect(server.fastLaneAnswers()).toBe(before + 1);
    const del = await fetch(`${server.url}/api/v1/auth/keys/${minted.data.id}`, {
      method: 'DELETE',
      headers: { 'x-service-key': key },
    });
    expect(del.status).toBe(200);
    const after = await get(other);
    expect(after.status).toBe(401);
    expect(((await after.json()) as any).error.code).toBe('INVALID_API_KEY');

    const put = await fetch(`${server.url}/api/v1/notes/a.md`, {
      method: 'PUT',
      headers: { 'x-service-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ content: '# A, changed\n' }),
    });
    expect(put.status).toBe(200);
    const fresh = (await (await get(key)).json()) as any;
    expect(fresh.data.content).toBe('# A, changed\n');
  });
});
