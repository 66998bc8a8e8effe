import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { AUTH_STATE_KEY } from '../../core/auth/service.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { composeApp } from '../../deploy/shared/node-parts.ts';
import { secureHeaders } from '../../http-kit/middleware.ts';
import { createRelayApp } from '../../relay/http/app.ts';
import { memoryRelayQueue } from '../../relay/queue/memory.ts';
import { requester, tempDir } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** The Node root's app (composeApp) over a temp DATA_DIR, configured by `env`. */
async function composed(env: Record<string, string> = {}, opts: { now?: () => number } = {}) {
  const tmp = await tempDir('quire-security-');
  cleanups.push(tmp.cleanup);
  const config = loadConfig({ DATA_DIR: join(tmp.dir, 'data'), ...env }, tmp.dir);
  const clock = { now: opts.now ?? (() => Date.now()) };
  const state = fsStateStore({ dir: config.dataDir });
  const made = await composeApp({
    config,
    store: memoryNoteStore(),
    state,
    clock,
    logger: silentLogger,
    version: '9.9.9',
  });
  await made.core.load();
  const call = requester(made.app);
  const apiKey = made.auth.firstKeyPlain()!;
  const get = async (path: string) =>
    (await call('GET', `/api/v1/security/${path}`, { headers: { 'x-service-key': apiKey } })).json.data;
  return { ...made, config, call, apiKey, get, dataDir: config.dataDir };
}

const ids = (audit: { findings: { id: string }[] }) => audit.findings.map((f) => f.id);

