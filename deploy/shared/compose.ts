import type { Context } from 'hono';
import { telegramSender, whatsappSender } from '../../adapters/channels/index.ts';
import { createApp } from '../../adapters/http/app.ts';
import type { ClientAssets } from '../../adapters/http/client-ui.ts';
import type { FrameStats } from '../../adapters/http/frame.ts';
import { createNoteCache } from '../../adapters/http/note-cache.ts';
import { createProvider } from '../../adapters/llm/index.ts';
import { createAgent } from '../../core/agent/agent.ts';
import type { ToolSource } from '../../core/agent/types.ts';
import { createAuthenticator } from '../../core/auth/authenticator.ts';
import { createJwt } from '../../core/auth/jwt.ts';
import { createAuthService } from '../../core/auth/service.ts';
import { createChannelService } from '../../core/channels/service.ts';
import { secureRandom } from '../../core/crypto.ts';
import { createFileService } from '../../core/files/service.ts';
import { createEgress, type PinnedFetch } from '../../core/net/egress.ts';
import { createChangeFeed } from '../../core/notes/change-feed.ts';
import type { NoteService } from '../../core/notes/service.ts';
import { createPluginManager } from '../../core/plugins/manager.ts';
import type { PluginDefinition } from '../../core/plugins/types.ts';
import type { Clock, FileStore, Logger, StateStore } from '../../core/ports.ts';
import { createSecurityService, type SecurityDeps } from '../../core/security/service.ts';
import type { SetupConfig } from '../../core/setup.ts';
import type { ServerConfig } from '../node/config.ts';
import { isLoopback } from '../node/env.ts';
import { securitySettings } from './security-settings.ts';

/**
 * The relay address clients are told to use: the public base (the relay as clients reach it,
 * also when the server reaches RELAY_URL at an internal address, as in deploy/compose.yaml),
 * else RELAY_URL, else the embedded relay.
 */
export function publicRelayUrl(config: ServerConfig): string | null {
  if (config.pairingMode !== 'relay') return null;
  if (config.relayPublicBaseUrl) return config.relayPublicBaseUrl;
  if (config.relayUrl) return config.relayUrl;
  const host = config.publicUrl ? new URL(config.publicUrl).hostname : config.host;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${config.relayPort}`;
}

/**
 * The origins the server's own pages are loaded from once it listens on `port` (PUBLIC_URL, the
 * listening address, and `localhost` for a loopback host): the client UI it serves calls the
 * relay's /r/<serverId> address cross-origin, so CORS must allow them.
 */
export function selfOrigins(config: ServerConfig, port: number): string[] {
  const out = new Set<string>();
  if (config.publicUrl) out.add(new URL(config.publicUrl).origin);
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const host = wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  out.add(`http://${host}:${port}`);
  if (wildcard || isLoopback(config.host)) out.add(`http://localhost:${port}`);
  return [...out];
}

/** What differs between runtimes once the stores are built. */
export interface RuntimeParts {
  /** Name and version for system/info. */
  runtime: { name: string; version: string };
  /** The client's socket address, as the runtime tells it. */
  socketAddress?: (c: Context) => string | undefined;
  /** The built client UI; absent means /link and /workspace are not served. */
  clientAssets?: ClientAssets;
  /** DNS lookups for the plugins' egress check; absent means only names and literal IPs are checked. */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** Connects to a checked address (Node: http/https with a fixed lookup); absent: fetch by name. */
  pinnedFetch?: PinnedFetch;
  /** Permission bits of the state files, for the audit; absent where there are no files. */
  stateFileModes?: SecurityDeps['stateFileModes'];
  /** Socket time-outs the runtime enforces against slow clients (for the audit); absent: none. */
  timeouts?: { headersMs: number; requestMs: number; keepAliveMs: number };
  /** False where the platform compresses answers itself (workerd); default true. */
  compress?: boolean;
}

/**
 * Builds auth, the agent and the HTTP app from the config: the wiring every composition root
 * (Node, Bun, Deno, workerd) shares, without sockets or stores.
 */
