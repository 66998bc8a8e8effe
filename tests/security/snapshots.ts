import fc from 'fast-check';
import type { SecuritySnapshot } from '../../core/security/types.ts';

export const NOW = Date.parse('2026-05-01T00:00:00.000Z');
const DAY = 86_400_000;
export const daysAgo = (d: number) => new Date(NOW - d * DAY).toISOString();

/** A snapshot with no finding at all: what a careful operator runs. */
export function safeSnapshot(): SecuritySnapshot {
  return {
    authMode: 'api-key',
    host: '127.0.0.1',
    publicUrl: null,
    tlsTerminatedByProxy: false,
    corsOrigins: ['http://localhost:5173', 'https://app.example.com'],
    rateLimits: { authPerMinute: 30, failures: 20, failureWindowSeconds: 600 },
    trustProxy: false,
    pairing: {
      mode: 'relay',
      relayUrl: 'https://relay.example.com',
      embeddedRelayHost: null,
      codeTtlSeconds: 900,
    },
    maxBodyBytes: 10 * 1024 * 1024,
    setup: { complete: true, firstKeyExposed: false },
    keys: [
      { id: 'key_first', name: 'first key', kind: 'first', createdAt: daysAgo(10), lastUsedAt: daysAgo(1) },
      { id: 'key_phone', name: 'phone', kind: 'device', createdAt: daysAgo(20), lastUsedAt: daysAgo(2) },
    ],
    policy: { keyMaxAgeDays: 180, deviceKeyIdleDays: 90 },
    stateFiles: [
      { name: '.', mode: 0o700, dir: true },
      { name: 'credentials.json', mode: 0o600, dir: false },
    ],
    agent: { enabled: true, provider: 'local', baseUrl: null },
    channels: [{ id: 'ch_tg', provider: 'telegram', enabled: true, signatureCheck: true }],
    plugins: [{ id: 'daily-notes', enabled: true, egress: false }],
  };
}

const host = fc.constantFrom(
  '127.0.0.1',
  'localhost',
  '::1',
  '0.0.0.0',
  '::',
  '192.168.1.5',
  'notes.example.com',
);
const iso = fc.integer({ min: 0, max: 800 }).map(daysAgo);

/** Any snapshot, safe or not. */
export const anySnapshot: fc.Arbitrary<SecuritySnapshot> = fc.record({
  authMode: fc.constantFrom('api-key', 'jwt', 'none'),
  host,
  publicUrl: fc.option(
    fc.constantFrom('https://notes.example.com', 'http://notes.example.com', 'http://127.0.0.1:3000'),
    { nil: null },
  ),
  tlsTerminatedByProxy: fc.boolean(),
  corsOrigins: fc.array(
    fc.constantFrom(
      '*',
      'null',
      'http://localhost:5173',
      'https://app.example.com',
      'http://app.example.com',
    ),
    { maxLength: 4 },
  ),
  rateLimits: fc.option(
    fc.record({
      authPerMinute: fc.integer({ min: 1, max: 1000 }),
      failures: fc.integer({ min: 1, max: 1000 }),
      failureWindowSeconds: fc.integer({ min: 1, max: 86_400 }),
      webhookPerMinute: fc.integer({ min: 1, max: 100_000 }),
    }),
    { nil: false as const },
  ),
  jwtTtlSeconds: fc.option(fc.integer({ min: 30, max: 86_400 }), { nil: null }),
  egressAllow: fc.array(fc.constantFrom('10.0.0.5:8080', 'ollama.internal'), { maxLength: 2 }),
  timeouts: fc.record({
    headersMs: fc.integer({ min: 1_000, max: 600_000 }),
    requestMs: fc.integer({ min: 1_000, max: 3_600_000 }),
    keepAliveMs: fc.integer({ min: 1_000, max: 600_000 }),
  }),
  trustProxy: fc.boolean(),
  pairing: fc.record({
    mode: fc.constantFrom('relay', 'open-port'),
    relayUrl: fc.option(
      fc.constantFrom('https://relay.example.com', 'http://relay.example.com', 'http://127.0.0.1:8787'),
      { nil: null },
    ),
    embeddedRelayHost: fc.option(host, { nil: null }),
    codeTtlSeconds: fc.integer({ min: 30, max: 86_400 }),
  }),
  maxBodyBytes: fc.integer({ min: 1024, max: 2 ** 30 }),
  setup: fc.record({ complete: fc.boolean(), firstKeyExposed: fc.boolean() }),
  keys: fc.array(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 8 }),
      name: fc.string({ maxLength: 8 }),
      kind: fc.constantFrom('first', 'device'),
      createdAt: iso,
      lastUsedAt: fc.option(iso, { nil: null }),
    }),
    { maxLength: 4 },
  ),
  policy: fc.record({
    keyMaxAgeDays: fc.integer({ min: 1, max: 400 }),
    deviceKeyIdleDays: fc.integer({ min: 1, max: 400 }),
  }),
  stateFiles: fc.array(
    fc.record({
      name: fc.constantFrom('.', 'credentials.json', 'index-cache.json'),
      mode: fc.integer({ min: 0, max: 0o777 }),
      dir: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  agent: fc.record({
    enabled: fc.boolean(),
    provider: fc.constantFrom('local', 'openai', 'anthropic'),
    baseUrl: fc.option(fc.constantFrom('http://localhost:11434/v1', 'https://api.openai.com/v1'), {
      nil: null,
    }),
  }),
  channels: fc.array(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 6 }),
      provider: fc.constantFrom('telegram', 'whatsapp', 'web'),
      enabled: fc.boolean(),
      signatureCheck: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  plugins: fc.array(
    fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), enabled: fc.boolean(), egress: fc.boolean() }),
    { maxLength: 3 },
  ),
});

