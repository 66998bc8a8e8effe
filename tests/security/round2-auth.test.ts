/**
 * Security review, second round: findings 1 (revoked keys live on as tokens), 2 (the first pairing
 * code outlives the link), 6 (unauthenticated OPTIONS reaches plugin handlers) and 8 (shared
 * addresses locked out with a valid key), each over real HTTP against the Node server.
 */
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';

const SECRET = 'round-two-secret-round-two-secret-!!';
const servers: LiveServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});
const start = async (env: Record<string, string> = {}) => {
  const s = await liveServer(env);
  servers.push(s);
  return s;
};

async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text, headers: res.headers };
}

/** One protected route of each family, with a body where it needs one. */
const FAMILIES: [string, string, unknown?][] = [
  ['GET', '/api/v1/notes'],
  ['POST', '/api/v1/notes', { path: 'x.md', content: 'x' }],
  ['GET', '/api/v1/folders/tree'],
  ['GET', '/api/v1/search?q=x'],
  ['GET', '/api/v1/system/info'],
  ['GET', '/api/v1/agent/status'],
  ['GET', '/api/v1/channels'],
  ['GET', '/api/v1/plugins'],
  ['GET', '/api/v1/security/audit'],
  ['GET', '/api/v1/auth/keys'],
  ['POST', '/api/v1/auth/keys', { name: 'forever' }],
  ['POST', '/api/v1/auth/pair-code/rotate'],
];

describe('finding 1: tokens die with their key (jwt mode)', () => {
  it('refuses a token on every route family once the key it was traded for is revoked', async () => {
    const s = await start({ SERVICE_AUTH_MODE: 'jwt', JWT_SECRET: SECRET, PAIRING_MODE: 'open-port' });
    const tokenFor = async (key: string) =>
      (await call(s.url, 'POST', '/api/v1/auth/token', { 'x-service-key': key })).json.data.token as string;
    const admin = { authorization: `Bearer ${await tokenFor(s.firstKey)}` };
    const minted = await call(s.url, 'POST', '/api/v1/auth/keys', admin, { name: 'phone' });
    expect(minted.status).toBe(201);
    const lost = { authorization: `Bearer ${await tokenFor(minted.json.data.apiKey)}` };
    expect((await call(s.url, 'GET', '/api/v1/notes', lost)).status).toBe(200);

    expect((await call(s.url, 'DELETE', `/api/v1/auth/keys/${minted.json.data.id}`, admin)).status).toBe(200);
    for (const [method, path, body] of FAMILIES) {
      const res = await call(s.url, method, path, lost, body);
      expect([method, path, res.status, res.json?.error?.code]).toEqual([method, path, 401, 'INVALID_TOKEN']);
    }
    // The other key's token still works.
    expect((await call(s.url, 'GET', '/api/v1/notes', admin)).status).toBe(200);
  });

  it('refuses correctly signed tokens without exp, with a lifetime over 24 hours, or not bound to a key', async () => {
    const s = await start({ SERVICE_AUTH_MODE: 'jwt', JWT_SECRET: SECRET, PAIRING_MODE: 'open-port' });
    const issued = await call(s.url, 'POST', '/api/v1/auth/token', { 'x-service-key': s.firstKey });
    const kid = JSON.parse(Buffer.from(issued.json.data.token.split('.')[1], 'base64url').toString()).qkid;
    expect(kid).toMatch(/^key_/);
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
    const bearer = async (claims: Record<string, unknown>) =>
      (await call(s.url, 'GET', '/api/v1/notes', { authorization: `Bearer ${await sign(claims)}` })).status;
    expect(await bearer({ sub: kid, qkid: kid, exp: now + 60 })).toBe(200);
    expect(await bearer({ sub: kid, qkid: kid })).toBe(401);
    expect(await bearer({ sub: kid, qkid: kid, exp: now + 2 * 86_400 })).toBe(401);
    expect(await bearer({ sub: kid, exp: now + 60 })).toBe(401);
    expect(await bearer({ sub: kid, qkid: 'key_gone', exp: now + 60 })).toBe(401);
  });
});