describe('GET /api/v1/security/*', () => {
  it('audits a default install: only the exposed first key, until a client links', async () => {
    const s = await composed();
    const audit = await s.get('audit');
    expect(audit).toMatchObject({
      score: 80,
      grade: 'B',
      summary: { critical: 0, high: 1, medium: 0, low: 0, info: 0 },
    });
    expect(ids(audit)).toEqual(['setup-key-exposed']);
    expect(Date.parse(audit.checkedAt)).not.toBeNaN();
    const recs = await s.get('recommendations');
    expect(recs.recommendations.map((r: { id: string }) => r.id)).toEqual(['setup-key-exposed']);
    expect(recs.recommendations[0].impact).toBe(20);

    await s.call('POST', '/api/v1/auth/link', { headers: { 'x-service-key': s.apiKey } });
    expect(await s.get('audit')).toMatchObject({ score: 100, grade: 'A', findings: [] });
  });

  it('is protected', async () => {
    const s = await composed();
    for (const p of ['audit', 'config', 'recommendations']) {
      expect((await s.call('GET', `/api/v1/security/${p}`)).status).toBe(401);
    }
  });

  it('reads the live configuration: each variable flips its finding', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ RATE_LIMIT: '0' }, 'rate-limit-off'],
      [{ HOST: '0.0.0.0' }, 'plain-http-public'],
      [{ HOST: '0.0.0.0', TLS_TERMINATED_BY_PROXY: '1', TRUST_PROXY: '1' }, 'trust-proxy-public'],
      [{ RELAY_URL: 'http://relay.example.com' }, 'relay-plain-http'],
      [{ RELAY_HOST: '0.0.0.0' }, 'relay-plain-http'],
      [{ CORS_ORIGINS: 'http://app.example.com' }, 'cors-plain-http-origin'],
      [{ MAX_BODY_BYTES: String(256 * 1024 * 1024) }, 'body-limit-large'],
      [{ AGENT_PROVIDER: 'openai', AGENT_MODEL: 'm', AGENT_API_KEY: 'sk-test-123' }, 'agent-remote-provider'],
    ];
    for (const [env, id] of cases) {
      const s = await composed(env);
      expect(ids(await s.get('audit')), JSON.stringify(env)).toContain(id);
    }
    const declared = await composed({ HOST: '0.0.0.0', TLS_TERMINATED_BY_PROXY: '1' });
    expect(ids(await declared.get('audit'))).not.toContain('plain-http-public');
    const local = await composed({
      AGENT_PROVIDER: 'openai',
      AGENT_MODEL: 'm',
      AGENT_BASE_URL: 'http://localhost:11434/v1',
    });
    expect(ids(await local.get('audit'))).not.toContain('agent-remote-provider');
  });

  it('reads live state: file modes, key ages, channels and plugins at request time', async () => {
    let now = Date.now();
    const s = await composed({ KEY_MAX_AGE_DAYS: '30', DEVICE_KEY_IDLE_DAYS: '10' }, { now: () => now });
    const key = { 'x-service-key': s.apiKey };
    await s.call('POST', '/api/v1/auth/link', { headers: key });
    const signed = await s.call('POST', '/api/v1/channels', {
      headers: key,
      body: {
        provider: 'telegram',
        name: 'signed',
        credentials: { botToken: '123456:AAbbccddeeffgghhiijjkk', secretToken: 'tg-secret-token' },
      },
    });
    expect(signed.status).toBe(201);
    expect(ids(await s.get('audit'))).toEqual([]);

    await chmod(join(s.dataDir, AUTH_STATE_KEY), 0o644);
    expect(ids(await s.get('audit'))).toEqual(['state-files-readable']);
    await chmod(join(s.dataDir, AUTH_STATE_KEY), 0o600);
    expect(ids(await s.get('audit'))).toEqual([]);

    await s.auth.mintKey('old phone');
    now += 11 * 86_400_000;
    expect(ids(await s.get('audit'))).toEqual(['device-key-idle']);
    now += 20 * 86_400_000;
    expect(ids(await s.get('audit'))).toEqual(['api-key-old', 'device-key-idle']);

    const unsigned = await s.call('POST', '/api/v1/channels', {
      headers: key,
      body: {
        provider: 'telegram',
        name: 'unsigned',
        credentials: { botToken: '123456:AAbbccddeeffgghhiijjkk' },
      },
    });
    expect(unsigned.status).toBe(201);
    const install = await s.call('POST', '/api/v1/plugins/install', {
      headers: key,
      body: { id: 'outbound-webhooks', enabled: true },
    });
    expect(install.status).toBe(201);
    expect(ids(await s.get('audit'))).toEqual([
      'channel-no-signature',
      'api-key-old',
      'device-key-idle',
      'plugin-egress',
    ]);
  });

  it('config shows the effective settings', async () => {
    const s = await composed({
      HOST: '0.0.0.0',
      TLS_TERMINATED_BY_PROXY: '1',
      PUBLIC_URL: 'https://notes.example.com',
    });
    const config = await s.get('config');
    expect(config).toMatchObject({
      auth: { mode: 'api-key', header: 'X-Service-Key', setupComplete: false, firstKeyExposed: true },
      listen: { host: '0.0.0.0', public: true },
      tls: { expected: true, terminatedByProxy: true, publicUrl: 'https://notes.example.com' },
      rateLimits: { enabled: true, authPerMinute: 30 },
      bodyLimits: { maxBodyBytes: 10 * 1024 * 1024 },
      pairing: { mode: 'relay', codeTtlSeconds: 900 },
      trustProxy: false,
      timeouts: { headersMs: 20_000, requestMs: 120_000, keepAliveMs: 5_000 },
      secureHeaders: { 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' },
    });
    expect(config.stateFiles.find((f: { name: string }) => f.name === AUTH_STATE_KEY).mode).toBe('0600');
  });

  it('config, recommendations and audit never contain a secret', async () => {
    const agentKey = 'sk-ant-known-agent-secret-0123456789';
    const jwtSecret = 'jwt-known-secret-0123456789-abcdefghij';
    const s = await composed({
      SERVICE_AUTH_MODE: 'jwt',
      JWT_SECRET: jwtSecret,
      AGENT_PROVIDER: 'anthropic',
      AGENT_API_KEY: agentKey,
      RATE_LIMIT: '0',
      HOST: '0.0.0.0',
      TRUST_PROXY: '1',
      RELAY_URL: 'http://relay.example.com',
    });
    const device = await s.auth.mintKey('tablet');
    const token = (await s.call('POST', '/api/v1/auth/token', { headers: { 'x-service-key': s.apiKey } }))
      .json.data.token as string;
    const secrets = [
      s.apiKey,
      s.apiKey.slice('quire_sk_'.length),
      device.apiKey,
      s.auth.relaySecret,
      (await s.auth.pairCode()).code,
      agentKey,
      jwtSecret,
      token,
    ];
    for (const p of ['config', 'recommendations', 'audit']) {
      const res = await s.call('GET', `/api/v1/security/${p}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      for (const secret of secrets) expect(res.text, `${p} holds a secret`).not.toContain(secret);
      expect(res.text).not.toMatch(/quire_sk_[A-Za-z0-9_-]{8,}/);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // And it did report on that configuration.
    expect(
      ids(
        await (
          await s.call('GET', '/api/v1/security/audit', { headers: { authorization: `Bearer ${token}` } })
        ).json.data,
      ),
    ).toEqual(
      expect.arrayContaining([
        'plain-http-public',
        'relay-plain-http',
        'rate-limit-off',
        'trust-proxy-public',
        'agent-remote-provider',
      ]),
    );
  });
});

describe('security headers', () => {
  const expectSecure = (h: Headers) => {
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('referrer-policy')).toBe('no-referrer');
    expect(h.get('x-frame-options')).toBe('DENY');
    expect(h.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  };

  it('are on every server answer: success, 401, 404, 405, 413 and errors', async () => {
    const s = await composed({ MAX_BODY_BYTES: '2048' });
    const key = { 'x-service-key': s.apiKey };
    const answers = [
      await s.call('GET', '/api/v1/health'),
      await s.call('GET', '/api/v1/notes'),
      await s.call('GET', '/api/v1/notes', { headers: key }),
      await s.call('GET', '/api/v1/nope', { headers: key }),
      await s.call('PATCH', '/api/v1/notes', { headers: key }),
      await s.call('POST', '/api/v1/notes', {
        headers: key,
        body: { path: 'a.md', content: 'x'.repeat(5000) },
      }),
      await s.call('POST', '/api/v1/notes', { headers: key, body: '{broken' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 200, 404, 405, 413, 400]);
    // The body limit holds on every path, routes of ours or not.
    const big = await s.call('POST', '/not-an-api-route', { body: 'x'.repeat(5000) });
    expect([big.status, big.json.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    answers.push(big);
    for (const a of answers) expectSecure(a.headers);
  });

  it('are on every relay answer', async () => {
    const relay = createRelayApp({
      queue: memoryRelayQueue(),
      publicBaseUrl: 'http://relay.test',
      logger: silentLogger,
    });
    const call = requester(relay);
    const answers = [
      await call('GET', '/api/v1/health'),
      await call('POST', '/api/v1/pair/exchange', { body: '{' }),
      await call('GET', '/r/srv_unknown/api/v1/notes'),
      await call('GET', '/nothing'),
      await call('POST', '/nothing', { body: 'x'.repeat(70 * 1024) }),
    ];
    expect(answers.at(-1)!.status).toBe(413);
    for (const a of answers) expectSecure(a.headers);
  });

  it("keep a handler's own values (a page with its own Content-Security-Policy)", async () => {
    const app = new Hono();
    app.use(secureHeaders());
    app.get('/page', (c) => c.html('<p>hi</p>', 200, { 'content-security-policy': "default-src 'self'" }));
    app.get('/fetched', () => fetch('data:text/plain,hello'));
    const page = await app.request('/page');
    expect(page.headers.get('content-security-policy')).toBe("default-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    // A Response straight from fetch() has immutable headers; it gets them through a copy.
    const fetched = await app.request('/fetched');
    expect(await fetched.text()).toBe('hello');
    expectSecure(fetched.headers);
  });
});