export async function composeApp(
  opts: RuntimeParts & {
    config: ServerConfig;
    notes: NoteService;
    state: StateStore;
    clock: Clock;
    logger: Logger;
    version: string;
    relayStatus?: () => unknown;
    /** Tools plugins contribute to the agent. */
    agentTools?: ToolSource;
    /** The HTTP client of the agent, the channel providers and the plugins (default: global fetch). */
    fetch?: typeof globalThis.fetch;
    /** Plugins registered in code, beside the built-ins. */
    plugins?: readonly PluginDefinition[];
    /** The vault's attachments; absent means no `/api/v1/files` routes. */
    fileStore?: FileStore;
  },
) {
  const { config, notes, state, clock, logger } = opts;
  const service = createAuthService({
    state,
    clock,
    logger,
    pairCodeTtlMs: config.pairCodeTtlSeconds * 1000,
  });
  await service.init();
  const jwt = config.jwt ? createJwt({ ...config.jwt, clock }) : null;
  if (config.authMode === 'none') {
    logger.warn(
      'AUTHENTICATION IS OFF (SERVICE_AUTH_MODE=none): anyone who can reach this server can read and change every note. Development only.',
    );
  }
  const setupConfig: SetupConfig = {
    version: opts.version,
    authMode: config.authMode,
    pairingMode: config.pairingMode,
    relayUrl: publicRelayUrl(config),
    host: config.host,
    port: config.port,
    cors: config.corsOrigins,
    clientUrl: config.clientUrl,
    testClientUrl: config.testClientUrl,
    localDevUiUrl: config.localDevUiUrl,
  };
  const egress = createEgress({
    fetch: opts.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    resolveHost: opts.resolveHost,
    // An injected fetch (tests, workers) is used as it is; the runtime's pinned fetch otherwise.
    pinnedFetch: opts.fetch ? undefined : opts.pinnedFetch,
    allowHosts: [...config.egressAllow, ...operatorHosts(config)],
  });
  const plugins = createPluginManager({
    notes,
    state,
    clock,
    logger,
    fetch: opts.fetch,
    egress,
    resolveHost: opts.resolveHost,
    version: opts.version,
    plugins: opts.plugins,
  });
  await plugins.load();
  logger.info('plugins', {
    installed: plugins.list().map((p) => p.id),
    enabled: plugins.list().flatMap((p) => (p.enabled ? [p.id] : [])),
  });
  const agent = createAgent({
    notes,
    clock,
    logger,
    provider: createProvider({ ...config.agent, fetch: egress.fetchFn() }),
    enabled: config.agent.enabled,
    extraTools: () => [...(opts.agentTools?.() ?? []), ...plugins.tools()],
    maxSteps: config.agent.maxSteps,
    timeoutMs: config.agent.timeoutMs,
  });
  logger.info('agent', {
    enabled: config.agent.enabled,
    provider: config.agent.provider,
    model: config.agent.model || 'quire-local-rules',
    baseURL: config.agent.baseURL,
  });
  const channels = createChannelService({
    state,
    clock,
    logger,
    agent,
    random: secureRandom,
    egress,
    senders: {
      telegram: telegramSender({ fetch: egress.fetchFn(), baseUrl: config.channels.telegramApiBaseUrl }),
      whatsapp: whatsappSender({ fetch: egress.fetchFn(), baseUrl: config.channels.whatsappApiBaseUrl }),
    },
  });
  await channels.load();
  const security = createSecurityService({
    clock,
    auth: service,
    stateFileModes: opts.stateFileModes,
    channels: () =>
      channels.list().map((c) => ({
        id: c.id,
        provider: c.provider,
        enabled: c.enabled,
        // A web channel has no public webhook: its messages come through protected routes.
        signatureCheck:
          c.provider === 'web' ||
          (c.provider === 'telegram' ? c.secrets.secretToken : c.secrets.appSecret) === true,
      })),
    plugins: () => plugins.egress().map(({ id, enabled, egress }) => ({ id, enabled, egress })),
    settings: () => securitySettings(config, setupConfig.relayUrl, opts.timeouts),
  });
  const files = opts.fileStore
    ? createFileService({ store: opts.fileStore, clock, maxBytes: config.maxFileBytes })
    : undefined;
  const feed = createChangeFeed({ notes, now: () => clock.now(), size: config.eventsRingSize });
  // Shared with a runtime's fast lane for cached note reads (adapters/node/read-lane.ts).
  const authenticator = createAuthenticator({ mode: config.authMode, auth: service, jwt });
  const noteCache = createNoteCache(config.noteCacheBytes);
  const frameStats: FrameStats = { requests: 0 };
  const app = createApp({
    notes,
    files,
    feed,
    mcpWrite: config.mcpWrite,
    agent,
    channels,
    plugins,
    security,
    version: opts.version,
    clock,
    logger,
    authenticator,
    setup: { service, jwt, config: setupConfig, publicUrl: config.publicUrl, relayStatus: opts.relayStatus },
    corsOrigins: config.corsOrigins,
    rateLimits: config.rateLimits,
    trustProxy: config.trustProxy,
    socketAddress: opts.socketAddress,
    runtime: opts.runtime,
    maxBodyBytes: config.maxBodyBytes,
    noteCacheBytes: config.noteCacheBytes,
    noteCache,
    frameStats,
    compress: opts.compress,
    client: opts.clientAssets
      ? { assets: opts.clientAssets, relayUrl: () => setupConfig.relayUrl }
      : undefined,
  });
  return {
    app,
    auth: service,
    setupConfig,
    agent,
    channels,
    plugins,
    security,
    feed,
    lane: { authenticator, noteCache, frameStats },
  };
}

/** The destinations the operator named in the environment: always allowed by the egress policy. */
function operatorHosts(config: ServerConfig): string[] {
  const urls = [config.agent.baseURL, config.channels.telegramApiBaseUrl, config.channels.whatsappApiBaseUrl];
  return urls.flatMap((u) => (u && URL.canParse(u) ? [new URL(u).host] : []));
}
