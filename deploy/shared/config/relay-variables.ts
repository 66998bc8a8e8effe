/**
 * Every environment variable of the relay service (`npm run relay`, `quire relay`): relay.ts
 * reads defaults and bounds from here, and docs/configuration.md is generated from here.
 */
import { DEFAULT_LIMITS } from '../../../relay/service/types.ts';
import { LOG_LEVELS } from './read.ts';
import type { Variable } from './variables.ts';

const MAX = 2 ** 31;
const limit = (def: number, meaning: string, shown?: string): Variable => ({
  group: 'Relay limits',
  kind: 'int',
  def,
  min: 1,
  max: MAX,
  meaning,
  ...(shown ? { shown } : {}),
});

/** The relay's variables, in the order the page lists them. */
export const RELAY_VARIABLES = {
  RELAY_HOST: { group: 'Relay', kind: 'text', def: '0.0.0.0', meaning: 'Listening address.' },
  RELAY_PORT: {
    group: 'Relay',
    kind: 'int',
    def: 8787,
    min: 0,
    max: 65535,
    meaning: 'Listening port (`0`: any free port).',
  },
  RELAY_PUBLIC_BASE_URL: {
    group: 'Relay',
    kind: 'url',
    shown: 'the listening address',
    meaning:
      'Base given to clients: `serverUrl` is `<base>/r/<serverId>`. Set it (a warning says when it is not).',
  },
  REDIS_URL: {
    group: 'Relay',
    kind: 'secret',
    shown: 'unset',
    accepts: '`redis://` or `rediss://` URL (it may carry a password: never logged)',
    meaning: '`redis://` or `rediss://`. Unset: in-memory queue, one instance only.',
  },
  RELAY_REDIS_PREFIX: {
    group: 'Relay',
    kind: 'text',
    def: 'quire:relay:',
    meaning:
      'Prefix of every Redis key and channel (several relays may share one Redis with different prefixes).',
  },
  RELAY_QUEUE_KEY: {
    group: 'Relay',
    kind: 'secret',
    shown: 'unset',
    meaning:
      'At least 32 characters, the same on every instance: payloads are sealed with AES-256-GCM before they enter the queue store. Required with `REDIS_URL` (unless `RELAY_QUEUE_PLAIN=1`).',
  },
  RELAY_QUEUE_PLAIN: {
    group: 'Relay',
    kind: 'bool',
    def: false,
    shown: '`0`',
    meaning:
      '`1`: run on Redis without `RELAY_QUEUE_KEY` (payloads stored unsealed). Without it, a relay on Redis refuses to start with no key.',
  },
  RELAY_TRUST_PROXY: {
    group: 'Relay',
    kind: 'bool',
    def: false,
    shown: '`0`',
    meaning:
      '`1`: take the client address from the last `X-Forwarded-For` hop (only behind a proxy you run).',
  },
  LOG_LEVEL: {
    group: 'Relay',
    kind: 'enum',
    values: LOG_LEVELS,
    def: 'info',
    meaning: 'JSON log lines; never a key or pairing code.',
  },
  RELAY_HEADERS_TIMEOUT_MS: {
    group: 'Relay',
    kind: 'int',
    def: 20_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Time a client may take to send its headers (then 408); at most `RELAY_REQUEST_TIMEOUT_MS`.',
  },
  RELAY_REQUEST_TIMEOUT_MS: {
    group: 'Relay',
    kind: 'int',
    def: 120_000,
    min: 1_000,
    max: 3_600_000,
    meaning: 'Time a client may take to send its whole request (then 408); long polls are not cut by it.',
  },
  RELAY_KEEP_ALIVE_TIMEOUT_MS: {
    group: 'Relay',
    kind: 'int',
    def: 5_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Idle keep-alive connections close after this.',
  },
  RELAY_SHUTDOWN_GRACE_MS: {
    group: 'Relay',
    kind: 'int',
    def: 5_000,
    min: 0,
    max: 600_000,
    meaning: 'On SIGTERM: long polls end at once; waiting clients get this long to be answered.',
  },
  RELAY_MAX_BODY_BYTES: limit(
    DEFAULT_LIMITS.maxBodyBytes,
    'Largest proxied request body (413) and largest relayed answer body.',
    '`10485760` (10 MiB)',
  ),
  RELAY_ANSWER_TIMEOUT_MS: limit(
    DEFAULT_LIMITS.answerTimeoutMs,
    'How long a client waits for its server; then 504 `RELAY_TIMEOUT`.',
  ),
  RELAY_PULL_WAIT_MS: limit(DEFAULT_LIMITS.pullWaitMs, 'Longest (and default) long-poll wait of a pull.'),
  RELAY_MAX_BATCH: limit(DEFAULT_LIMITS.maxBatch, 'Most requests one pull returns.'),
  RELAY_MAX_QUEUE: limit(
    DEFAULT_LIMITS.maxQueue,
    'Most live requests queued per server; above: 503 `NOT_READY`.',
  ),
  RELAY_OFFLINE_AFTER_MS: limit(
    DEFAULT_LIMITS.offlineAfterMs,
    'A server silent this long is offline (503 `SERVER_OFFLINE`). Must exceed the pull wait.',
    'pull wait + 15 s (40 s)',
  ),
  RELAY_PAIR_CODE_TTL_MS: limit(
    DEFAULT_LIMITS.pairCodeTtlMs,
    'How long a pairing-code hash stays usable at the relay.',
    '`900000` (15 min)',
  ),
  RELAY_PAIR_FAILURES_PER_CLIENT: limit(
    DEFAULT_LIMITS.pairFailuresPerClient,
    'Failed exchanges per client address per window, then 429.',
  ),
  RELAY_PAIR_FAILURES_PER_SERVER: limit(
    DEFAULT_LIMITS.pairFailuresPerServer,
    'Failed exchanges per serverId per window, then 429.',
  ),
  RELAY_PAIR_FAILURE_WINDOW_MS: limit(
    DEFAULT_LIMITS.pairFailureWindowMs,
    'The failure window (fixed, starts at the first failure).',
  ),
  RELAY_NEW_SERVERS_PER_CLIENT_HOUR: limit(
    DEFAULT_LIMITS.newServersPerClientHour,
    'New serverIds one address may register per hour.',
  ),
  RELAY_RATE_PER_CLIENT: limit(
    DEFAULT_LIMITS.proxyPerClient,
    'Proxied requests (`/r/*`) one client address may send per rate window (per instance), then 429 with `Retry-After`.',
  ),
  RELAY_RATE_PER_SERVER: limit(
    DEFAULT_LIMITS.proxyPerServer,
    'Proxied requests one serverId may receive per rate window (per instance), then 429 with `Retry-After`.',
  ),
  RELAY_RATE_WINDOW_MS: limit(DEFAULT_LIMITS.proxyWindowMs, 'The proxied-request rate window (fixed).'),
  RELAY_RATE_UNAUTH_PER_SERVER: limit(
    DEFAULT_LIMITS.proxyUnauthPerServer,
    'Proxied requests per serverId per rate window that carry no credential or are answered 401/403 (strangers cannot spend the server budget above), then 429.',
  ),
  RELAY_MAX_OPEN_PER_CLIENT: limit(
    DEFAULT_LIMITS.maxOpenPerClient,
    'Proxied requests one client address may have open at once, then 429 (decided before any body is read).',
  ),
  RELAY_MAX_INFLIGHT_BYTES_PER_CLIENT: limit(
    DEFAULT_LIMITS.maxInflightBytesPerClient,
    'Request-body bytes one client address may have in flight (declared `Content-Length` reserved up front), then 429.',
    '`33554432` (32 MiB)',
  ),
  RELAY_MAX_INFLIGHT_BYTES: limit(
    DEFAULT_LIMITS.maxInflightBytes,
    'Request-body bytes in flight on the whole instance, then 503 `NOT_READY`.',
    '`268435456` (256 MiB)',
  ),
  RELAY_BODY_TIMEOUT_MS: limit(
    DEFAULT_LIMITS.bodyTimeoutMs,
    'Longest a proxied request body may take to arrive, then 408 `REQUEST_TIMEOUT` and the connection closed.',
  ),
} as const satisfies Record<string, Variable>;

export type RelayVariable = keyof typeof RELAY_VARIABLES;
