import type { Context } from 'hono';
import { telegramSender, whatsappSender } from '../../adapters/channels/index.ts';
import { openAiEmbeddings } from '../../adapters/embeddings/openai-compatible.ts';
import { createApp } from '../../adapters/http/app.ts';
import type { ClientAssets } from '../../adapters/http/client-ui.ts';
import type { FrameStats } from '../../adapters/http/frame.ts';
import { stateListStore } from '../../adapters/http/list/persisted-list.ts';
import { createNoteCache } from '../../adapters/http/note-cache.ts';
import { createProvider } from '../../adapters/llm/create.ts';
import { oidcProvider } from '../../adapters/sso/oidc.ts';
import type { ToolSource } from '../../core/agent/types.ts';
import { createAuthenticator } from '../../core/auth/authenticator.ts';
import { createJwt } from '../../core/auth/jwt.ts';
import { createOAuthService } from '../../core/auth/oauth.ts';
import { createCore } from '../../core/create-core.ts';
import type { PinnedFetch } from '../../core/net/egress.ts';
import { publicRelayUrl, selfOrigins } from '../../core/net/origins.ts';
import type { BatchAnalyzer } from '../../core/notes/service.ts';
import type { PluginManager } from '../../core/plugins/manager.ts';
import type { PluginDefinition } from '../../core/plugins/types.ts';
import type { Clock, FileStore, HistoryStore, Logger, NoteStore, StateStore } from '../../core/ports.ts';
import type { SecurityDeps } from '../../core/security/service.ts';
import type { HttpTimeouts } from '../../core/security/types.ts';
import type { SetupConfig } from '../../core/setup.ts';
import type { ServerConfig } from './config/index.ts';

export { publicRelayUrl, selfOrigins };

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
  timeouts?: HttpTimeouts;
  /** False where the platform compresses answers itself (workerd); default true. */
  compress?: boolean;
  /** True where the runtime serves live editing's WebSocket (Node): only then are tickets issued. */
  liveDoor?: boolean;
}

/** What `composeApp` takes: the runtime's parts, the configuration and the built stores. */
export type ComposeOptions = RuntimeParts & {
  config: ServerConfig;
  store: NoteStore;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  version: string;
  analyze?: BatchAnalyzer;
  /** True while the runtime answers requests (core `busy`). */
  busy?: () => boolean;
  relayStatus?: () => unknown;
  /** Tools plugins contribute to the agent. */
  agentTools?: ToolSource;
  /** The HTTP client of the agent, the channel providers and the plugins (default: global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Plugins registered in code, beside the built-ins. */
  plugins?: readonly PluginDefinition[];
  /** The vault's attachments; absent means no `/api/v1/files` routes. */
  fileStore?: FileStore;
  /** Versions and trash. */
  historyStore?: HistoryStore;
};

