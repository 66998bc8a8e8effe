import { afterEach, describe, expect, it } from 'vitest';
import { type RelayConnectorOptions, relayConnector } from '../../../relay/connector/connector.ts';
import type { RelayLimits } from '../../../relay/service/types.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';
import { newIdentity, pairing, smallApp } from '../fixtures.ts';
import { PUBLIC, relayHarness } from '../harness.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A relay harness plus a started connector serving `smallApp` with real pairing. */
async function setup(
  opts: { limits?: Partial<RelayLimits>; connector?: Partial<RelayConnectorOptions> } = {},
) {
  const h = relayHarness({ limits: { pullWaitMs: 300, ...opts.limits } });
  const server = smallApp();
  const pair = pairing();
  const { identity, serverId } = await newIdentity();
  const connector = relayConnector({
    relayUrl: PUBLIC,
    serverId,
    identity,
    handle: server.handle,
    redeemPairCode: pair.redeemPairCode,
    pairCodeHash: pair.pairCodeHash,
    logger: silentLogger,
    fetch: h.fetch,
    backoff: { minMs: 10, maxMs: 100 },
    ...opts.connector,
  });
  cleanups.push(
    () => h.close(),
    () => connector.stop(),
  );
  connector.start();
  const online = () => until('the connector to be online', () => connector.status().state === 'online');
  return { h, server, pair, serverId, connector, online };
}

