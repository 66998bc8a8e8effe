import type { HttpTimeouts } from '../../adapters/node/http-timeouts.ts';
import type { LogLevel } from '../../adapters/node/logger.ts';
import { DEFAULT_LIMITS, type RelayLimits } from '../../relay/types.ts';
import { RELAY_VARIABLES } from './variables.ts';

/** The validated relay environment (decisions.md sections 1 and 7; docs/relay.md lists every variable). */
export interface RelayConfig {
  host: string;
  port: number;
  /** RELAY_PUBLIC_BASE_URL; null means `http://<host>:<port>` of the listening socket. */
  publicBaseUrl: string | null;
  /** REDIS_URL; null selects the in-memory queue (single instance). */
  redisUrl: string | null;
  redisPrefix: string;
  /** RELAY_QUEUE_KEY: when set, payloads are AES-GCM sealed before they enter the queue store. */
  queueKey: string | null;
  /** RELAY_QUEUE_PLAIN: the operator's explicit opt-out of sealing on Redis (otherwise a Redis relay needs a key). */
  plainQueue: boolean;
  /** Believe X-Forwarded-For for client addresses (only behind a proxy you run). */
  trustProxy: boolean;
  logLevel: LogLevel;
  /** How long stop() lets waiting clients finish before closing their connections, in ms. */
  shutdownGraceMs: number;
  limits: RelayLimits;
  /** RELAY_HEADERS_TIMEOUT_MS, RELAY_REQUEST_TIMEOUT_MS, RELAY_KEEP_ALIVE_TIMEOUT_MS. */
  timeouts: HttpTimeouts;
}

/** A bad environment value; the message is one line naming the variable. */
export class RelayConfigError extends Error {}

/** Environment variable → limit it sets. */
export const LIMIT_VARIABLES: Record<string, keyof RelayLimits> = {
  RELAY_MAX_BODY_BYTES: 'maxBodyBytes',
  RELAY_ANSWER_TIMEOUT_MS: 'answerTimeoutMs',
  RELAY_PULL_WAIT_MS: 'pullWaitMs',
  RELAY_MAX_BATCH: 'maxBatch',
  RELAY_MAX_QUEUE: 'maxQueue',
  RELAY_OFFLINE_AFTER_MS: 'offlineAfterMs',
  RELAY_PAIR_CODE_TTL_MS: 'pairCodeTtlMs',
  RELAY_PAIR_FAILURES_PER_CLIENT: 'pairFailuresPerClient',
  RELAY_PAIR_FAILURES_PER_SERVER: 'pairFailuresPerServer',
  RELAY_PAIR_FAILURE_WINDOW_MS: 'pairFailureWindowMs',
  RELAY_NEW_SERVERS_PER_CLIENT_HOUR: 'newServersPerClientHour',
  RELAY_RATE_PER_CLIENT: 'proxyPerClient',
  RELAY_RATE_PER_SERVER: 'proxyPerServer',
  RELAY_RATE_WINDOW_MS: 'proxyWindowMs',
};

/** A whole number within the bounds variables.ts gives `name` (its default when unset). */
function int(env: NodeJS.ProcessEnv, name: keyof typeof RELAY_VARIABLES, def?: number): number {
  const spec = RELAY_VARIABLES[name];
  if (spec.kind !== 'int') throw new Error(`${name} is not a number variable`);
  const { min, max } = spec;
  def ??= spec.def;
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new RelayConfigError(`${name} must be a whole number, got "${raw}".`);
  const n = Number(raw);
  if (n < min || n > max) throw new RelayConfigError(`${name} must be between ${min} and ${max}, got ${n}.`);
  return n;
}

