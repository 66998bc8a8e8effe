import { afterEach, describe, expect, it } from 'vitest';
import { runTs } from '../helpers/child.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld, postJson } from './e2e-harness.ts';
import { newIdentity, noteServer, pairing, registerBody } from './fixtures.ts';
import { REDIS_URL, redisClient, TEST_QUEUE_KEY } from './helpers.ts';

let world: ReturnType<typeof e2eWorld>;
afterEach(async () => {
  await world.cleanup();
});
const fresh = () => {
  world = e2eWorld();
  return world;
};

describe('relay end to end (sockets, Redis)', () => {
  it('pairs a client, whose key then creates, reads, lists and deletes a note through /r/:serverId', async () => {
    const w = fresh();
    const relay = await w.relay({ publicBaseUrl: 'https://relay.example.test' });
    const pair = pairing();
    const srv = await w.server(relay.url, {
      handle: await noteServer(pair.keys),
      redeemPairCode: pair.redeemPairCode,
      pairCodeHash: pair.pairCodeHash,
    });
    await srv.online();
    const code = pair.code();
    const exchanged = await postJson(`${relay.url}/api/v1/pair/exchange`, { code });
    expect(exchanged.status).toBe(200);
    const { serverId, serverUrl, apiKey } = exchanged.json.data;
    expect([serverId, serverUrl]).toEqual([srv.serverId, `https://relay.example.test/r/${srv.serverId}`]);
    expect((await postJson(`${relay.url}/api/v1/pair/exchange`, { code })).status).toBe(401);

    const api = `${relay.url}/r/${serverId}/api/v1`;
    const key = { 'x-service-key': apiKey };
    expect((await call(`${api}/notes`)).status).toBe(401);
    const created = await postJson(
      `${api}/notes`,
      { path: 'inbox/hello.md', content: '# Hello\nthrough the relay' },
      key,
    );
    expect(created.status).toBe(201);
    const read = await call(`${api}/notes/inbox%2Fhello.md`, { headers: key });
    expect(read.json.data).toMatchObject({ path: 'inbox/hello.md', title: 'Hello' });
    const list = await call(`${api}/notes`, { headers: key });
    expect(list.json.data.map((n: { path: string }) => n.path)).toEqual(['inbox/hello.md']);
    const del = await call(`${api}/notes/inbox%2Fhello.md`, { method: 'DELETE', headers: key });
    expect(del.json.data.deleted).toBe('inbox/hello.md');
    expect((await call(`${api}/notes/inbox%2Fhello.md`, { headers: key })).json.error.code).toBe(
      'NOTE_NOT_FOUND',
    );
  });

  it('serves one client across relay processes: in through A, pulled through B (a child process), answered through C', async () => {
    const w = fresh();
    const [a, c] = [await w.relay(), await w.relay()];
    const child = runTs('deploy/relay/main.ts', {
      RELAY_HOST: '127.0.0.1',
      RELAY_PORT: '0',
      REDIS_URL,
      RELAY_REDIS_PREFIX: w.prefix,
      RELAY_QUEUE_KEY: TEST_QUEUE_KEY,
      RELAY_PULL_WAIT_MS: '1000',
      RELAY_SHUTDOWN_GRACE_MS: '200',
    });
    w.defer(child.kill);
    const b = (await child.waitForLog((l) => l.msg === 'relay listening')).url as string;
    const health = await call(`${b}/api/v1/health`);
    expect(health.json.data.queue).toEqual({ backend: 'redis', reachable: true });
    const seen = { b: 0, c: 0 };
    const srv = await w.server(b, {
      // Register and pull through B, respond through C.
      fetch: (url, init) => {
        const viaC = url.endsWith('/api/v1/relay/respond');
        seen[viaC ? 'c' : 'b'] += 1;
        return fetch(viaC ? url.replace(b, c.url) : url, init);
      },
    });
    await srv.online();
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => call(`${a.url}/r/${srv.serverId}/api/v1/n/${n}`)),
    );
    expect(results.map((r) => r.json.n)).toEqual([1, 2, 3, 4, 5]);
    expect(seen.b).toBeGreaterThan(0);
    expect(seen.c).toBeGreaterThan(0);
    child.child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });

  it('gives 504 within the time-out and never runs the request late', async () => {
    const w = fresh();
    const relay = await w.relay({ limits: { answerTimeoutMs: 500 } });
    const who = await newIdentity();
    const { serverId } = who;
    await postJson(`${relay.url}/api/v1/relay/register`, await registerBody(who));
    const started = Date.now();
    const unanswered = await call(`${relay.url}/r/${serverId}/api/v1/n/1`, { method: 'DELETE' });
    expect([unanswered.status, unanswered.json.error.code]).toEqual([504, 'RELAY_TIMEOUT']);
    expect(Date.now() - started).toBeLessThan(2_000);
    // The server now comes online: the timed-out request must not reach it.
    const srv = await w.server(relay.url, { serverId, identity: who.identity });
    await srv.online();
    expect((await call(`${relay.url}/r/${serverId}/api/v1/n/2`)).json.n).toBe(2);
    const slow = await call(`${relay.url}/r/${serverId}/api/v1/slow?ms=900`);
    expect(slow.status).toBe(504);
    expect(srv.app.calls.get('/api/v1/n/1')).toBeUndefined();
    expect(srv.app.calls.get('/api/v1/n/2')).toBe(1);
  });

  it('is 503 for an unknown or stopped server and 413 for an oversized body', async () => {
    const w = fresh();
    const relay = await w.relay({ limits: { maxBodyBytes: 1024 } });
    expect((await call(`${relay.url}/r/srv-nobody/api/v1/n/1`)).json.error.code).toBe('SERVER_OFFLINE');
    const srv = await w.server(relay.url);
    await srv.online();
    const big = await call(`${relay.url}/r/${srv.serverId}/api/v1/echo/x`, {
      method: 'POST',
      body: new Uint8Array(4096),
    });
    expect([big.status, big.json.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const small = await call(`${relay.url}/r/${srv.serverId}/api/v1/echo/x`, {
      method: 'POST',
      body: new Uint8Array(512),
    });
    expect([small.status, small.bytes.length]).toEqual([200, 512]);
    await srv.connector.stop();
    const gone = await call(`${relay.url}/r/${srv.serverId}/api/v1/n/1`);
    expect([gone.status, gone.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
  });

  it('with RELAY_QUEUE_KEY, keeps no client key readable in Redis while requests wait', async () => {
    const w = fresh();
    const relay = await w.relay({ queueKey: 'k'.repeat(40), limits: { answerTimeoutMs: 5_000 } });
    const who = await newIdentity();
    const { serverId } = who;
    const body = await registerBody(who);
    const { secret } = body;
    await postJson(`${relay.url}/api/v1/relay/register`, body);
    const key = 'quire_sk_MUST-NOT-BE-IN-REDIS';
    const waiting = call(`${relay.url}/r/${serverId}/api/v1/n/1`, { headers: { 'x-service-key': key } });
    const admin = await redisClient();
    w.defer(async () => {
      await admin.quit();
    });
    const stored = await until('the request to be queued', async () => {
      const keys = await admin.keys(`${w.prefix}*req:*`);
      return keys.length ? admin.get(keys[0]!) : null;
    });
    expect(stored).not.toContain('MUST-NOT-BE-IN-REDIS');
    expect(stored).not.toContain('x-service-key');
    const pulled = await postJson(`${relay.url}/api/v1/relay/pull`, { serverId, secret, waitMs: 0 });
    const [item] = pulled.json.data.items;
    expect(item.headers).toContainEqual(['x-service-key', key]);
    const answer = {
      kind: 'http',
      requestId: item.requestId,
      status: 200,
      headers: [],
      body: btoa('sealed'),
    };
    await postJson(`${relay.url}/api/v1/relay/respond`, { serverId, secret, responses: [answer] });
    expect(new TextDecoder().decode((await waiting).bytes)).toBe('sealed');
  });

  it('gives 50 concurrent clients each their own answer, with cookies and bytes intact', async () => {
    const w = fresh();
    const relay = await w.relay();
    const srv = await w.server(relay.url);
    await srv.online();
    const base = `${relay.url}/r/${srv.serverId}/api/v1`;
    const many = await Promise.all(Array.from({ length: 50 }, (_, n) => call(`${base}/n/${n}`)));
    expect(many.map((r) => r.json.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    const cookies = await call(`${base}/cookies`);
    // Overriding decisions.md section 5 here: no Set-Cookie crosses the relay (one server's
    // cookie would be every server's on the shared origin; docs/reference/relay.md, "One origin, many servers").
    expect(cookies.headers.getSetCookie()).toEqual([]);
    expect((await call(`${base}/binary`)).bytes).toEqual(Uint8Array.from({ length: 256 }, (_, i) => i));
    const upload = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 31 + 7) % 256);
    const echoed = await call(`${base}/echo/bin`, { method: 'POST', body: upload });
    expect(echoed.bytes).toEqual(upload);
    await until('every answer to be sent', () => srv.connector.status().inFlight === 0);
  });
});