/** The setup payload's configuration (relay URL, addresses, the connect links' bases). */
function setupConfigOf(config: ServerConfig, version: string): SetupConfig {
  return {
    version,
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
}

/** The start's log lines: authentication off, the plugins, the agent, semantic search. */
function logStart(
  core: { plugins: Pick<PluginManager, 'list'> },
  config: ServerConfig,
  logger: Logger,
): void {
  if (config.authMode === 'none') {
    logger.warn(
      'AUTHENTICATION IS OFF (SERVICE_AUTH_MODE=none): anyone who can reach this server can read and change every note. Development only.',
    );
  }
  logger.info('plugins', {
    installed: core.plugins.list().map((p) => p.id),
    enabled: core.plugins.list().flatMap((p) => (p.enabled ? [p.id] : [])),
  });
  logger.info('agent', {
    enabled: config.agent.enabled,
    provider: config.agent.provider,
    model: config.agent.model || 'quire-local-rules',
    baseURL: config.agent.baseURL,
  });
  if (config.embeddings) {
    logger.info('semantic search', {
      host: new URL(config.embeddings.url).host,
      model: config.embeddings.model,
    });
  }
}

/**
 * The composition every runtime root (Node, Bun, Deno, workerd) shares, without sockets: the
 * configuration and the adapters go into `createCore`, which builds the whole domain; the HTTP
 * app is made over it. Only adapters and configuration are chosen here.
 */
export async function composeApp(opts: ComposeOptions) {
  const { config, clock, logger } = opts;
  const setupConfig = setupConfigOf(config, opts.version);
  const core = createCore({
    store: opts.store,
    state: opts.state,
    clock,
    logger,
    analyze: opts.analyze,
    busy: opts.busy,
    settings: config,
    version: opts.version,
    providerFor: (fetch: typeof globalThis.fetch) => createProvider({ ...config.agent, fetch }),
    embeddingsFor: (fetch: typeof globalThis.fetch) =>
      config.embeddings ? openAiEmbeddings({ ...config.embeddings, fetch }) : undefined,
    sendersFor: (fetch: typeof globalThis.fetch) => ({
      telegram: telegramSender({ fetch, baseUrl: config.channels.telegramApiBaseUrl }),
      whatsapp: whatsappSender({ fetch, baseUrl: config.channels.whatsappApiBaseUrl }),
    }),
    fetch: opts.fetch,
    resolveHost: opts.resolveHost,
    pinnedFetch: opts.pinnedFetch,
    plugins: opts.plugins,
    agentTools: opts.agentTools,
    files: opts.fileStore,
    history: opts.historyStore,
    stateFileModes: opts.stateFileModes,
    timeouts: opts.timeouts,
    relayUrl: () => setupConfig.relayUrl,
  });
  await core.init();
  logStart(core, config, logger);
  const jwt = config.jwt ? createJwt({ ...config.jwt, clock }) : null;
  // Shared with the hot routes for cached note reads (adapters/http/hot.ts).
  const authenticator = createAuthenticator({
    mode: config.authMode,
    auth: core.auth,
    jwt,
    people: core.people,
  });
  // Quire as the OAuth authorization server of /mcp (MCP clients that only speak OAuth).
  const oauth =
    config.authMode === 'none'
      ? undefined
      : createOAuthService({ state: opts.state, clock, auth: core.auth, logger });
  await oauth?.init();
  const noteCache = createNoteCache(config.noteCacheBytes);
  // The gzip'd list kept next to the index snapshot, so a warm start answers it at once.
  const listStore = stateListStore(opts.state);
  const frameStats: FrameStats = { requests: 0 };
  const app = createApp({
    notes: core.notes,
    retrieval: core.retrieval,
    semantic: core.semantic,
    files: core.files,
    feed: core.feed,
    live: opts.liveDoor ? core.live : undefined,
    mcpWrite: config.mcpWrite,
    mcpMaxAnswerBytes: config.mcpMaxAnswerBytes,
    eventsStreamsPerKey: config.eventsStreamsPerKey,
    agent: core.agent,
    channels: core.channels,
    plugins: core.plugins,
    security: core.security,
    version: opts.version,
    clock,
    logger,
    authenticator,
    oauth,
    people: config.authMode === 'none' ? undefined : core.people,
    publications: config.authMode === 'none' ? undefined : core.publications,
    ...(config.sso && config.authMode !== 'none' ? { sso: oidcProvider(config.sso) } : {}),
    setup: {
      service: core.auth,
      jwt,
      config: setupConfig,
      publicUrl: config.publicUrl,
      relayStatus: opts.relayStatus,
    },
    corsOrigins: config.corsOrigins,
    rateLimits: config.rateLimits,
    trustProxy: config.trustProxy,
    socketAddress: opts.socketAddress,
    runtime: opts.runtime,
    maxBodyBytes: config.maxBodyBytes,
    noteCacheBytes: config.noteCacheBytes,
    noteCache,
    hotRoutes: config.hotRoutes,
    listChunks: config.listChunks,
    listStore,
    frameStats,
    compress: opts.compress,
    client: opts.clientAssets
      ? { assets: opts.clientAssets, relayUrl: () => setupConfig.relayUrl }
      : undefined,
  });
  return {
    app,
    core,
    notes: core.notes,
    auth: core.auth,
    setupConfig,
    agent: core.agent,
    channels: core.channels,
    plugins: core.plugins,
    security: core.security,
    feed: core.feed,
    live: core.live,
    semantic: core.semantic,
    lane: { authenticator, noteCache, frameStats },
    listStore,
  };
}
