import { afterEach, describe, expect, it } from 'vitest';
import type { RelayOverrides } from '../helpers/relay-config.ts';
import { e2eWorld } from '../relay/e2e-harness.ts';
import { onlineTunnel, smallApp } from '../relay/fixtures.ts';
import { type Ask, comparable, rawAsk } from './answer-contract.ts';

/**
 * The HTTP-answer contract (answer-contract.ts) for what the relay's hot route
 * (relay/http/routes/proxy.ts `proxyHot`, on the Node dispatcher) meets beyond the API's routes
 * (answer-contract.test.ts asks those): odd headers, cookies, bytes, a failing server, targets
 * the dispatcher leaves to the app, wire limits, rate limits and time-outs. Two relays, one with
 * the dispatcher and one without, each with a tunnel to the same small app.
 */
let world: ReturnType<typeof e2eWorld>;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world.cleanup();
});

const ask = (method: string, target: string, headers: [string, string][] = []): Ask => ({
  method,
  target,
  headers,
});

async function pair(config: RelayOverrides) {
  const sides = [];
  for (const fastLane of [true, false]) {
    const relay = await world.relay({ redisUrl: null, ...config, hotRoutes: fastLane });
    const app = smallApp();
    const who = await onlineTunnel(relay.url, app, stops, 500);
    sides.push({ base: `${relay.url}/r/${who.serverId}`, serverId: who.serverId, app, relay });
  }
  const [lane, route] = sides as [(typeof sides)[0], (typeof sides)[0]];
  /** Asks both relays the same request and returns the lane's answer after checking they match. */
  return async (method: string, rest: string, headers: [string, string][] = []) => {
    const a = await rawAsk(lane.base, ask(method, rest, headers));
    const b = await rawAsk(route.base, ask(method, rest, headers));
    const one = comparable(a, [[lane.serverId, '<id>']]);
    expect(one, `${method} ${rest}`).toEqual(comparable(b, [[route.serverId, '<id>']]));
    expect(one.lengthOk).toBe(true);
    const h = (name: string) =>
      a.headers
        .filter(([k]) => k === name)
        .map(([, v]) => v)
        .join(', ') || undefined;
    return { answer: { status: a.status, header: h, body: a.body.toString('latin1') }, lane, route };
  };
}

describe("the relay's hot route answers as its Hono route does", () => {
  it('GET and HEAD: bodies, headers, cookies, errors of the server, paths and queries, request ids', async () => {
    world = e2eWorld();
    const same = await pair({});
    expect((await same('GET', '/api/v1/n/5')).answer.body).toBe('{"n":5}');
    const echo = await same('GET', '/api/v1/echo/a%2Fb%20c?x=1&y=%20&z', [
      ['X-Request-Id', 'client-id-123'],
      ['X-Dup', 'one'],
      ['X-Dup', 'two'],
      ['X-Forwarded-For', '6.6.6.6'],
      ['Connection', 'keep-alive, x-hop'],
      ['X-Hop', 'dropped'],
    ]);
    // The client's request id and its repeated header reach the server; hop-by-hop ones do not.
    expect(String(echo.answer.header('x-seen-headers'))).toContain('x-request-id');
    expect(String(echo.answer.header('x-seen-headers'))).toContain('x-dup');
    expect(echo.answer.header('x-path')).toBe('/api/v1/echo/a%2Fb%20c?x=1&y=%20&z');
    expect(String(echo.answer.header('x-seen-headers'))).not.toContain('x-hop');
    await same('GET', '/api/v1/echo/q?');
    await same('GET', '');
    await same('GET', '?only=query');
    await same('GET', '/');
    const { lane, route } = await same('GET', '/api/v1/n/6');
    // Every one of those went through the hot route on one side and the Hono route on the other.
    expect(lane.relay.laneTaken()).toBe(7);
    expect(route.relay.laneTaken()).toBe(0);
    const cookies = await same('GET', '/api/v1/cookies');
    // Overriding decisions.md section 5 here: no Set-Cookie crosses the relay (one server's
    // cookie would be every server's on the shared origin; docs/reference/relay.md, "One origin, many servers").
    expect(cookies.answer.header('set-cookie')).toBeUndefined();
    await same('GET', '/api/v1/binary');
    expect((await same('GET', '/api/v1/boom')).answer.status).toBe(500);
    // Targets the dispatcher leaves to the route: dot segments, encoded dots, a bad id, an unknown server.
    await same('GET', '/api/v1/echo/a/../b');
    await same('GET', '/api/v1/echo/%2e%2e/b');
    await same('GET', '/api/v1/echo/a|b');
    // Over a wire limit: 431 and 414 at the door, from either path.
    const many = Array.from({ length: 300 }, (_, i): [string, string] => [`x-h${i}`, 'v']);
    expect((await same('GET', '/api/v1/n/1', many)).answer.status).toBe(431);
    expect((await same('GET', `/api/v1/echo/${'a'.repeat(9_000)}`)).answer.status).toBe(414);
    expect(lane.relay.laneTaken()).toBe(10); // the cookies, binary and boom; not the ones left to the route
  });

  it('rate limits and time-outs: 429 with Retry-After and 504 in the same envelope', async () => {
    world = e2eWorld();
    const same = await pair({ limits: { proxyPerServer: 3, answerTimeoutMs: 300 } });
    for (let i = 0; i < 3; i++) expect((await same('GET', `/api/v1/n/${i}`)).answer.status).toBe(200);
    const limited = await same('GET', '/api/v1/n/9');
    expect(limited.answer.status).toBe(429);
    expect(Number(limited.answer.header('retry-after'))).toBeGreaterThan(0);
    expect(JSON.parse(limited.answer.body).error.code).toBe('RATE_LIMITED');
  });

  it('a slow server: 504 RELAY_TIMEOUT in the same envelope', async () => {
    world = e2eWorld();
    const same = await pair({ limits: { answerTimeoutMs: 300 } });
    const slow = await same('GET', '/api/v1/slow?ms=1500');
    expect(slow.answer.status).toBe(504);
    expect(JSON.parse(slow.answer.body).error.code).toBe('RELAY_TIMEOUT');
  });
});
