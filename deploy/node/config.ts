import { resolve } from 'node:path';
import type { LogLevel } from '../../adapters/node/logger.ts';
import type { AuthMode } from '../../core/auth/authenticator.ts';
import { type AgentConfig, loadAgentConfig } from './agent-config.ts';
import { bool, ConfigError, type Env, int, isLoopback, oneOf, str, url } from './env.ts';

export { ConfigError };

/** The validated server environment (decisions.md section 1; README lists every variable). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  vaultDir: string;
  logLevel: LogLevel;
  maxBodyBytes: number;
  authMode: AuthMode;
  jwt: { secret?: string; jwksUrl?: string; issuer?: string; audience?: string; ttlSeconds: number } | null;
  pairingMode: 'relay' | 'open-port';
  /** RELAY_URL: an external relay; unset means the embedded one. */
  relayUrl: string | null;
  relayPort: number;
  relayHost: string;
  relayPublicBaseUrl: string | null;
  publicUrl: string | null;
  trustProxy: boolean;
  corsOrigins: string[];
  clientUrl: string | null;
  testClientUrl: string | null;
  localDevUiUrl: string;
  rateLimits: { authPerMinute: number; failures: number; failureWindowSeconds: number } | false;
  pairCodeTtlSeconds: number;
  /** How often the whole vault is compared with the index, in seconds. */
  reconcileSeconds: number;
  /** SHUTDOWN_GRACE_MS: how long a stop lets requests in flight finish before cutting them. */
  shutdownGraceMs: number;
  /** AGENT_*: the agent's provider and limits. */
  agent: AgentConfig;
}

/** Reads and validates the environment; throws ConfigError on the first bad value. */
export function loadConfig(env: Env, cwd = process.cwd()): ServerConfig {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  if (/\s|\//.test(host)) throw new ConfigError(`HOST must be a host name or address, got "${env.HOST}".`);
  const dataDir = resolve(cwd, str(env, 'DATA_DIR') ?? './data');
  const vaultDir = resolve(cwd, str(env, 'VAULT_DIR') ?? `${dataDir}/notes`);
  const logLevel = oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info');
  const maxBodyBytes = int(env, 'MAX_BODY_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024);

  const authMode = oneOf(env, 'SERVICE_AUTH_MODE', ['api-key', 'jwt', 'none'] as const, 'api-key');
  if (authMode === 'none' && !isLoopback(host) && !bool(env, 'ALLOW_INSECURE_NO_AUTH')) {
    throw new ConfigError(
      `SERVICE_AUTH_MODE=none refuses to listen on HOST=${host}: anyone could read your notes. Use a loopback HOST, or set ALLOW_INSECURE_NO_AUTH=1 if you really mean it.`,
    );
  }
  let jwt: ServerConfig['jwt'] = null;
  if (authMode === 'jwt') {
    const secret = str(env, 'JWT_SECRET');
    const jwksUrl = url(env, 'JWT_JWKS_URL');
    if (!secret && !jwksUrl)
      throw new ConfigError('SERVICE_AUTH_MODE=jwt needs JWT_SECRET (32+ characters) or JWT_JWKS_URL.');
    if (secret && secret.length < 32)
      throw new ConfigError('JWT_SECRET must be at least 32 characters long.');
    jwt = {
      ...(secret ? { secret } : {}),
      ...(jwksUrl ? { jwksUrl } : {}),
      ...(str(env, 'JWT_ISSUER') ? { issuer: str(env, 'JWT_ISSUER') } : {}),
      ...(str(env, 'JWT_AUDIENCE') ? { audience: str(env, 'JWT_AUDIENCE') } : {}),
      ttlSeconds: int(env, 'JWT_TTL_SECONDS', 900, 30, 86_400),
    };
  }

  const clientUrl = url(env, 'CLIENT_URL') ?? null;
  const testClientUrl = url(env, 'TEST_CLIENT_URL') ?? null;
  const localDevUiUrl = url(env, 'LOCAL_DEV_UI_URL') ?? 'http://localhost:5173';
  const corsRaw = str(env, 'CORS_ORIGINS');
  const corsOrigins = corsRaw
    ? corsRaw.split(',').map((o, i) => {
        const u = url({ [`CORS_ORIGINS[${i}]`]: o }, `CORS_ORIGINS[${i}]`)!;
        if (o.trim() === '*')
          throw new ConfigError('CORS_ORIGINS must list exact origins; "*" is not allowed.');
        return new URL(u).origin;
      })
    : [
        ...new Set(
          [clientUrl, testClientUrl, localDevUiUrl]
            .filter((u): u is string => !!u)
            .map((u) => new URL(u).origin),
        ),
      ];

  const rateLimitOn = bool(env, 'RATE_LIMIT', true);
  return {
    port,
    host,
    dataDir,
    vaultDir,
    logLevel,
    maxBodyBytes,
    authMode,
    jwt,
    pairingMode: oneOf(env, 'PAIRING_MODE', ['relay', 'open-port'] as const, 'relay'),
    relayUrl: url(env, 'RELAY_URL') ?? null,
    relayPort: int(env, 'RELAY_PORT', 8787, 0, 65535),
    relayHost: str(env, 'RELAY_HOST') ?? host,
    relayPublicBaseUrl: url(env, 'RELAY_PUBLIC_BASE_URL') ?? null,
    publicUrl: url(env, 'PUBLIC_URL') ?? null,
    trustProxy: bool(env, 'TRUST_PROXY'),
    corsOrigins,
    clientUrl,
    testClientUrl,
    localDevUiUrl,
    rateLimits: rateLimitOn
      ? {
          authPerMinute: int(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 30, 1, 100_000),
          failures: int(env, 'RATE_LIMIT_FAILURES', 20, 1, 100_000),
          failureWindowSeconds: int(env, 'RATE_LIMIT_FAILURE_WINDOW_SECONDS', 600, 1, 86_400),
        }
      : false,
    pairCodeTtlSeconds: int(env, 'PAIRING_CODE_TTL_SECONDS', 900, 30, 86_400),
    reconcileSeconds: int(env, 'RECONCILE_SECONDS', 300, 5, 86_400),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    agent: loadAgentConfig(env),
  };
}
