/**
 * Finding 10: the audit sees every weak setting. The monotonicity property over the whole variable
 * table: from any valid environment, making any one variable less safe (the direction its `audit`
 * entry in deploy/shared/config/variables.ts declares) never raises the score; neutral variables never
 * change it; lowering the audit's own thresholds never raises it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicRelayUrl } from '../../core/net/origins.ts';
import { runAudit } from '../../core/security/audit.ts';
import { securitySettings } from '../../core/security/settings.ts';
import type { SecuritySnapshot } from '../../core/security/types.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { SERVER_VARIABLES, type Variable } from '../../deploy/shared/config/variables.ts';
import { SEED } from './arbitraries.ts';
import { daysAgo, NOW } from './snapshots.ts';

type Env = Record<string, string | undefined>;
const TABLE = SERVER_VARIABLES as Record<string, Variable>;

/** A safe value and another valid one for the variables that are not numbers, flags or choices. */
const SAMPLES: Record<string, [string, string]> = {
  HOST: ['127.0.0.1', 'localhost'],
  DATA_DIR: ['/tmp/quire-a', '/tmp/quire-b'],
  VAULT_DIR: ['/tmp/vault-a', '/tmp/vault-b'],
  JWT_SECRET: ['s'.repeat(40), 't'.repeat(48)],
  JWT_JWKS_URL: ['https://id.example.com/jwks.json', 'https://id2.example.com/jwks.json'],
  JWT_ISSUER: ['quire', 'other'],
  JWT_AUDIENCE: ['notes', 'other'],
  RELAY_URL: ['https://relay.example.com', 'http://127.0.0.1:8787'],
  RELAY_HOST: ['127.0.0.1', '::1'],
  RELAY_PUBLIC_BASE_URL: ['https://relay.example.com', 'https://relay2.example.com'],
  PUBLIC_URL: ['https://notes.example.com', 'http://127.0.0.1:3000'],
  CORS_ORIGINS: ['https://app.example.com', 'http://localhost:5173'],
  CLIENT_URL: ['https://app.example.com', 'https://app2.example.com'],
  TEST_CLIENT_URL: ['https://test.example.com', 'https://test2.example.com'],
  LOCAL_DEV_UI_URL: ['http://localhost:5173', 'http://127.0.0.1:5174'],
  AGENT_MODEL: ['m1', 'm2'],
  AGENT_BASE_URL: ['http://localhost:11434/v1', 'http://127.0.0.1:8080/v1'],
  AGENT_API_KEY: ['k1', 'k2'],
  EGRESS_ALLOW: ['', ''],
  TELEGRAM_API_BASE_URL: ['https://api.telegram.org', 'https://tg.example.com'],
  WHATSAPP_API_BASE_URL: ['https://graph.facebook.com/v21.0', 'https://wa.example.com/v1'],
};

function valueArb(name: string, v: Variable): fc.Arbitrary<string | undefined> {
  switch (v.kind) {
    case 'int':
      return fc.option(fc.integer({ min: v.min, max: v.max }).map(String), { nil: undefined });
    case 'bool':
      return fc.constantFrom(undefined, '0', '1');
    case 'enum':
      return fc.constantFrom(undefined, ...v.values);
    default: {
      const [safe, other] = SAMPLES[name] ?? ['x', 'y'];
      const weaker = v.audit?.value;
      return fc.constantFrom(undefined, safe, other, ...(weaker ? [weaker] : []));
    }
  }
}

const anyEnv: fc.Arbitrary<Env> = fc.record(
  Object.fromEntries(Object.entries(TABLE).map(([n, v]) => [n, valueArb(n, v)])) as Record<
    string,
    fc.Arbitrary<string | undefined>
  >,
);

