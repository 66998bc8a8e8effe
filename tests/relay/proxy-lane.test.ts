import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { tunnelConnector } from '../../relay/connector/tunnel-connector.ts';
import { silentLogger } from '../helpers/logger.ts';
import type { RelayOverrides } from '../helpers/relay-config.ts';
import { until } from '../helpers/wait.ts';
import { e2eWorld } from './e2e-harness.ts';
import { newIdentity, pairing, smallApp } from './fixtures.ts';

/**
 * The relay's Node fast lane for GET/HEAD through a tunnel (relay/node/proxy-lane.ts) against
 * the Hono route it bypasses: two relays, one with the lane and one without, each with a tunnel
 * to the same app, asked the same requests; status, headers and body must be the same.
 */
let world: ReturnType<typeof e2eWorld>;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world.cleanup();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** One request over node:http, so repeated and odd headers go out exactly as written. */
function raw(url: string, method: string, headers: [string, string][] = []): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    // A raw header list gets no Host of its own.
    const flat = [['Host', u.host], ...headers].flat();
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path: url.slice(u.origin.length),
        headers: flat,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string | string[]>,
            body: Buffer.concat(chunks).toString('latin1'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** What must match: everything but the per-request ids and the date. */
function comparable(r: Raw, serverId: string) {
  const headers: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.headers)) {
    if (k === 'date' || k === 'connection' || k === 'keep-alive') continue;
    if (k === 'x-relay-request-id' || (k === 'x-request-id' && String(v).length === 36))
      headers[k] = /^[0-9a-f-]{36}$/.test(String(v)) ? 'uuid' : v;
    else headers[k] = typeof v === 'string' ? v.replaceAll(serverId, '<id>') : v;
  }
  return { status: r.status, headers, body: r.body.replaceAll(serverId, '<id>') };
}

async function pair(config: RelayOverrides) {
  const sides = [];
  for (const fastLane of [true, false]) {
    const relay = await world.relay({ redisUrl: null, ...config, fastLane });
    const app = smallApp();
    const who = await newIdentity();
    const connector = tunnelConnector({
      relayUrl: relay.url,
      serverId: who.serverId,
      identity: who.identity,
      handle: app.handle,
      redeemPairCode: pairing().redeemPairCode,
      logger: silentLogger,
      backoff: { minMs: 20, maxMs: 200 },
    });
    connector.start();
    stops.push(() => connector.stop(500));
    await until('the tunnel to be online', () => connector.status().state === 'online', 10_000);
    sides.push({ base: `${relay.url}/r/${who.serverId}`, serverId: who.serverId, app, relay });
  }
  const [lane, route] = sides as [(typeof sides)[0], (typeof sides)[0]];
  /** Asks both relays the same request and returns the lane's answer after checking they match. */
  return async (method: string, rest: string, headers: [string, string][] = []) => {
    const a = await raw(`${lane.base}${rest}`, method, headers);
    const b = await raw(`${route.base}${rest}`, method, headers);
    expect(comparable(a, lane.serverId), `${method} ${rest}`).toEqual(comparable(b, route.serverId));
    return { answer: a, lane, route };
  };
}

describe('the relay proxy lane answers as the Hono route does', () => {
  it('GET and HEAD: bodies, headers, cookies, errors of the server, paths and queries, request ids', async () => {
    world = e2eWorld();
    const same = await pair({});
    expect((await same('GET', '/api/v1/n/5')).answer.body).toBe('{"n":5}');
    await same('HEAD', '/api/v1/n/5');
    const echo = await same('GET', '/api/v1/echo/a%2Fb%20c?x=1&y=%20&z', [
      ['X-Request-Id', 'client-id-123'],
      ['X-Dup', 'one'],
      ['X-Dup', 'two'],
      ['X-Forwarded-For', '6.6.6.6'],
      ['Connection', 'keep-alive, x-hop'],
      ['X-Hop', 'dropped'],
    ]);
    // The client's request id and its repeated header reach the server; hop-by-hop ones do not.
    expect(String(echo.answer.headers['x-seen-headers'])).toContain('x-request-id');
    expect(String(echo.answer.headers['x-seen-headers'])).toContain('x-dup');
    expect(echo.answer.headers['x-path']).toBe('/api/v1/echo/a%2Fb%20c?x=1&y=%20&z');
    expect(String(echo.answer.headers['x-seen-headers'])).not.toContain('x-hop');
    await same('GET', '/api/v1/echo/q?');
    await same('GET', '');
    await same('GET', '?only=query');
    await same('GET', '/');
    await same('GET', '/api/v1/echo/x', [['X-Request-Id', 'bad id with spaces']]);
    const { lane, route } = await same('GET', '/api/v1/n/6');
    // Every one of those went through the lane on one side and the Hono route on the other.
    expect(lane.relay.laneTaken()).toBe(9);
    expect(route.relay.laneTaken()).toBe(0);
    const cookies = await same('GET', '/api/v1/cookies');
    // Issue 31 overrides decisions.md section 5 here: no Set-Cookie crosses the relay (one server's
    // cookie would be every server's on the shared origin; docs/relay.md, "One origin, many servers").
    expect(cookies.answer.headers['set-cookie']).toBeUndefined();
    await same('GET', '/api/v1/binary');
    expect((await same('GET', '/api/v1/boom')).answer.status).toBe(500);
    expect((await same('GET', '/api/v1/nowhere')).answer.status).toBe(404);
    // Targets the lane leaves to the route: dot segments, encoded dots, a bad id, an unknown server.
    await same('GET', '/api/v1/echo/a/../b');
    await same('GET', '/api/v1/echo/%2e%2e/b');
    await same('GET', '/api/v1/echo/a|b');
    // Over a wire limit: 431 and 414 at the door, from either path.
    const many = Array.from({ length: 300 }, (_, i): [string, string] => [`x-h${i}`, 'v']);
    expect((await same('GET', '/api/v1/n/1', many)).answer.status).toBe(431);
    expect((await same('GET', `/api/v1/echo/${'a'.repeat(9_000)}`)).answer.status).toBe(414);
    expect(lane.relay.laneTaken()).toBe(13); // the cookies, binary, boom and nowhere; not the ones left to the route
  });

  it('rate limits and time-outs: 429 with Retry-After and 504 in the same envelope', async () => {
    world = e2eWorld();
    const same = await pair({ limits: { proxyPerServer: 3, answerTimeoutMs: 300 } });
    for (let i = 0; i < 3; i++) expect((await same('GET', `/api/v1/n/${i}`)).answer.status).toBe(200);
    const limited = await same('GET', '/api/v1/n/9');
    expect(limited.answer.status).toBe(429);
    expect(Number(limited.answer.headers['retry-after'])).toBeGreaterThan(0);
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