describe('relay connector (in-process relay)', () => {
  it('registers, serves requests concurrently, and reports its status', async () => {
    const { h, serverId, connector, online } = await setup();
    await online();
    expect(connector.status()).toMatchObject({
      state: 'online',
      serverId,
      publicUrl: `${PUBLIC}/r/${serverId}`,
    });
    expect(JSON.stringify(connector.status())).not.toMatch(/secret/i);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, n) => h.call('GET', `/r/${serverId}/api/v1/n/${n}`)),
    );
    expect(results.map((r) => r.json.n)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(connector.status().handled).toBe(30);
  });

  it('keeps path, query, cookies, binary bodies and the forwarded prefix intact', async () => {
    const { h, serverId, online } = await setup();
    await online();
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
    const echo = await h.call('PUT', `/r/${serverId}/api/v1/echo/a%2Fb.md?q=%C3%A9&x`, bytes, {
      'x-extra': '1',
    });
    expect(echo.status).toBe(200);
    expect(echo.bytes).toEqual(bytes);
    expect(echo.headers.get('x-method')).toBe('PUT');
    expect(echo.headers.get('x-path')).toBe('/api/v1/echo/a%2Fb.md?q=%C3%A9&x');
    expect(echo.headers.get('x-forwarded-prefix-seen')).toBe(`/r/${serverId}`);
    expect(echo.headers.get('x-seen-headers')).toContain('x-extra');
    const cookies = await h.call('GET', `/r/${serverId}/api/v1/cookies`);
    // Overriding decisions.md section 5 here: no Set-Cookie crosses the relay (one server's
    // cookie would be every server's on the shared origin; docs/reference/relay.md, "One origin, many servers").
    expect(cookies.headers.getSetCookie()).toEqual([]);
    expect(cookies.headers.get('x-secret-hop')).toBeNull();
    const bin = await h.call('GET', `/r/${serverId}/api/v1/binary`);
    expect(bin.bytes).toEqual(Uint8Array.from({ length: 256 }, (_, i) => i));
    const head = await h.call('HEAD', `/r/${serverId}/api/v1/binary`);
    expect([head.status, head.bytes.length]).toEqual([200, 0]);
  });

  it('answers a throwing handler with 500 in the envelope', async () => {
    const { h, serverId, online } = await setup();
    await online();
    const res = await h.call('GET', `/r/${serverId}/api/v1/boom`);
    expect([res.status, res.json.error.code]).toEqual([500, 'INTERNAL_ERROR']);
  });

  it('pairs through the queue: the key works, the code is spent, an aged code fails', async () => {
    const { h, serverId, pair, connector, online } = await setup();
    await online();
    const code = pair.code();
    const ok = await h.post('/api/v1/pair/exchange', { code });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.json.data).toEqual({
      serverId,
      serverUrl: `${PUBLIC}/r/${serverId}`,
      apiKey: expect.stringMatching(/^quire_sk_/),
    });
    expect(pair.keys.has(ok.json.data.apiKey)).toBe(true);
    const again = await h.post('/api/v1/pair/exchange', { code });
    expect([again.status, again.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
    // The server rotated its code; the connector hands the new hash to the relay.
    await connector.syncPairCode();
    const next = await h.post('/api/v1/pair/exchange', { code: pair.code() });
    expect(next.status).toBe(200);
    await connector.syncPairCode();
    pair.age();
    const aged = await h.post('/api/v1/pair/exchange', { code: pair.code() });
    expect([aged.status, aged.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('forgets a code hash at the relay after its TTL', async () => {
    const { h, pair, online } = await setup({ limits: { pairCodeTtlMs: 80 } });
    await online();
    const code = pair.code();
    await until(
      'the code hash to lapse',
      async () => (await h.queue.findPairCode(await pair.pairCodeHash())) === null,
    );
    expect((await h.post('/api/v1/pair/exchange', { code })).status).toBe(401);
  });

  it('rate limits failed exchanges per client address and per serverId, with Retry-After', async () => {
    const { h, pair, online } = await setup({
      limits: { pairFailuresPerClient: 3, pairFailuresPerServer: 2 },
    });
    await online();
    for (let i = 0; i < 3; i++)
      expect((await h.post('/api/v1/pair/exchange', { code: `wrong-${i}` })).status).toBe(401);
    const limited = await h.post('/api/v1/pair/exchange', { code: pair.code() });
    expect([limited.status, limited.json.error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Per server: a right hash with a code the server refuses (aged), from fresh addresses each time.
    pair.age();
    const from = (ip: string) =>
      h.post('/api/v1/pair/exchange', { code: pair.code() }, { 'x-test-client': ip });
    expect((await from('198.51.100.1')).status).toBe(401);
    expect((await from('198.51.100.2')).status).toBe(401);
    const serverLimited = await from('198.51.100.3');
    expect([serverLimited.status, serverLimited.json.error.code]).toEqual([429, 'RATE_LIMITED']);
  });

  it('is refused for a serverId another key names, and leaves the owner alone', async () => {
    const { h, serverId, online } = await setup();
    await online();
    const intruder = relayConnector({
      relayUrl: PUBLIC,
      serverId,
      identity: (await newIdentity()).identity,
      handle: async () => new Response('intruder'),
      redeemPairCode: async () => ({ apiKey: 'stolen' }),
      logger: silentLogger,
      fetch: h.fetch,
      backoff: { minMs: 10, maxMs: 50 },
    });
    cleanups.push(() => intruder.stop());
    intruder.start();
    await until('the intruder to be refused', () => intruder.status().state === 'refused');
    expect(intruder.status().lastError).toMatch(/403/);
    expect((await h.call('GET', `/r/${serverId}/api/v1/n/5`)).json.n).toBe(5);
  });

  it('gives up a handler still running at the deadline, freeing its slot and aborting its request', async () => {
    let sawAbort = false;
    const hang = async (req: Request) => {
      req.signal.addEventListener('abort', () => {
        sawAbort = true;
      });
      return new Promise<Response>(() => {});
    };
    const { h, serverId, connector, online } = await setup({
      limits: { answerTimeoutMs: 600 },
      connector: { handle: hang },
    });
    await online();
    const res = await h.call('GET', `/r/${serverId}/api/v1/hang`);
    expect([res.status, res.json.error.code]).toEqual([504, 'RELAY_TIMEOUT']);
    await until('the slot to be freed', () => connector.status().inFlight === 0);
    expect(sawAbort).toBe(true);
  });

  it('stop() finishes what is in flight, then the relay reports the server offline', async () => {
    const { h, serverId, connector, online } = await setup();
    await online();
    const slow = h.call('GET', `/r/${serverId}/api/v1/slow?ms=150`);
    await until('the slow request to be in flight', () => connector.status().inFlight > 0);
    await connector.stop();
    expect((await slow).json).toEqual({ slow: true });
    expect(connector.status().state).toBe('stopped');
    const after = await h.call('GET', `/r/${serverId}/api/v1/n/1`);
    expect([after.status, after.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
  });

  it('stop() tells the relay first: while in-flight work finishes, new requests get 503 at once', async () => {
    const { h, serverId, connector, online } = await setup({
      limits: { answerTimeoutMs: 20_000, pullWaitMs: 5_000 },
    });
    await online();
    const slow = h.call('GET', `/r/${serverId}/api/v1/slow?ms=600`);
    await until('the slow request to be in flight', () => connector.status().inFlight > 0);
    const stopping = connector.stop();
    await until('the relay to know', async () => (await h.call('GET', `/r/${serverId}/x`)).status === 503);
    const started = Date.now();
    const refused = await h.call('GET', `/r/${serverId}/api/v1/n/2`);
    expect([refused.status, refused.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await slow).json).toEqual({ slow: true });
    await stopping;
    expect(connector.status().state).toBe('stopped');
  });
});
