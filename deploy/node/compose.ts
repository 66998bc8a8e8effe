import { fileURLToPath } from 'node:url';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { telegramSender, whatsappSender } from '../../adapters/channels/index.ts';
import { createApp } from '../../adapters/http/app.ts';
import { createProvider } from '../../adapters/llm/index.ts';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import { nodeResolveHost } from '../../adapters/node/resolve-host.ts';
import { createAgent } from '../../core/agent/agent.ts';
import type { ToolSource } from '../../core/agent/types.ts';
import { createAuthenticator } from '../../core/auth/authenticator.ts';
import { createJwt } from '../../core/auth/jwt.ts';
import { createAuthService } from '../../core/auth/service.ts';
import { createChannelService } from '../../core/channels/service.ts';
import { secureRandom } from '../../core/crypto.ts';
import type { NoteService } from '../../core/notes.ts';
import { createPluginManager } from '../../core/plugins/manager.ts';
import type { PluginDefinition } from '../../core/plugins/types.ts';
import type { Clock, Logger, StateStore } from '../../core/ports.ts';
import type { SetupConfig } from '../../core/setup.ts';
import type { ServerConfig } from './config.ts';
import { isLoopback } from './env.ts';

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

/** The built client UI this server serves at /link and /workspace. */
export const CLIENT_DIST_DIR = fileURLToPath(new URL('../../client-link/dist', import.meta.url));

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

/** Builds auth and the HTTP app from the config (the Node root's wiring, without sockets). */
export async function composeApp(opts: {
  config: ServerConfig;
  notes: NoteService;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  version: string;
  relayStatus?: () => unknown;
  /** Tools plugins contribute to the agent. */
  agentTools?: ToolSource;
  /** The HTTP client of the agent and the channel providers (default: global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Plugins registered in code, beside the built-ins. */
  plugins?: readonly PluginDefinition[];
}) {
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
  const plugins = createPluginManager({
    notes,
    state,
    clock,
    logger,
    fetch: opts.fetch,
    resolveHost: nodeResolveHost,
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
    provider: createProvider({ ...config.agent, fetch: opts.fetch }),
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
    senders: {
      telegram: telegramSender({ fetch: opts.fetch, baseUrl: config.channels.telegramApiBaseUrl }),
      whatsapp: whatsappSender({ fetch: opts.fetch, baseUrl: config.channels.whatsappApiBaseUrl }),
    },
  });
  await channels.load();
  const app = createApp({
    notes,
    agent,
    channels,
    plugins,
    version: opts.version,
    clock,
    logger,
    authenticator: createAuthenticator({ mode: config.authMode, auth: service, jwt }),
    setup: { service, jwt, config: setupConfig, publicUrl: config.publicUrl, relayStatus: opts.relayStatus },
    corsOrigins: config.corsOrigins,
    rateLimits: config.rateLimits,
    trustProxy: config.trustProxy,
    socketAddress: (c: Context) => {
      // Requests from the relay connector have no socket; the relay put the client in X-Forwarded-For.
      if ((c.env as { relayed?: boolean } | undefined)?.relayed) {
        return c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim() ?? 'relay';
      }
      try {
        return getConnInfo(c).remote.address;
      } catch {
        return undefined;
      }
    },
    runtime: { name: 'node', version: process.version },
    maxBodyBytes: config.maxBodyBytes,
    client: { assets: fsClientAssets(CLIENT_DIST_DIR), relayUrl: () => setupConfig.relayUrl },
  });
  return { app, auth: service, setupConfig, agent, channels, plugins };
}
