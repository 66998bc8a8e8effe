import type { AuthMode } from '../../../core/auth/authenticator.ts';
import { remoteReachPaths } from '../../../core/security/exposure.ts';
import type { RelayLimits } from '../../../relay/service/types.ts';
import { type AgentConfig, loadAgentConfig } from './agent.ts';
import { type ChannelsConfig, loadChannelsConfig } from './channels.ts';
import { type EmbeddingsConfig, loadEmbeddingsConfig } from './embeddings.ts';
import {
  ConfigError,
  type Env,
  type HttpTimeouts,
  type LogLevel,
  resolvePath,
  url,
  workingDir,
} from './read.ts';
import { readRelayLimits } from './relay.ts';
import { readBool, readEnum, readInt, readStr, readUrl } from './variables.ts';

export { ConfigError };

/** The validated server environment (docs/configuration.md lists every variable). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  vaultDir: string;
  logLevel: LogLevel;
  maxBodyBytes: number;
  /** NOTE_CACHE_BYTES: budget of the encoded-note cache of the HTTP adapter. */
  noteCacheBytes: number;
  /** Largest attachment upload in bytes (MAX_FILE_BYTES). */
  maxFileBytes: number;
  /** HISTORY: keep versions and the trash (docs/history.md). */
  historyEnabled: boolean;
  /** Retention of versions and of the trash (HISTORY_MAX_AGE_DAYS, HISTORY_MAX_BYTES, TRASH_RETENTION_DAYS). */
  history: { maxAgeMs: number; maxBytes: number; trashMs: number; maxFileBytes: number };
  /** TRASH_DIR: `data` (the trash in DATA_DIR/history only) or `vault` (a copy in the vault's `.trash/` too). */
  trashDir: 'data' | 'vault';
  authMode: AuthMode;
  jwt: { secret?: string; jwksUrl?: string; issuer?: string; audience?: string; ttlSeconds: number } | null;
  pairingMode: 'relay' | 'open-port';
  /** RELAY_URL: an external relay; unset means the embedded one. */
  relayUrl: string | null;
  relayPort: number;
  relayHost: string;
  relayPublicBaseUrl: string | null;
  /** The embedded relay's limits (the RELAY_* limit variables, as the standalone relay reads them). */
  relayLimits: RelayLimits;
  publicUrl: string | null;
  trustProxy: boolean;
  corsOrigins: string[];
  clientUrl: string | null;
  testClientUrl: string | null;
  localDevUiUrl: string;
  rateLimits:
    | { authPerMinute: number; failures: number; failureWindowSeconds: number; webhookPerMinute: number }
    | false;
  pairCodeTtlSeconds: number;
  /** How often the whole vault is compared with the index, in seconds. */
  reconcileSeconds: number;
  /** EVENTS_RING_SIZE: recent change-feed events kept for resumes. */
  eventsRingSize: number;
  /** MCP_WRITE: the MCP endpoint lists and allows the write tools. */
  mcpWrite: boolean;
  /** EVENTS_STREAMS_PER_KEY: event streams open at once per credential. */
  eventsStreamsPerKey: number;
  /** MCP_MAX_ANSWER_BYTES: the largest answer to one MCP POST. */
  mcpMaxAnswerBytes: number;
  /** Workers: seconds after a write until the index cache is saved. */
  indexCacheSaveSeconds: number;
  /** FSYNC: note writes fsync the file and its folder (default true). */
  fsync: boolean;
  /** SHUTDOWN_GRACE_MS: how long a stop lets requests in flight finish before cutting them. */
  shutdownGraceMs: number;
  /** AGENT_*: the agent's provider and limits. */
  agent: AgentConfig;
  /** TELEGRAM_API_BASE_URL, WHATSAPP_API_BASE_URL. */
  channels: ChannelsConfig;
  /** EMBEDDINGS_*: the semantic search provider; null when off. */
  embeddings: EmbeddingsConfig | null;
  /** EGRESS_ALLOW: destinations (`host` or `host:port`) allowed although private. */
  egressAllow: string[];
  /** TLS_TERMINATED_BY_PROXY: a proxy in front of the server speaks HTTPS to clients. */
  tlsTerminatedByProxy: boolean;
  /** KEY_MAX_AGE_DAYS: the audit reports keys older than this. */
  keyMaxAgeDays: number;
  /** DEVICE_KEY_IDLE_DAYS: the audit reports device keys unused for longer than this. */
  deviceKeyIdleDays: number;
  /** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS (server and embedded relay). */
  timeouts: HttpTimeouts;
  /** One line the runtime logs at start (mode none turning relay pairing off), if any. */
  startNotice?: string;
}

