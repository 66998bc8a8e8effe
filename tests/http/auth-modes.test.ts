import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { isPublicRoute } from '../../adapters/http/app.ts';
import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { authApp, JWT_SECRET } from '../helpers/auth-app.ts';

/** Every registered route with a concrete path, and whether it is public. */
function routesOf(app: { routes: { method: string; path: string }[] }) {
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const r of app.routes) {
    if (r.method === 'ALL' || !r.path.startsWith('/api/')) continue;
    const path = r.path.replace(/:path\{[^}]+\}/g, 'n.md').replace(/:[a-zA-Z]+/g, 'x');
    const k = `${r.method} ${path}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ method: r.method, path });
  }
  return out;
}

describe('api-key mode', () => {
  it('answers 401 on every protected route without a key or with a wrong one', async () => {
    const { app, call } = await authApp();
    const routes = routesOf(app).filter((r) => !isPublicRoute(r.method, r.path));
    expect(routes.length).toBeGreaterThan(12);
    for (const r of routes) {
      const none = await call(r.method, r.path, { body: r.method === 'GET' ? undefined : {} });
      expect([r, none.status]).toEqual([r, 401]);
      expect(none.json.success).toBe(false);
      const wrong = await call(r.method, r.path, { headers: { 'x-service-key': 'quire_sk_wrong' } });
      expect([r, wrong.status]).toEqual([r, 401]);
    }
  });

  it('lets the public routes through without a key', async () => {
    const { call } = await authApp();
    expect((await call('GET', '/api/v1/health')).status).toBe(200);
    expect((await call('GET', '/api/v1/system/setup')).status).toBe(200);
  });

  it('serves system info with a key, and it reveals no secret', async () => {
    const { call, firstKey, key } = await authApp();
    const res = await call('GET', '/api/v1/system/info', { headers: key(firstKey) });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      version: '9.9.9',
      notes: { count: 0, bytes: 0 },
      auth: { mode: 'api-key' },
      pairing: { mode: 'relay' },
      relay: { state: expect.any(String) },
    });
    expect(res.text).not.toContain(firstKey);
  });
});

describe('jwt mode', () => {
  const sign = (claims: Record<string, unknown>, secret = JWT_SECRET) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

  it('trades a key for a token that opens protected routes', async () => {
    const { call, firstKey, key } = await authApp({ mode: 'jwt' });
    const tok = await call('POST', '/api/v1/auth/token', { headers: key(firstKey) });
    expect(tok.status).toBe(200);
    expect(tok.json.data).toMatchObject({ tokenType: 'Bearer', expiresAt: expect.any(String) });
    const bearer = { authorization: `Bearer ${tok.json.data.token}` };
    expect((await call('GET', '/api/v1/notes', { headers: bearer })).status).toBe(200);
    expect((await call('GET', '/api/v1/notes', { headers: key(firstKey) })).status).toBe(401);
    expect((await call('POST', '/api/v1/auth/token', { headers: key('quire_sk_nope') })).status).toBe(401);
  });

  it('answers 401 on every protected route with a bad or an expired token', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { app, call, firstKey, key } = await authApp({
      mode: 'jwt',
      now: () => now,
      jwt: { ttlSeconds: 60 },
    });
    const tok = (await call('POST', '/api/v1/auth/token', { headers: key(firstKey) })).json.data.token;
    now += 120_000;
    const routes = routesOf(app).filter(
      (r) => !isPublicRoute(r.method, r.path) && !/\/auth\/(link|token)$/.test(r.path),
    );
    expect(routes.length).toBeGreaterThan(10);
    for (const r of routes) {
      for (const bearer of [tok, 'garbage']) {
        const res = await call(r.method, r.path, { headers: { authorization: `Bearer ${bearer}` } });
        expect([r, res.status]).toEqual([r, 401]);
      }
    }
  });

  it('refuses missing, forged, expired, not-yet-valid and wrong-audience tokens', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const s = Math.floor(now / 1000);
    const { call, firstKey, key } = await authApp({
      mode: 'jwt',
      now: () => now,
      jwt: { issuer: 'quire', audience: 'notes', ttlSeconds: 60 },
    });
    const bad = async (token?: string) => {
      const res = await call(
        'GET',
        '/api/v1/notes',
        token ? { headers: { authorization: `Bearer ${token}` } } : {},
      );
      expect(res.status).toBe(401);
      return res.json.error;
    };
    expect((await bad()).code).toBe('UNAUTHORIZED');
    expect(
      (await bad(await sign({ sub: 'x', iss: 'quire', aud: 'notes', exp: s + 60 }, 'x'.repeat(40)))).code,
    ).toBe('INVALID_TOKEN');
    expect((await bad(await sign({ sub: 'x', iss: 'quire', aud: 'notes', exp: s - 10 }))).message).toMatch(
      /expired/,
    );
    await bad(await sign({ sub: 'x', iss: 'quire', aud: 'notes', nbf: s + 300, exp: s + 600 }));
    await bad(await sign({ sub: 'x', iss: 'quire', aud: 'other', exp: s + 60 }));
    await bad(await sign({ sub: 'x', iss: 'evil', aud: 'notes', exp: s + 60 }));
    await bad('not.a.jwt');
    const tok = (await call('POST', '/api/v1/auth/token', { headers: key(firstKey) })).json.data.token;
    expect((await call('GET', '/api/v1/notes', { headers: { authorization: `Bearer ${tok}` } })).status).toBe(
      200,
    );
    now += 61_000;
    expect((await bad(tok)).message).toMatch(/expired/);
  });
});

describe('jwt mode with a JWKS URL', () => {
  it('accepts RS256 tokens signed by the issuer whose keys the JWKS serves, and refuses others', async () => {
    const { exportJWK, generateKeyPair } = await import('jose');
    const { createServer } = await import('node:http');
    const issuer = await generateKeyPair('RS256');
    const stranger = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(issuer.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as import('node:net').AddressInfo).port;
      const { call, firstKey, key } = await authApp({
        mode: 'jwt',
        jwt: { jwksUrl: `http://127.0.0.1:${port}/jwks.json`, noSecret: true, audience: 'quire' },
      });
      const now = Math.floor(Date.now() / 1000);
      const signWith = (k: CryptoKey) =>
        new SignJWT({ sub: 'alice', aud: 'quire', exp: now + 60 })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .sign(k);
      const good = await call('GET', '/api/v1/notes', {
        headers: { authorization: `Bearer ${await signWith(issuer.privateKey)}` },
      });
      expect(good.status).toBe(200);
      const forged = await call('GET', '/api/v1/notes', {
        headers: { authorization: `Bearer ${await signWith(stranger.privateKey)}` },
      });
      expect(forged.status).toBe(401);
      const issue = await call('POST', '/api/v1/auth/token', { headers: key(firstKey) });
      expect(issue.status).toBe(403);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('none mode', () => {
  it('opens protected routes without credentials (the config refuses public hosts)', async () => {
    const { call } = await authApp({ mode: 'none' });
    expect((await call('GET', '/api/v1/notes')).status).toBe(200);
  });
});

