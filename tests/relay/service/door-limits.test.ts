/**
 * The third security review's limits at the relay's door, with real sockets (an in-process relay on
 * port 0 and tunnel servers from this process): one server cannot poison the relay's origin, tunnel
 * sign-ins count against RELAY_NEW_SERVERS_PER_CLIENT_HOUR, and strangers cannot spend a server's
 * quota.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { tunnelConnector } from '../../../relay/connector/tunnel-connector.ts';
import type { RelayLimits } from '../../../relay/service/types.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';
import { e2eWorld } from '../e2e-harness.ts';
import { newIdentity, pairing } from '../fixtures.ts';

let world: ReturnType<typeof e2eWorld> | null = null;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  await world?.cleanup();
  world = null;
});

/** A server whose door wants `Authorization: Bearer good`, and whose pages try to take the relay's origin. */
function hostileApp() {
  const app = new Hono();
  app.get('/page', (c) =>
    c.html('<script>document.cookie="x=1"</script>', 200, {
      'content-security-policy': "script-src 'unsafe-inline'",
      'set-cookie': 'relaycookie=1; Path=/',
      'x-frame-options': 'ALLOWALL',
      'clear-site-data': '"*"',
    }),
  );
  app.post('/page', (c) =>
    c.body('<svg xmlns="http://www.w3.org/2000/svg"/>', 200, { 'content-type': 'image/svg+xml' }),
  );
  app.get('/data', (c) =>
    c.json({ ok: true }, 200, { 'x-frame-options': 'SAMEORIGIN', 'set-cookie': 'a=1' }),
  );
  app.get('/private', (c) =>
    c.req.header('authorization') === 'Bearer good' ? c.json({ ok: true }) : c.json({ error: 'key' }, 401),
  );
  return async (req: Request) => app.fetch(req);
}

async function tunnel(
  relayUrl: string,
  who?: Awaited<ReturnType<typeof newIdentity>>,
  handle = hostileApp(),
) {
  who ??= await newIdentity();
  const pair = pairing();
  const connector = tunnelConnector({
    relayUrl,
    serverId: who.serverId,
    identity: who.identity,
    handle,
    redeemPairCode: pair.redeemPairCode,
    pairCodeHash: pair.pairCodeHash,
    logger: silentLogger,
    backoff: { minMs: 20, maxMs: 200 },
  });
  connector.start();
  stops.push(() => connector.stop(200));
  return { connector, serverId: who.serverId, who };
}

const online = (t: Awaited<ReturnType<typeof tunnel>>) =>
  until('the tunnel to be online', () => t.connector.status().state === 'online', 10_000);

async function relayWith(limits: Partial<RelayLimits> = {}) {
  world = e2eWorld();
  return world.relay({ redisUrl: null, trustProxy: true, limits });
}

describe('the relay door: origin, sign-ins, quotas', () => {
  it('active answers are sandboxed and lose Set-Cookie and origin-wide headers, on the lane and the route', async () => {
    const relay = await relayWith();
    const t = await tunnel(relay.url);
    await online(t);
    const base = `${relay.url}/r/${t.serverId}`;
    const laneBefore = relay.laneTaken();
    const page = await fetch(`${base}/page`);
    expect(relay.laneTaken()).toBe(laneBefore + 1);
    expect(page.status).toBe(200);
    expect(page.headers.getSetCookie()).toEqual([]);
    expect(page.headers.get('clear-site-data')).toBeNull();
    // Both policies apply: the server's own and the relay's sandbox (a unique origin, no script).
    expect(page.headers.get('content-security-policy')).toContain('sandbox');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'unsafe-inline'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    // Through the Hono route (a body): the same rules, for SVG too.
    const svg = await fetch(`${base}/page`, { method: 'POST', body: 'x' });
    expect(svg.headers.get('content-security-policy')).toContain('sandbox');
    expect(svg.headers.get('x-frame-options')).toBe('DENY');
    // JSON is not active content: no sandbox needed, the server's framing rule kept, still no cookie.
    const data = await fetch(`${base}/data`);
    expect(data.headers.getSetCookie()).toEqual([]);
    expect(data.headers.get('content-security-policy') ?? '').not.toContain('sandbox');
    expect(data.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(await data.json()).toEqual({ ok: true });
  });

  it('tunnel sign-ins of new serverIds count against RELAY_NEW_SERVERS_PER_CLIENT_HOUR per address', async () => {
    const relay = await relayWith({ newServersPerClientHour: 2 });
    const first = await tunnel(relay.url);
    const second = await tunnel(relay.url);
    await Promise.all([online(first), online(second)]);
    const third = await tunnel(relay.url);
    // The third new serverId from this address is closed before it is online (4029), and stays so.
    await until(
      'the third to be refused',
      () =>
        third.connector.status().state !== 'connecting' && third.connector.status().state !== 'online'
          ? true
          : null,
      10_000,
    ).catch(() => undefined);
    const offline = await fetch(`${relay.url}/r/${third.serverId}/x`);
    expect(offline.status).toBe(503);
    expect(third.connector.status().state).not.toBe('online');
    // A known serverId signing in again is not new: the first one reconnects fine.
    await first.connector.stop(100);
    const again = await tunnel(relay.url, first.who);
    await online(again);
    expect((await fetch(`${relay.url}/r/${second.serverId}/data`)).status).toBe(200);
  });

  it("address A without a key cannot make address B get 429: the stranger budget is the server's other budget", async () => {
    const relay = await relayWith({ proxyPerServer: 5, proxyUnauthPerServer: 3, proxyWindowMs: 60_000 });
    const t = await tunnel(relay.url);
    await online(t);
    const url = `${relay.url}/r/${t.serverId}/private`;
    const a = { 'x-forwarded-for': '198.51.100.1' };
    const fromA: number[] = [];
    for (let i = 0; i < 8; i++) fromA.push((await fetch(url, { headers: a })).status);
    expect(fromA).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    // A with a wrong key: the server's door refuses it (401), charged to the stranger budget too.
    for (let i = 0; i < 4; i++)
      expect((await fetch(url, { headers: { ...a, authorization: 'Bearer wrong' } })).status).toBe(401);
    // B with its key is served: the server budget only counts what passed its door.
    const b = { 'x-forwarded-for': '198.51.100.2', authorization: 'Bearer good' };
    const fromB: number[] = [];
    for (let i = 0; i < 6; i++) fromB.push((await fetch(url, { headers: b })).status);
    expect(fromB).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