describe('finding 2: pairing codes die at link and at every revocation', () => {
  const exchange = async (relayUrl: string, code: string) =>
    (await call(relayUrl, 'POST', '/api/v1/pair/exchange', {}, { code })).status;

  it('the code of the public setup payload stops working at link; a rotate makes the next one', async () => {
    const s = await start();
    const code = (await s.setup()).pairing.relayCode as string;
    const key = { 'x-service-key': s.firstKey };
    expect((await call(s.url, 'POST', '/api/v1/auth/link', key)).status).toBe(200);
    expect(await exchange(s.relayUrl!, code)).toBe(401);
    expect((await s.setup()).pairing.relayCode).toBeNull();

    const rotated = (await call(s.url, 'POST', '/api/v1/auth/pair-code/rotate', key)).json.data.relayCode;
    // The connector announces the new code's hash to the relay right after the rotate.
    await until('the condition', async () => (await exchange(s.relayUrl!, rotated)) === 200, 5_000, 50);
    expect(await exchange(s.relayUrl!, rotated)).toBe(401);
    expect((await call(s.url, 'POST', '/api/v1/auth/pair-code/rotate')).status).toBe(401);

    // A revocation retires the outstanding code too.
    const next = (await call(s.url, 'POST', '/api/v1/auth/pair-code/rotate', key)).json.data.relayCode;
    const dev = await call(s.url, 'POST', '/api/v1/auth/keys', key, { name: 'tablet' });
    expect((await call(s.url, 'DELETE', `/api/v1/auth/keys/${dev.json.data.id}`, key)).status).toBe(200);
    expect(await exchange(s.relayUrl!, next)).toBe(401);
  });
});

describe('finding 6: OPTIONS', () => {
  it('answers preflights identically on every path and authenticates every other OPTIONS', async () => {
    const s = await start({ PAIRING_MODE: 'open-port', CORS_ORIGINS: 'https://app.example.com' });
    const key = { 'x-service-key': s.firstKey };
    const inst = await call(s.url, 'POST', '/api/v1/plugins/install', key, {
      id: 'daily-notes',
      config: { timeZone: 'UTC' },
      enabled: true,
    });
    expect(inst.status).toBe(201);
    const paths = [
      '/api/v1/plugins/daily-notes/today',
      '/api/v1/plugins/web-search/x',
      '/api/v1/nothing',
      '/',
    ];
    const shapes = new Set<string>();
    for (const path of paths) {
      const bare = await call(s.url, 'OPTIONS', path);
      if (path.startsWith('/api/')) expect([path, bare.status]).toEqual([path, 401]);
      const withOrigin = await call(s.url, 'OPTIONS', path, { origin: 'https://app.example.com' });
      if (path.startsWith('/api/')) expect([path, withOrigin.status]).toEqual([path, 401]);
      const pre = await call(s.url, 'OPTIONS', path, {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
      });
      const h = pre.headers;
      shapes.add(
        JSON.stringify([
          pre.status,
          pre.text,
          h.get('access-control-allow-origin'),
          h.get('access-control-allow-methods'),
        ]),
      );
    }
    expect(shapes.size).toBe(1);
    expect(JSON.parse([...shapes][0]!)).toEqual([
      204,
      '',
      'https://app.example.com',
      expect.stringContaining('GET'),
    ]);
  });
});

describe('finding 8: failure limits count failures only', () => {
  it('lets a valid key through from an address that used up its failures; bad keys stay 429', async () => {
    const s = await start({ PAIRING_MODE: 'open-port', RATE_LIMIT_FAILURES: '5' });
    for (let i = 0; i < 5; i++) {
      expect(
        (await call(s.url, 'GET', '/api/v1/notes', { 'x-service-key': `quire_sk_bad${i}` })).status,
      ).toBe(401);
    }
    expect((await call(s.url, 'GET', '/api/v1/notes', { 'x-service-key': 'quire_sk_bad' })).status).toBe(429);
    expect(
      (await call(s.url, 'POST', '/api/v1/auth/verify', { 'x-service-key': 'quire_sk_bad' })).status,
    ).toBe(429);
    expect((await call(s.url, 'GET', '/api/v1/notes', { 'x-service-key': s.firstKey })).status).toBe(200);
    expect((await call(s.url, 'POST', '/api/v1/auth/verify', { 'x-service-key': s.firstKey })).status).toBe(
      200,
    );
  });
});
