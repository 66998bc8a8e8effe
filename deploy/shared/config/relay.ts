import type { RelayConfig as RelayServerConfig } from '../../../relay/node/config.ts';
import { DEFAULT_LIMITS, defaultOfflineAfterMs, type RelayLimits } from '../../../relay/service/types.ts';
import { ConfigError, type Env, type HttpTimeouts, type LogLevel } from './read.ts';
import { RELAY_VARIABLES } from './relay-variables.ts';
import { readersFor } from './variables.ts';

/**
 * The validated relay environment (docs/configuration.md and docs/relay.md list every variable):
 * what the relay server takes (relay/node/config.ts), and the level of its root's logger.
 */
export interface RelayConfig extends RelayServerConfig {
  logLevel: LogLevel;
}

/** The relay's name for the one configuration error (the server's ConfigError). */
export { ConfigError as RelayConfigError };

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
  RELAY_RATE_UNAUTH_PER_SERVER: 'proxyUnauthPerServer',
  RELAY_MAX_OPEN_PER_CLIENT: 'maxOpenPerClient',
  RELAY_MAX_INFLIGHT_BYTES_PER_CLIENT: 'maxInflightBytesPerClient',
  RELAY_MAX_INFLIGHT_BYTES: 'maxInflightBytes',
  RELAY_BODY_TIMEOUT_MS: 'bodyTimeoutMs',
};

const { readInt, readBool, readEnum, readUrl, readStr } = readersFor(RELAY_VARIABLES);
type LimitVariable = Parameters<typeof readInt>[1];

/**
 * The relay's limits from RELAY_* variables (LIMIT_VARIABLES), for the standalone relay and the
 * one embedded in the note server alike.
 */
export function readRelayLimits(env: Env): RelayLimits {
  const limits: RelayLimits = { ...DEFAULT_LIMITS };
  for (const [name, key] of Object.entries(LIMIT_VARIABLES))
    limits[key] = readInt(env, name as LimitVariable, limits[key]);
  if (env.RELAY_OFFLINE_AFTER_MS === undefined || env.RELAY_OFFLINE_AFTER_MS.trim() === '')
    limits.offlineAfterMs = defaultOfflineAfterMs(limits.pullWaitMs);
  if (limits.offlineAfterMs <= limits.pullWaitMs)
    throw new ConfigError('RELAY_OFFLINE_AFTER_MS must be longer than RELAY_PULL_WAIT_MS.');
  return limits;
}

/** Reads and validates the relay's environment; throws ConfigError on the first bad value. */
export function loadRelayConfig(env: Env): RelayConfig {
  const host = readStr(env, 'RELAY_HOST');
  if (/\s|\//.test(host))
    throw new ConfigError(`RELAY_HOST must be a host name or address, got "${env.RELAY_HOST}".`);
  const port = readInt(env, 'RELAY_PORT');
  const publicBaseUrl = readUrl(env, 'RELAY_PUBLIC_BASE_URL') ?? null;
  const redisUrl = readStr(env, 'REDIS_URL') ?? null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://.');
  const queueKey = readStr(env, 'RELAY_QUEUE_KEY') ?? null;
  if (queueKey && queueKey.length < 32)
    throw new ConfigError('RELAY_QUEUE_KEY must be at least 32 characters (e.g. openssl rand -base64 32).');
  const plainQueue = readBool(env, 'RELAY_QUEUE_PLAIN');
  if (redisUrl && !queueKey && !plainQueue)
    throw new ConfigError(
      'REDIS_URL is set but RELAY_QUEUE_KEY is not: set it (at least 32 characters, the same on every instance, e.g. openssl rand -base64 32) so no client key is ever stored readable in Redis, or set RELAY_QUEUE_PLAIN=1 to opt out.',
    );
  const logLevel = readEnum(env, 'LOG_LEVEL');
  const trustProxy = readBool(env, 'RELAY_TRUST_PROXY');

  const limits = readRelayLimits(env);
  // Headers can take at most as long as the whole request.
  const requestMs = readInt(env, 'RELAY_REQUEST_TIMEOUT_MS');
  const timeouts: HttpTimeouts = {
    headersMs: Math.min(readInt(env, 'RELAY_HEADERS_TIMEOUT_MS'), requestMs),
    requestMs,
    keepAliveMs: readInt(env, 'RELAY_KEEP_ALIVE_TIMEOUT_MS'),
  };
  return {
    host,
    port,
    publicBaseUrl,
    redisUrl,
    redisPrefix: readStr(env, 'RELAY_REDIS_PREFIX'),
    queueKey,
    plainQueue,
    trustProxy,
    logLevel: logLevel as LogLevel,
    shutdownGraceMs: readInt(env, 'RELAY_SHUTDOWN_GRACE_MS'),
    limits,
    timeouts,
  };
}
