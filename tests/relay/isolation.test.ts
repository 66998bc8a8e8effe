import { afterEach, describe, expect, it } from 'vitest';
import { relayConnector } from '../../relay/connector/connector.ts';
import { WIRE_LIMITS } from '../../relay/protocol/limits.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld } from './e2e-harness.ts';
import { newIdentity, smallApp } from './fixtures.ts';
import { relayHarness } from './harness.ts';

let world: ReturnType<typeof e2eWorld> | null = null;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world?.cleanup();
  world = null;
});

describe('bad requests fail alone (real sockets, Redis)', () => {
  it('a request with 300 headers gets 431 at the door while 50 concurrent normal ones all succeed', async () => {
    world = e2eWorld();
    const relay = await world.relay();
    const srv = await world.server(relay.url);
    await srv.online();
    const base = `${relay.url}/r/${srv.serverId}/api/v1`;
    const many: Record<string, string> = {};
    for (let i = 0; i < 300; i++) many[`x-h-${i}`] = 'v';
    const [bad, ...good] = await Promise.all([
      call(`${base}/n/999`, { headers: many }),
      ...Array.from({ length: 50 }, (_, i) => call(`${base}/n/${i}`, { headers: { 'x-service-key': 'k' } })),
    ]);
    expect(bad.status).toBe(431);
    expect(bad.json.error.code).toBe('HEADERS_TOO_LARGE');
    expect(good.map((g) => g.status)).toEqual(Array(50).fill(200));
    expect(good.map((g) => g.json.n)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Refused at the door: the server never saw it.
    expect(srv.app.calls.get('/api/v1/n/999')).toBeUndefined();
  }, 30_000);

  it('answers 414 to an over-long URL and 431 to an over-long header value before queueing', async () => {
    const h = relayHarness();
    stops.push(h.close);
    const long = `/r/srv-any/api/v1/n/${'a'.repeat(WIRE_LIMITS.maxUrlBytes)}`;
    const r414 = await h.call('GET', long);
    expect([r414.status, r414.json.error.code]).toEqual([414, 'URI_TOO_LONG']);
    const r431 = await h.call('GET', '/r/srv-any/api/v1/n/1', undefined, {
      'x-big': 'b'.repeat(WIRE_LIMITS.maxHeaderValueBytes + 1),
    });
    expect([r431.status, r431.json.error.code]).toEqual([431, 'HEADERS_TOO_LARGE']);
    expect(h.enqueued()).toBe(0);
  });

  it('/r/* trips its rate limits with 429 and Retry-After, per client address and per serverId', async () => {
    const h = relayHarness({ limits: { proxyPerClient: 3, proxyPerServer: 5, proxyWindowMs: 60_000 } });
    stops.push(h.close);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.call('GET', '/r/srv-a/api/v1/n/1')).status);
    expect(statuses).toEqual([503, 503, 503]); // not connected, but past the limit's check
    const limited = await h.call('GET', '/r/srv-a/api/v1/n/1');
    expect([limited.status, limited.json.error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address passes: refusals by the relay (503, not connected) cost the server nothing
    // (a server is charged only for what it answered; door-limits.test.ts trips its 429).
    const other = { 'x-test-client': '198.51.100.7' };
    for (let i = 0; i < 3; i++)
      expect((await h.call('GET', '/r/srv-a/api/v1/n/1', undefined, other)).status).toBe(503);
    const third = { 'x-test-client': '192.0.2.9' };
    expect((await h.call('GET', '/r/srv-b/api/v1/n/1', undefined, third)).status).toBe(503);
  });

  it('an item the server cannot decode fails alone with its own 400; the rest of its batch is answered', async () => {
    const h = relayHarness({ limits: { pullWaitMs: 200 } });
    stops.push(h.close);
    const app = smallApp();
    const who = await newIdentity();
    const serverId = who.serverId;
    await h.queue.markOnline(serverId, 60_000);
    const deadline = Date.now() + 10_000;
    const bad = {
      requestId: 'bad-item-0001',
      deadline,
      payload: JSON.stringify({
        kind: 'http',
        requestId: 'bad-item-0001',
        method: 7,
        path: 'nope',
        deadline,
      }),
    };
    const good = (i: number) => ({
      requestId: `good-item-000${i}`,
      deadline,
      payload: JSON.stringify({
        kind: 'http',
        requestId: `good-item-000${i}`,
        method: 'GET',
        path: `/api/v1/n/${i}`,
        headers: [],
        body: null,
        deadline,
      }),
    });
    // The bad item sits in the middle of one batch.
    await h.queue.enqueue(serverId, good(1), 100);
    await h.queue.enqueue(serverId, bad, 100);
    await h.queue.enqueue(serverId, good(2), 100);
    const answers = Promise.all(
      ['good-item-0001', 'bad-item-0001', 'good-item-0002'].map((id) =>
        h.queue.awaitAnswer(serverId, id, 5_000),
      ),
    );
    const connector = relayConnector({
      relayUrl: 'https://relay.test',
      serverId,
      identity: who.identity,
      handle: app.handle,
      redeemPairCode: async () => null,
      logger: silentLogger,
      fetch: h.fetch,
    });
    stops.push(() => connector.stop(100));
    connector.start();
    const [a1, b, a2] = (await answers).map((t) => (t ? JSON.parse(t) : null));
    expect(a1).toMatchObject({ kind: 'http', status: 200 });
    expect(a2).toMatchObject({ kind: 'http', status: 200 });
    expect(b).toMatchObject({ kind: 'http', requestId: 'bad-item-0001', status: 400 });
    await until(
      'both good ones ran',
      () => app.calls.get('/api/v1/n/1') === 1 && app.calls.get('/api/v1/n/2') === 1,
    );
  });
});
