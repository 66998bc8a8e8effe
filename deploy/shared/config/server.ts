import type { AuthMode } from '../../../core/auth/authenticator.ts';
import type { JwtOptions } from '../../../core/auth/jwt.ts';
import { isLoopbackHost } from '../../../core/net/hosts.ts';
import { remoteReachPaths } from '../../../core/security/exposure.ts';
import { loadAgentConfig } from './agent.ts';
import { loadEmbeddingsConfig } from './embeddings.ts';
import { ConfigError, type Env, readVariables, resolvePath, workingDir } from './read.ts';
import { readRelayLimits } from './relay.ts';
import { SERVER_VARIABLES } from './variables.ts';

export { ConfigError };

/**
 * The validated server environment: what loadConfig returns, each field read from the variable of
 * the same meaning (docs/reference/configuration.md lists them).
 */
export type ServerConfig = ReturnType<typeof loadConfig>;
/** TELEGRAM_API_BASE_URL, WHATSAPP_API_BASE_URL: the channels' provider APIs. */
export type ChannelsConfig = ServerConfig['channels'];
/** SERVICE_AUTH_MODE=jwt's settings: the JWT options of core/auth/jwt.ts, the clock aside. */
type JwtConfig = Omit<JwtOptions, 'clock' | 'ttlSeconds'> & { ttlSeconds: number };

/** The variables that ask for relay pairing. */
const RELAY_PAIRING = ['PAIRING_MODE', 'RELAY_URL', 'RELAY_PUBLIC_BASE_URL', 'RELAY_HOST', 'RELAY_PORT'];
const DAY_MS = 86_400_000;