describe('CORS', () => {
  const origins = ['http://localhost:5173', 'https://app.quire.test'];

  it('allows exactly the listed origins, with preflights and the auth headers', async () => {
    const { call } = await authApp({ corsOrigins: origins });
    const pre = await call('OPTIONS', '/api/v1/notes', {
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-service-key',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-service-key');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-session-id');
    for (const evil of [
      'http://localhost:5173.evil.example',
      'http://localhost',
      'https://app.quire.test.evil',
      'null',
    ]) {
      const res = await call('GET', '/api/v1/health', { headers: { origin: evil } });
      expect([evil, res.headers.get('access-control-allow-origin')]).toEqual([evil, null]);
    }
    const ok = await call('GET', '/api/v1/health', { headers: { origin: 'https://app.quire.test' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.quire.test');
  });
});

describe('rate limiting', () => {
  it('trips with 429 and Retry-After on auth endpoints', async () => {
    const { call, firstKey, key } = await authApp({
      rateLimits: { authPerMinute: 3, failures: 100, failureWindowSeconds: 60 },
    });
    for (let i = 0; i < 3; i++)
      expect((await call('POST', '/api/v1/auth/verify', { headers: key(firstKey) })).status).toBe(200);
    const res = await call('POST', '/api/v1/auth/verify', { headers: key(firstKey) });
    expect(res.status).toBe(429);
    expect(res.json.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('blocks further failures after too many failed authentications anywhere; a valid key still passes', async () => {
    const { call, firstKey, key } = await authApp({
      rateLimits: { authPerMinute: 1000, failures: 3, failureWindowSeconds: 60 },
    });
    for (let i = 0; i < 3; i++)
      expect((await call('GET', '/api/v1/notes', { headers: key('quire_sk_guess') })).status).toBe(401);
    const blocked = await call('GET', '/api/v1/notes', { headers: key('quire_sk_guess') });
    expect(blocked.status).toBe(429);
    expect((await call('GET', '/api/v1/notes', { headers: key(firstKey) })).status).toBe(200);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await call('GET', '/api/v1/health')).status).toBe(200);
  });
});

describe('logs', () => {
  it('never contain keys, tokens, pairing codes or secrets over a whole setup-and-link run', async () => {
    const lines: string[] = [];
    const logger = jsonLogger('debug', (l) => lines.push(l));
    const { call, firstKey, key, service } = await authApp({ mode: 'jwt', logger });
    const setup = (await call('GET', '/api/v1/system/setup')).json.data;
    await call('POST', '/api/v1/auth/verify', { headers: key(firstKey) });
    await call('POST', '/api/v1/auth/verify', { headers: key('quire_sk_wrong-guess-value') });
    const token = (await call('POST', '/api/v1/auth/token', { headers: key(firstKey) })).json.data.token;
    await call('POST', '/api/v1/auth/link', { headers: key(firstKey) });
    const device = (
      await call('POST', '/api/v1/auth/keys', {
        body: { name: 'tablet' },
        headers: { authorization: `Bearer ${token}` },
      })
    ).json.data.apiKey;
    const code = (
      await call('POST', '/api/v1/auth/pair-code/rotate', { headers: { authorization: `Bearer ${token}` } })
    ).json.data.relayCode;
    await service.redeemPairCode(code);
    await call('GET', `/api/v1/channels/webhook/telegram?secret=${'s'.repeat(20)}`);
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of [
      firstKey,
      setup.pairing.relayCode,
      token,
      device,
      code,
      service.relaySecret,
      JWT_SECRET,
      'quire_sk_wrong',
      's'.repeat(20),
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});
