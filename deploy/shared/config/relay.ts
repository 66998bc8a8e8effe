import type { RelayConfig as RelayServerConfig } from '../../../relay/node/config.ts';
import { DEFAULT_LIMITS, defaultOfflineAfterMs, type RelayLimits } from '../../../relay/service/types.ts';
import { ConfigError, type Env, type LogLevel, readVariables } from './read.ts';
import { RELAY_VARIABLES } from './variables.ts';

/**
 * The validated relay environment (docs/reference/configuration.md and docs/reference/relay.md list every variable):
 * what the relay server takes (relay/node/config.ts), and the level of its root's logger.
 */
export interface RelayConfig extends RelayServerConfig {
  logLevel: LogLevel;
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
    limits.offlineAfterMs = defaultOfflineAfterMs(limits.pullWaitMs);
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
    hotRoutes: vars.HOT_ROUTES,
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