type Worsen = (s: SecuritySnapshot) => SecuritySnapshot;

/** Each makes exactly one setting less safe (or leaves it as unsafe as it was). */
export const WORSEN: [string, Worsen][] = [
  ['SERVICE_AUTH_MODE=none', (s) => ({ ...s, authMode: 'none' })],
  [
    'setup left incomplete with the key shown',
    (s) => ({ ...s, setup: { complete: false, firstKeyExposed: true } }),
  ],
  ['HOST=0.0.0.0', (s) => ({ ...s, host: '0.0.0.0' })],
  ['TLS_TERMINATED_BY_PROXY off', (s) => ({ ...s, tlsTerminatedByProxy: false })],
  ['PUBLIC_URL over http', (s) => ({ ...s, publicUrl: s.publicUrl?.replace(/^https:/, 'http:') ?? null })],
  ['CORS_ORIGINS gains *', (s) => ({ ...s, corsOrigins: [...s.corsOrigins, '*'] })],
  [
    'CORS_ORIGINS gains an http origin',
    (s) => ({ ...s, corsOrigins: [...s.corsOrigins, 'http://evil.example'] }),
  ],
  ['RATE_LIMIT=0', (s) => ({ ...s, rateLimits: false })],
  [
    'RATE_LIMIT_FAILURES raised',
    (s) => ({ ...s, rateLimits: s.rateLimits && { ...s.rateLimits, failures: 100_000 } }),
  ],
  [
    'RATE_LIMIT_FAILURE_WINDOW_SECONDS shortened',
    (s) => ({ ...s, rateLimits: s.rateLimits && { ...s.rateLimits, failureWindowSeconds: 1 } }),
  ],
  [
    'RATE_LIMIT_AUTH_PER_MINUTE raised',
    (s) => ({ ...s, rateLimits: s.rateLimits && { ...s.rateLimits, authPerMinute: 100_000 } }),
  ],
  [
    'RATE_LIMIT_WEBHOOK_PER_MINUTE raised',
    (s) => ({ ...s, rateLimits: s.rateLimits && { ...s.rateLimits, webhookPerMinute: 100_000 } }),
  ],
  [
    'PAIRING_CODE_TTL_SECONDS raised',
    (s) => ({ ...s, pairing: { ...s.pairing, codeTtlSeconds: Math.max(s.pairing.codeTtlSeconds, 86_400) } }),
  ],
  ['JWT_TTL_SECONDS raised', (s) => ({ ...s, jwtTtlSeconds: Math.max(s.jwtTtlSeconds ?? 0, 86_400) })],
  [
    'HEADERS_TIMEOUT_MS raised',
    (s) => ({ ...s, timeouts: s.timeouts && { ...s.timeouts, headersMs: 600_000 } }),
  ],
  ['EGRESS_ALLOW gains an entry', (s) => ({ ...s, egressAllow: [...(s.egressAllow ?? []), '10.9.9.9'] })],
  ['TRUST_PROXY=1', (s) => ({ ...s, trustProxy: true })],
  ['RELAY_URL over http', (s) => ({ ...s, pairing: { ...s.pairing, relayUrl: 'http://relay.example.com' } })],
  ['embedded relay on 0.0.0.0', (s) => ({ ...s, pairing: { ...s.pairing, embeddedRelayHost: '0.0.0.0' } })],
  [
    'a state file readable by others',
    (s) => ({
      ...s,
      stateFiles: [
        ...s.stateFiles.map((f, i) => (i === 0 ? { ...f, mode: f.mode | 0o066 } : f)),
        { name: 'x.json', mode: 0o644, dir: false },
      ],
    }),
  ],
  [
    'keys a year older',
    (s) => ({
      ...s,
      keys: s.keys.map((k) => ({
        ...k,
        createdAt: new Date(Date.parse(k.createdAt) - 365 * 86_400_000).toISOString(),
      })),
    }),
  ],
  [
    'device keys unused for longer',
    (s) => ({ ...s, keys: s.keys.map((k) => ({ ...k, lastUsedAt: null, createdAt: daysAgo(900) })) }),
  ],
  ['MAX_BODY_BYTES raised', (s) => ({ ...s, maxBodyBytes: Math.max(s.maxBodyBytes, 512 * 1024 * 1024) })],
  [
    'agent on a remote provider',
    (s) => ({ ...s, agent: { enabled: true, provider: 'openai', baseUrl: null } }),
  ],
  [
    'channel signature checks off',
    (s) => ({ ...s, channels: s.channels.map((c) => ({ ...c, signatureCheck: false })) }),
  ],
  [
    'an unsigned channel added',
    (s) => ({
      ...s,
      channels: [...s.channels, { id: 'new', provider: 'whatsapp', enabled: true, signatureCheck: false }],
    }),
  ],
  [
    'plugin egress on',
    (s) => ({ ...s, plugins: [...s.plugins, { id: 'web-clipper', enabled: true, egress: true }] }),
  ],
];
