import { DEFAULT_LIMITS, type RelayLimits } from '../../../relay/service/types.ts';
import { ConfigError, type Env, type HttpTimeouts, type LogLevel, readVariables } from './read.ts';
import { RELAY_VARIABLES } from './variables.ts';

/** The validated relay environment (docs/configuration.md and docs/relay.md list every variable). */
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

/** The relay's name for the one configuration error (the server's ConfigError). */
export { ConfigError as RelayConfigError };

type LimitName = {
  [N in keyof typeof RELAY_VARIABLES]: (typeof RELAY_VARIABLES)[N] extends { limit: string } ? N : never;
}[keyof typeof RELAY_VARIABLES];

/** Environment variable → limit it sets (the table's `limit` entries). */
export const LIMIT_VARIABLES = Object.fromEntries(
  Object.entries(RELAY_VARIABLES).flatMap(([name, v]) => ('limit' in v ? [[name, v.limit]] : [])),
) as Record<LimitName, keyof RelayLimits>;
const LIMIT_NAMES = Object.keys(LIMIT_VARIABLES) as LimitName[];

/**
 * The relay's limits from RELAY_* variables (LIMIT_VARIABLES), for the standalone relay and the
 * one embedded in the note server alike.
 */
export function readRelayLimits(env: Env): RelayLimits {
  const vars = readVariables(RELAY_VARIABLES, env, LIMIT_NAMES);
  const limits: RelayLimits = { ...DEFAULT_LIMITS };
  for (const name of LIMIT_NAMES) limits[LIMIT_VARIABLES[name]] = vars[name];
  if (env.RELAY_OFFLINE_AFTER_MS === undefined || env.RELAY_OFFLINE_AFTER_MS.trim() === '')
    limits.offlineAfterMs = Math.max(limits.offlineAfterMs, limits.pullWaitMs + 15_000);
  if (limits.offlineAfterMs <= limits.pullWaitMs)
    throw new ConfigError('RELAY_OFFLINE_AFTER_MS must be longer than RELAY_PULL_WAIT_MS.');
  return limits;
}

/** Reads and validates the relay's environment (variables.ts); throws ConfigError on the first bad value. */
export function loadRelayConfig(env: Env): RelayConfig {
  const vars = readVariables(RELAY_VARIABLES, env);
  const redisUrl = vars.REDIS_URL ?? null;
  const queueKey = vars.RELAY_QUEUE_KEY ?? null;
  if (redisUrl && !queueKey && !vars.RELAY_QUEUE_PLAIN)
    throw new ConfigError(
      'REDIS_URL is set but RELAY_QUEUE_KEY is not: set it (at least 32 characters, the same on every instance, e.g. openssl rand -base64 32) so no client key is ever stored readable in Redis, or set RELAY_QUEUE_PLAIN=1 to opt out.',
    );
  return {
    host: vars.RELAY_HOST,
    port: vars.RELAY_PORT,
    publicBaseUrl: vars.RELAY_PUBLIC_BASE_URL ?? null,
    redisUrl,
    redisPrefix: vars.RELAY_REDIS_PREFIX,
    queueKey,
    plainQueue: vars.RELAY_QUEUE_PLAIN,
    trustProxy: vars.RELAY_TRUST_PROXY,
    logLevel: vars.LOG_LEVEL,
    shutdownGraceMs: vars.RELAY_SHUTDOWN_GRACE_MS,
    limits: readRelayLimits(env),
    // Headers can take at most as long as the whole request.
    timeouts: {
      headersMs: Math.min(vars.RELAY_HEADERS_TIMEOUT_MS, vars.RELAY_REQUEST_TIMEOUT_MS),
      requestMs: vars.RELAY_REQUEST_TIMEOUT_MS,
      keepAliveMs: vars.RELAY_KEEP_ALIVE_TIMEOUT_MS,
    },
  };
}
