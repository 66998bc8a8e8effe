import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld, postJson } from './e2e-harness.ts';
import { pairing, smallApp, startTunnel } from './fixtures.ts';

let world: ReturnType<typeof e2eWorld>;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world.cleanup();
});

/** A tunnel connector for a fresh identity serving `smallApp` (or `handle`). */
async function tunnelServer(relayUrl: string, over: Parameters<typeof startTunnel>[4] = {}) {
  const app = smallApp();
  const pair = pairing();
  const started = await startTunnel(relayUrl, app, stops, 500, {
    redeemPairCode: pair.redeemPairCode,
    pairCodeHash: pair.pairCodeHash,
    heartbeatMs: 5_000,
    ...over,
  });
  return { app, pair, ...started };
}

describe('the tunnel (WebSocket, binary frames; real sockets and Redis)', () => {
  it('carries requests both ways with raw bytes, many at once, and pairs a client', async () => {
    world = e2eWorld();
    const relay = await world.relay({ redisUrl: null });
    const srv = await tunnelServer(relay.url);
    await srv.online();
    const base = `${relay.url}/r/${srv.serverId}/api/v1`;
    const many = await Promise.all(Array.from({ length: 30 }, (_, n) => call(`${base}/n/${n}`)));
    expect(many.map((r) => r.json.n)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    const upload = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 31 + 7) % 256);
    const echoed = await call(`${base}/echo/bin?q=1`, { method: 'PUT', body: upload });
    expect(echoed.headers.get('x-method')).toBe('PUT');
    expect(echoed.headers.get('x-path')).toBe('/api/v1/echo/bin?q=1');
    expect(echoed.bytes).toEqual(upload);
    // A body that fits in one frame travels inline with its head, both ways; the bytes are the same.
    const small = Uint8Array.from({ length: 5_000 }, (_, i) => (i * 17 + 3) % 256);
    const smallEcho = await call(`${base}/echo/bin?q=2`, { method: 'POST', body: small });
    expect([smallEcho.status, smallEcho.headers.get('x-method')]).toEqual([200, 'POST']);
    expect(smallEcho.bytes).toEqual(small);
    const cookies = await call(`${base}/cookies`);
    expect([cookies.status, cookies.json]).toEqual([200, { ok: true }]);
    // Overriding decisions.md section 5 here: no Set-Cookie crosses the relay (one server's
    // cookie would be every server's on the shared origin; docs/reference/relay.md, "One origin, many servers").
    expect(cookies.headers.getSetCookie()).toHaveLength(0);
    const exchanged = await postJson(`${relay.url}/api/v1/pair/exchange`, { code: srv.pair.code() });
    expect(exchanged.status).toBe(200);
    expect(srv.pair.keys.has(exchanged.json.data.apiKey)).toBe(true);
    expect((await call(`${base}/boom`)).status).toBe(500);
  }, 60_000);

  it('a request entering relay A reaches the tunnel held by relay B through Redis, once', async () => {
    world = e2eWorld();
    const a = await world.relay();
    const b = await world.relay();
    const srv = await tunnelServer(b.url);
    await srv.online();
    const many = await Promise.all(
      Array.from({ length: 30 }, (_, n) => call(`${a.url}/r/${srv.serverId}/api/v1/n/${n}`)),
    );
    expect(many.map((r) => r.json?.n)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    for (let n = 0; n < 30; n++) expect(srv.app.calls.get(`/api/v1/n/${n}`)).toBe(1);
    const upload = Uint8Array.from({ length: 100_000 }, (_, i) => i % 251);
    expect(
      (await call(`${a.url}/r/${srv.serverId}/api/v1/echo/x`, { method: 'POST', body: upload })).bytes,
    ).toEqual(upload);
  });

  it('survives a relay restart (the relay stops and starts again on its port), resuming by itself; in flight at the stop: answered or 504, never run twice (a network cut on a live socket: tunnel-cut.test.ts)', async () => {
    world = e2eWorld();
    let relay = await world.relay({ redisUrl: null, limits: { answerTimeoutMs: 3_000 } });
    const srv = await tunnelServer(relay.url);
    await srv.online();
    // A slow request in flight when the relay goes away.
    const inFlight = call(`${relay.url}/r/${srv.serverId}/api/v1/slow?ms=400`);
    await until('the slow request to reach the server', () => srv.app.calls.get('/api/v1/slow') === 1);
    const port = relay.port;
    await relay.stop();
    const cut = await inFlight.catch(() => ({ status: 0 }));
    expect([200, 503, 504, 0]).toContain(cut.status);
    relay = await world.relay({ redisUrl: null, port, limits: { answerTimeoutMs: 3_000 } });
    await until(
      'the tunnel to come back',
      async () => (await call(`${relay.url}/r/${srv.serverId}/api/v1/n/1`)).status === 200,
      10_000,
    );
    expect(srv.app.calls.get('/api/v1/slow')).toBe(1);
    expect(srv.connector.status().reconnects).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
