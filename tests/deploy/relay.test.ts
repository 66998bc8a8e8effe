import { afterEach, describe, expect, it } from 'vitest';
import { loadRelayConfig, RelayConfigError } from '../../deploy/shared/config/relay.ts';
import { DEFAULT_LIMITS } from '../../relay/service/types.ts';
import { runTs } from '../helpers/child.ts';
import { postJson } from '../relay/e2e-harness.ts';
import { newIdentity, registerBody } from '../relay/fixtures.ts';

const kills: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const k of kills.splice(0)) await k();
});

describe('relay config', () => {
  it('has the documented defaults', () => {
    expect(loadRelayConfig({})).toEqual({
      host: '0.0.0.0',
      port: 8787,
      publicBaseUrl: null,
      redisUrl: null,
      redisPrefix: 'quire:relay:',
      queueKey: null,
      plainQueue: false,
      trustProxy: false,
      logLevel: 'info',
      shutdownGraceMs: 5_000,
      hotRoutes: true,
      limits: DEFAULT_LIMITS,
      timeouts: { headersMs: 20_000, requestMs: 120_000, keepAliveMs: 5_000 },
    });
  });

  it('reads every variable', () => {
    const c = loadRelayConfig({
      RELAY_HOST: '127.0.0.1',
      RELAY_PORT: '9000',
      RELAY_PUBLIC_BASE_URL: 'https://relay.example.com/',
      REDIS_URL: 'redis://10.0.0.1:6379/2',
      RELAY_REDIS_PREFIX: 'x:',
      RELAY_QUEUE_KEY: 'q'.repeat(32),
      RELAY_TRUST_PROXY: '1',
      RELAY_MAX_BODY_BYTES: '2048',
      RELAY_ANSWER_TIMEOUT_MS: '1000',
      RELAY_PULL_WAIT_MS: '500',
      RELAY_OFFLINE_AFTER_MS: '900',
      RELAY_MAX_QUEUE: '3',
      RELAY_PAIR_FAILURES_PER_CLIENT: '4',
    });
    expect(c).toMatchObject({
      port: 9000,
      publicBaseUrl: 'https://relay.example.com',
      redisPrefix: 'x:',
      trustProxy: true,
    });
    expect(c.limits).toMatchObject({
      maxBodyBytes: 2048,
      answerTimeoutMs: 1000,
      pullWaitMs: 500,
      offlineAfterMs: 900,
      maxQueue: 3,
      pairFailuresPerClient: 4,
    });
  });

  it('takes RELAY_QUEUE_PLAIN=1 as the explicit opt-out of sealing on Redis', () => {
    const c = loadRelayConfig({ REDIS_URL: 'redis://127.0.0.1:6379', RELAY_QUEUE_PLAIN: '1' });
    expect(c).toMatchObject({ queueKey: null, plainQueue: true });
  });

  it.each([
    [{ RELAY_PORT: 'x' }, /RELAY_PORT/],
    [{ RELAY_PUBLIC_BASE_URL: 'ftp://x' }, /RELAY_PUBLIC_BASE_URL/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
    [{ RELAY_MAX_BODY_BYTES: '-5' }, /RELAY_MAX_BODY_BYTES/],
    [{ RELAY_PULL_WAIT_MS: '5000', RELAY_OFFLINE_AFTER_MS: '4000' }, /RELAY_OFFLINE_AFTER_MS/],
    [{ RELAY_TRUST_PROXY: 'maybe' }, /RELAY_TRUST_PROXY/],
    [{ RELAY_QUEUE_KEY: 'short' }, /RELAY_QUEUE_KEY/],
    // A relay on Redis without a key would store clients' keys readable: refused unless opted out.
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, /RELAY_QUEUE_KEY is not/],
    [{ REDIS_URL: 'redis://127.0.0.1:6379', RELAY_QUEUE_PLAIN: 'perhaps' }, /RELAY_QUEUE_PLAIN/],
  ])('refuses %j with a message naming the variable', (env, re) => {
    expect(() => loadRelayConfig(env)).toThrow(RelayConfigError);
    expect(() => loadRelayConfig(env)).toThrow(re);
  });
});

describe('npm run relay (deploy/relay/main.ts)', () => {
  it('stops a bad start with one clear line', async () => {
    const p = runTs('deploy/relay/main.ts', { RELAY_PORT: 'nope' });
    kills.push(p.kill);
    expect(await p.exited).toBe(1);
    expect(p.out.stderr.trim().split('\n')).toEqual([
      'quire-relay: RELAY_PORT must be a whole number, got "nope".',
    ]);
  });

  it('runs on the memory queue with a warning, answers health and the protocol, stops on SIGTERM', async () => {
    const p = runTs('deploy/relay/main.ts', { RELAY_HOST: '127.0.0.1', RELAY_PORT: '0', REDIS_URL: '' });
    kills.push(p.kill);
    const { url } = await p.waitForLog((l) => l.msg === 'relay listening');
    await p.waitForLog((l) => l.level === 'warn' && /single instance/.test(l.msg));
    const health = await (await fetch(`${url}/api/v1/health`)).json();
    expect(health.data).toMatchObject({
      status: 'ok',
      service: 'quire-relay',
      queue: { backend: 'memory', reachable: true },
    });
    const who = await newIdentity();
    const body = await registerBody(who);
    const reg = await postJson(`${url}/api/v1/relay/register`, body);
    expect(reg.json.data.publicUrl).toBe(`${url}/r/${who.serverId}`);
    expect(p.out.stdout).not.toContain(body.secret);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.out.stdout).toContain('"msg":"relay stopped"');
  });
});