/** Reads and validates the environment (variables.ts); `cwd` resolves relative paths; throws ConfigError on the first bad value. */
export function loadConfig(env: Env, cwd = workingDir()) {
  const vars = readVariables(SERVER_VARIABLES, env);
  const host = vars.HOST;
  const dataDir = resolvePath(cwd, vars.DATA_DIR);
  const authMode: AuthMode = vars.SERVICE_AUTH_MODE;
  const allowInsecure = vars.ALLOW_INSECURE_NO_AUTH;
  const relayUrl = vars.RELAY_URL ?? null;
  const relayPublicBaseUrl = vars.RELAY_PUBLIC_BASE_URL ?? null;
  let pairingMode = vars.PAIRING_MODE;
  /** One line the runtime logs at start (mode none turning relay pairing off), if any. */
  let startNotice: string | undefined;
  // Mode none pairs with no relay unless asked to: with no relay variable set (PAIRING_MODE,
  // RELAY_URL, RELAY_PUBLIC_BASE_URL, RELAY_HOST, RELAY_PORT), it starts in open-port pairing and
  // says so; a relay asked for is refused below (docs/reference/security.md).
  const relayAsked = RELAY_PAIRING.some((name) => !!env[name]);
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
      embeddedRelayHost: pairingMode === 'relay' && !relayUrl ? (vars.RELAY_HOST ?? host) : null,
      trustProxy: vars.TRUST_PROXY,
    });
    if (paths.length) {
      throw new ConfigError(
        `SERVICE_AUTH_MODE=none refuses to start: ${paths.join('; ')}, so anyone could read your notes. Keep HOST on loopback with PAIRING_MODE=open-port and TRUST_PROXY off, or set ALLOW_INSECURE_NO_AUTH=1 if you really mean it.`,
      );
    }
  }
  let jwt: JwtConfig | null = null;
  if (authMode === 'jwt') {
    const [secret, jwksUrl, issuer, audience] = [
      vars.JWT_SECRET,
      vars.JWT_JWKS_URL,
      vars.JWT_ISSUER,
      vars.JWT_AUDIENCE,
    ];
    if (!secret && !jwksUrl)
      throw new ConfigError('SERVICE_AUTH_MODE=jwt needs JWT_SECRET (32+ characters) or JWT_JWKS_URL.');
    if (secret && secret.length < 32)
      throw new ConfigError('JWT_SECRET must be at least 32 characters long.');
    jwt = {
      ...(secret ? { secret } : {}),
      ...(jwksUrl ? { jwksUrl } : {}),
      ...(issuer ? { issuer } : {}),
      ...(audience ? { audience } : {}),
      ttlSeconds: vars.JWT_TTL_SECONDS,
    };
  }

  const sso = readSso(vars.OIDC_ISSUER, vars.OIDC_CLIENT_ID, vars.OIDC_CLIENT_SECRET);

  const clientUrl = vars.CLIENT_URL ?? null;
  const testClientUrl = vars.TEST_CLIENT_URL ?? null;
  const localDevUiUrl = vars.LOCAL_DEV_UI_URL;
  const corsOrigins = vars.CORS_ORIGINS?.length
    ? vars.CORS_ORIGINS
    : [
        ...new Set(
          [clientUrl, testClientUrl, localDevUiUrl].filter((u) => !!u).map((u) => new URL(u!).origin),
        ),
      ];
  return {
    port: vars.PORT,
    host,
    dataDir,
    vaultDir: resolvePath(cwd, vars.VAULT_DIR ?? `${dataDir}/notes`),
    logLevel: vars.LOG_LEVEL,
    maxBodyBytes: vars.MAX_BODY_BYTES,
    noteCacheBytes: vars.NOTE_CACHE_BYTES,
    maxFileBytes: vars.MAX_FILE_BYTES,
    historyEnabled: vars.HISTORY,
    trashDir: vars.TRASH_DIR,
    history: {
      maxAgeMs: vars.HISTORY_MAX_AGE_DAYS * DAY_MS,
      maxBytes: vars.HISTORY_MAX_BYTES,
      trashMs: vars.TRASH_RETENTION_DAYS * DAY_MS,
      maxFileBytes: vars.HISTORY_MAX_FILE_BYTES,
    },
    authMode,
    jwt,
    sso,
    pairingMode,
    relayUrl,
    relayTransport: vars.RELAY_TRANSPORT,
    relayPort: vars.RELAY_PORT,
    relayHost: vars.RELAY_HOST ?? host,
    relayPublicBaseUrl,
    relayLimits: readRelayLimits(env),
    publicUrl: vars.PUBLIC_URL ?? null,
    trustProxy: vars.TRUST_PROXY,
    corsOrigins,
    clientUrl,
    testClientUrl,
    localDevUiUrl,
    rateLimits: vars.RATE_LIMIT
      ? {
          authPerMinute: vars.RATE_LIMIT_AUTH_PER_MINUTE,
          failures: vars.RATE_LIMIT_FAILURES,
          failureWindowSeconds: vars.RATE_LIMIT_FAILURE_WINDOW_SECONDS,
          webhookPerMinute: vars.RATE_LIMIT_WEBHOOK_PER_MINUTE,
        }
      : (false as const),
    pairCodeTtlSeconds: vars.PAIRING_CODE_TTL_SECONDS,
    reconcileSeconds: vars.RECONCILE_SECONDS,
    indexCacheSaveSeconds: vars.INDEX_CACHE_SAVE_SECONDS,
    eventsRingSize: vars.EVENTS_RING_SIZE,
    liveDebounceMs: vars.LIVE_DEBOUNCE_MS,
    liveRecheckMs: vars.LIVE_RECHECK_MS,
    mcpWrite: vars.MCP_WRITE,
    hotRoutes: vars.HOT_ROUTES,
    listChunks: vars.LIST_CHUNKS,
    eventsStreamsPerKey: vars.EVENTS_STREAMS_PER_KEY,
    mcpMaxAnswerBytes: vars.MCP_MAX_ANSWER_BYTES,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
    fsync: vars.FSYNC,
    agent: loadAgentConfig(env),
    channels: {
      telegramApiBaseUrl: vars.TELEGRAM_API_BASE_URL,
      whatsappApiBaseUrl: vars.WHATSAPP_API_BASE_URL,
    },
    embeddings: loadEmbeddingsConfig(env),
    egressAllow: vars.EGRESS_ALLOW ?? [],
    tlsTerminatedByProxy: vars.TLS_TERMINATED_BY_PROXY,
    keyMaxAgeDays: vars.KEY_MAX_AGE_DAYS,
    deviceKeyIdleDays: vars.DEVICE_KEY_IDLE_DAYS,
    // Headers can take at most as long as the whole request.
    timeouts: {
      headersMs: Math.min(vars.HEADERS_TIMEOUT_MS, vars.REQUEST_TIMEOUT_MS),
      requestMs: vars.REQUEST_TIMEOUT_MS,
      keepAliveMs: vars.KEEP_ALIVE_TIMEOUT_MS,
    },
    ...(startNotice ? { startNotice } : {}),
  };
}

/** Single sign-on's settings, or null when OIDC_ISSUER is unset; a half-set or plain-HTTP one refuses to start. */
function readSso(issuer?: string, clientId?: string, clientSecret?: string) {
  if (!issuer) {
    if (clientId || clientSecret)
      throw new ConfigError('OIDC_CLIENT_ID and OIDC_CLIENT_SECRET need OIDC_ISSUER.');
    return null;
  }
  if (!clientId)
    throw new ConfigError('OIDC_ISSUER needs OIDC_CLIENT_ID (the client id Quire has at the issuer).');
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw new ConfigError('OIDC_ISSUER must be an https address (plain http only on loopback).');
  return { issuer, clientId, ...(clientSecret ? { clientSecret } : {}) };
}