/** The audit of `env` with everything else (keys, files, channels, plugins) held safe; null if it does not start. */
function scoreOf(env: Env): number | null {
  const clean = Object.fromEntries(
    Object.entries(env).filter(([, x]) => x !== undefined && x !== ''),
  ) as Record<string, string>;
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(
      { AGENT_MODEL: 'm', AGENT_API_KEY: 'k', JWT_SECRET: 's'.repeat(40), ...clean },
      '/srv',
    );
  } catch {
    return null;
  }
  const snapshot: SecuritySnapshot = {
    ...securitySettings(config, publicRelayUrl(config), config.timeouts),
    setup: { complete: true, firstKeyExposed: false },
    keys: [{ id: 'k', name: 'first key', kind: 'first', createdAt: daysAgo(30), lastUsedAt: daysAgo(1) }],
    stateFiles: [{ name: '.', mode: 0o700, dir: true }],
    channels: [],
    plugins: [],
  };
  return runAudit(snapshot, NOW).score;
}

/** `env` with `name` made less safe, per its table entry (null: no such direction). */
function weaken(env: Env, name: string, v: Variable): Env | null {
  const w = v.audit!.weaker;
  const set = (x: string) => ({ ...env, [name]: x });
  if (w === 'higher' && v.kind === 'int') return set(String(v.max));
  if ((w === 'lower' || w === 'audit-threshold') && v.kind === 'int') return set(String(v.min));
  if (w === 'on') return set('1');
  if (w === 'off') return set('0');
  if (w === 'value') return set(v.audit!.value!);
  return null;
}

describe('the audit over every variable of the table (property)', () => {
  it('every variable declares how it bears on the audit', () => {
    const missing = Object.entries(TABLE).filter(([, v]) => !v.audit);
    expect(missing.map(([n]) => n)).toEqual([]);
    for (const [n, v] of Object.entries(TABLE)) {
      if (v.audit!.weaker === 'value') expect([n, typeof v.audit!.value]).toEqual([n, 'string']);
      if (['higher', 'lower'].includes(v.audit!.weaker)) expect([n, v.kind]).toEqual([n, 'int']);
    }
  });

  it('the findings of the review now cost points', () => {
    const base = scoreOf({})!;
    expect(base).toBe(100);
    for (const env of [
      { RATE_LIMIT_FAILURES: '100000' },
      { RATE_LIMIT_FAILURE_WINDOW_SECONDS: '1' },
      { PAIRING_CODE_TTL_SECONDS: '86400' },
      { HEADERS_TIMEOUT_MS: '600000', REQUEST_TIMEOUT_MS: '600000' },
    ])
      expect([env, scoreOf(env)! < 100]).toEqual([env, true]);
    // Off stays the loosest: it never scores above a loose limit.
    expect(scoreOf({ RATE_LIMIT: '0' })!).toBeLessThanOrEqual(scoreOf({ RATE_LIMIT_FAILURES: '100000' })!);
  });

  it.each(Object.keys(TABLE))(
    '%s: a less safe value never raises the score (neutral: never changes it)',
    (name) => {
      const v = TABLE[name]!;
      fc.assert(
        fc.property(anyEnv, (env) => {
          const before = scoreOf(env);
          if (before === null) return;
          if (v.audit!.weaker === 'neutral') {
            const [safe, other] = SAMPLES[name] ?? [];
            const alt =
              v.kind === 'int'
                ? String(String(v.min) === env[name] ? v.max : v.min)
                : v.kind === 'bool'
                  ? env[name] === '1'
                    ? '0'
                    : '1'
                  : v.kind === 'enum'
                    ? v.values.find((x) => x !== env[name])!
                    : env[name] === safe
                      ? other!
                      : safe!;
            const after = scoreOf({ ...env, [name]: alt });
            if (after !== null) expect([name, alt, after]).toEqual([name, alt, before]);
            return;
          }
          const weaker = weaken(env, name, v);
          if (!weaker) return;
          const after = scoreOf(weaker);
          // null: the start refuses the weaker setting (e.g. mode none exposed), stricter than any score.
          if (after !== null)
            expect([name, weaker[name], after <= before]).toEqual([name, weaker[name], true]);
        }),
        { seed: SEED, numRuns: 150 },
      );
    },
  );
});