/** The variables that ask for relay pairing. */
const RELAY_VARIABLES = ['PAIRING_MODE', 'RELAY_URL', 'RELAY_PUBLIC_BASE_URL', 'RELAY_HOST', 'RELAY_PORT'];

/** The socket time-outs from the environment; headers can take at most as long as the whole request. */
function loadTimeouts(env: Env): HttpTimeouts {
  const requestMs = readInt(env, 'REQUEST_TIMEOUT_MS');
  return {
    headersMs: Math.min(readInt(env, 'HEADERS_TIMEOUT_MS'), requestMs),
    requestMs,
    keepAliveMs: readInt(env, 'KEEP_ALIVE_TIMEOUT_MS'),
  };
}

/** Reads and validates the environment (bounds and defaults from variables.ts); `cwd` resolves relative paths; throws ConfigError on the first bad value. */
export function loadConfig(env: Env, cwd = workingDir()): ServerConfig {
  const port = readInt(env, 'PORT');
  const host = readStr(env, 'HOST');
  if (/\s|\//.test(host)) throw new ConfigError(`HOST must be a host name or address, got "${env.HOST}".`);
  const dataDir = resolvePath(cwd, readStr(env, 'DATA_DIR'));
  const vaultDir = resolvePath(cwd, readStr(env, 'VAULT_DIR') ?? `${dataDir}/notes`);
  const logLevel = readEnum(env, 'LOG_LEVEL');
  const maxBodyBytes = readInt(env, 'MAX_BODY_BYTES');

  const authMode = readEnum(env, 'SERVICE_AUTH_MODE');
  const allowInsecure = readBool(env, 'ALLOW_INSECURE_NO_AUTH');
  const relayUrl = readUrl(env, 'RELAY_URL') ?? null;
  const relayPublicBaseUrl = readUrl(env, 'RELAY_PUBLIC_BASE_URL') ?? null;
  let pairingMode = readEnum(env, 'PAIRING_MODE');
  let startNotice: string | undefined;
  // Mode none pairs with no relay unless asked to: with no relay variable set (PAIRING_MODE,
  // RELAY_URL, RELAY_PUBLIC_BASE_URL, RELAY_HOST, RELAY_PORT), it starts in open-port pairing and
  // says so; a relay asked for is refused below (docs/security.md).
  const relayAsked = RELAY_VARIABLES.some((name) => !!env[name]);
  if (authMode === 'none' && !allowInsecure && !relayAsked) {
    pairingMode = 'open-port';
    startNotice =
      'SERVICE_AUTH_MODE=none: relay pairing is off (PAIRING_MODE=open-port), so no relay forwards requests to this unauthenticated server.';
  }
  if (authMode === 'none' && !allowInsecure) {
    const paths = remoteReachPaths({
      host,
      pairingMode,
      relayUrl: relayPublicBaseUrl ?? relayUrl,
      embeddedRelayHost: pairingMode === 'relay' && !relayUrl ? (readStr(env, 'RELAY_HOST') ?? host) : null,
      trustProxy: readBool(env, 'TRUST_PROXY'),
    });
    if (paths.length) {
      throw new ConfigError(
        `SERVICE_AUTH_MODE=none refuses to start: ${paths.join('; ')}, so anyone could read your notes. Keep HOST on loopback with PAIRING_MODE=open-port and TRUST_PROXY off, or set ALLOW_INSECURE_NO_AUTH=1 if you really mean it.`,
      );
    }
  }
  let jwt: ServerConfig['jwt'] = null;
  if (authMode === 'jwt') {
    const secret = readStr(env, 'JWT_SECRET');
    const jwksUrl = readUrl(env, 'JWT_JWKS_URL');
    if (!secret && !jwksUrl)
      throw new ConfigError('SERVICE_AUTH_MODE=jwt needs JWT_SECRET (32+ characters) or JWT_JWKS_URL.');
    if (secret && secret.length < 32)
      throw new ConfigError('JWT_SECRET must be at least 32 characters long.');
    jwt = {
      ...(secret ? { secret } : {}),
      ...(jwksUrl ? { jwksUrl } : {}),
      ...(readStr(env, 'JWT_ISSUER') ? { issuer: readStr(env, 'JWT_ISSUER') } : {}),
      ...(readStr(env, 'JWT_AUDIENCE') ? { audience: readStr(env, 'JWT_AUDIENCE') } : {}),
      ttlSeconds: readInt(env, 'JWT_TTL_SECONDS'),
    };
  }

  const clientUrl = readUrl(env, 'CLIENT_URL') ?? null;
  const testClientUrl = readUrl(env, 'TEST_CLIENT_URL') ?? null;
  const localDevUiUrl = readUrl(env, 'LOCAL_DEV_UI_URL');
  const corsRaw = readStr(env, 'CORS_ORIGINS');
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

  const rateLimitOn = readBool(env, 'RATE_LIMIT');
  return {
    port,
    host,
    dataDir,
    vaultDir,
    logLevel,
    maxBodyBytes,
    noteCacheBytes: readInt(env, 'NOTE_CACHE_BYTES'),
    maxFileBytes: readInt(env, 'MAX_FILE_BYTES'),
    historyEnabled: readBool(env, 'HISTORY'),
    trashDir: readEnum(env, 'TRASH_DIR'),
    history: {
      maxAgeMs: readInt(env, 'HISTORY_MAX_AGE_DAYS') * 86_400_000,
      maxBytes: readInt(env, 'HISTORY_MAX_BYTES'),
      trashMs: readInt(env, 'TRASH_RETENTION_DAYS') * 86_400_000,
      maxFileBytes: readInt(env, 'HISTORY_MAX_FILE_BYTES'),
    },
    authMode,
    jwt,
    pairingMode,
    relayUrl,
    relayPort: readInt(env, 'RELAY_PORT'),
    relayHost: readStr(env, 'RELAY_HOST') ?? host,
    relayPublicBaseUrl,
    relayLimits: readRelayLimits(env),
    publicUrl: readUrl(env, 'PUBLIC_URL') ?? null,
    trustProxy: readBool(env, 'TRUST_PROXY'),
    corsOrigins,
    clientUrl,
    testClientUrl,
    localDevUiUrl,
    rateLimits: rateLimitOn
      ? {
          authPerMinute: readInt(env, 'RATE_LIMIT_AUTH_PER_MINUTE'),
          failures: readInt(env, 'RATE_LIMIT_FAILURES'),
          failureWindowSeconds: readInt(env, 'RATE_LIMIT_FAILURE_WINDOW_SECONDS'),
          webhookPerMinute: readInt(env, 'RATE_LIMIT_WEBHOOK_PER_MINUTE'),
        }
      : false,
    pairCodeTtlSeconds: readInt(env, 'PAIRING_CODE_TTL_SECONDS'),
    reconcileSeconds: readInt(env, 'RECONCILE_SECONDS'),
    indexCacheSaveSeconds: readInt(env, 'INDEX_CACHE_SAVE_SECONDS'),
    eventsRingSize: readInt(env, 'EVENTS_RING_SIZE'),
    mcpWrite: readBool(env, 'MCP_WRITE'),
    eventsStreamsPerKey: readInt(env, 'EVENTS_STREAMS_PER_KEY'),
    mcpMaxAnswerBytes: readInt(env, 'MCP_MAX_ANSWER_BYTES'),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS'),
    fsync: readBool(env, 'FSYNC'),
    agent: loadAgentConfig(env),
    channels: loadChannelsConfig(env),
    embeddings: loadEmbeddingsConfig(env),
    egressAllow: (readStr(env, 'EGRESS_ALLOW') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    tlsTerminatedByProxy: readBool(env, 'TLS_TERMINATED_BY_PROXY'),
    keyMaxAgeDays: readInt(env, 'KEY_MAX_AGE_DAYS'),
    deviceKeyIdleDays: readInt(env, 'DEVICE_KEY_IDLE_DAYS'),
    timeouts: loadTimeouts(env),
    ...(startNotice ? { startNotice } : {}),
  };
}