/** Reads and validates the relay's environment; throws RelayConfigError on the first bad value. */
export function loadRelayConfig(env: NodeJS.ProcessEnv): RelayConfig {
  const host = (env.RELAY_HOST ?? RELAY_VARIABLES.RELAY_HOST.def).trim();
  if (!host || /\s|\//.test(host))
    throw new RelayConfigError(`RELAY_HOST must be a host name or address, got "${env.RELAY_HOST}".`);
  const port = int(env, 'RELAY_PORT');
  let publicBaseUrl: string | null = env.RELAY_PUBLIC_BASE_URL?.trim() || null;
  if (publicBaseUrl) {
    let u: URL | null = null;
    try {
      u = new URL(publicBaseUrl);
    } catch {}
    if (!u || !/^https?:$/.test(u.protocol) || u.search || u.hash)
      throw new RelayConfigError(
        `RELAY_PUBLIC_BASE_URL must be an http(s) URL without query, got "${publicBaseUrl}".`,
      );
    publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');
  }
  const redisUrl = env.REDIS_URL?.trim() || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    throw new RelayConfigError('REDIS_URL must start with redis:// or rediss://.');
  const queueKey = env.RELAY_QUEUE_KEY?.trim() || null;
  if (queueKey && queueKey.length < 32)
    throw new RelayConfigError(
      'RELAY_QUEUE_KEY must be at least 32 characters (e.g. openssl rand -base64 32).',
    );
  const plain = (env.RELAY_QUEUE_PLAIN ?? '').trim().toLowerCase();
  if (!['', '0', '1', 'true', 'false'].includes(plain))
    throw new RelayConfigError(`RELAY_QUEUE_PLAIN must be 1 or 0, got "${env.RELAY_QUEUE_PLAIN}".`);
  const plainQueue = plain === '1' || plain === 'true';
  if (redisUrl && !queueKey && !plainQueue)
    throw new RelayConfigError(
      'REDIS_URL is set but RELAY_QUEUE_KEY is not: set it (at least 32 characters, the same on every instance, e.g. openssl rand -base64 32) so no client key is ever stored readable in Redis, or set RELAY_QUEUE_PLAIN=1 to opt out.',
    );
  const logLevel = (env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel))
    throw new RelayConfigError(
      `LOG_LEVEL must be one of debug, info, warn, error, silent; got "${env.LOG_LEVEL}".`,
    );
  const trust = (env.RELAY_TRUST_PROXY ?? '').trim().toLowerCase();
  if (!['', '0', '1', 'true', 'false'].includes(trust))
    throw new RelayConfigError(`RELAY_TRUST_PROXY must be 1 or 0, got "${env.RELAY_TRUST_PROXY}".`);

  const limits: RelayLimits = { ...DEFAULT_LIMITS };
  for (const [name, key] of Object.entries(LIMIT_VARIABLES))
    limits[key] = int(env, name as keyof typeof RELAY_VARIABLES, limits[key]);
  if (env.RELAY_OFFLINE_AFTER_MS === undefined || env.RELAY_OFFLINE_AFTER_MS === '')
    limits.offlineAfterMs = Math.max(limits.offlineAfterMs, limits.pullWaitMs + 15_000);
  if (limits.offlineAfterMs <= limits.pullWaitMs)
    throw new RelayConfigError('RELAY_OFFLINE_AFTER_MS must be longer than RELAY_PULL_WAIT_MS.');
  // Headers can take at most as long as the whole request.
  const requestMs = int(env, 'RELAY_REQUEST_TIMEOUT_MS');
  const timeouts: HttpTimeouts = {
    headersMs: Math.min(int(env, 'RELAY_HEADERS_TIMEOUT_MS'), requestMs),
    requestMs,
    keepAliveMs: int(env, 'RELAY_KEEP_ALIVE_TIMEOUT_MS'),
  };
  return {
    host,
    port,
    publicBaseUrl,
    redisUrl,
    redisPrefix: env.RELAY_REDIS_PREFIX?.trim() || RELAY_VARIABLES.RELAY_REDIS_PREFIX.def,
    queueKey,
    plainQueue,
    trustProxy: trust === '1' || trust === 'true',
    logLevel: logLevel as LogLevel,
    shutdownGraceMs: int(env, 'RELAY_SHUTDOWN_GRACE_MS'),
    limits,
    timeouts,
  };
}
