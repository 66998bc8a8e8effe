import type { Context } from 'hono';
import { createApp } from '../../adapters/http/app.ts';
import type { ClientAssets } from '../../adapters/http/client-ui.ts';
import { createProvider } from '../../adapters/llm/index.ts';
import { createAgent } from '../../core/agent/agent.ts';
import type { ToolSource } from '../../core/agent/types.ts';
import { createAuthenticator } from '../../core/auth/authenticator.ts';
import { createJwt } from '../../core/auth/jwt.ts';
import { createAuthService } from '../../core/auth/service.ts';
import type { NoteService } from '../../core/notes.ts';
import type { Clock, Logger, StateStore } from '../../core/ports.ts';
import type { SetupConfig } from '../../core/setup.ts';
import type { ServerConfig } from '../node/config.ts';

/** The relay address clients are told to use: RELAY_URL, the public base, or the embedded relay. */
export function publicRelayUrl(config: ServerConfig): string | null {
  if (config.pairingMode !== 'relay') return null;
  if (config.relayUrl) return config.relayUrl;
  if (config.relayPublicBaseUrl) return config.relayPublicBaseUrl;
  const host = config.publicUrl ? new URL(config.publicUrl).hostname : config.host;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${config.relayPort}`;
}

/** What differs between runtimes once the stores are built. */
export interface RuntimeParts {
  /** Name and version for system/info. */
  runtime: { name: string; version: string };
  /** The client's socket address, as the runtime tells it. */
  socketAddress?: (c: Context) => string | undefined;
  /** The built client UI; absent means /link and /workspace are not served. */
  clientAssets?: ClientAssets;
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
    /** The agent's HTTP client (default: global fetch). */
    fetch?: typeof globalThis.fetch;
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
  const agent = createAgent({
    notes,
    clock,
    logger,
    provider: createProvider({ ...config.agent, fetch: opts.fetch }),
    enabled: config.agent.enabled,
    extraTools: opts.agentTools,
    maxSteps: config.agent.maxSteps,
    timeoutMs: config.agent.timeoutMs,
  });
  logger.info('agent', {
    enabled: config.agent.enabled,
    provider: config.agent.provider,
    model: config.agent.model || 'quire-local-rules',
    baseURL: config.agent.baseURL,
  });
  const app = createApp({
    notes,
    agent,
    version: opts.version,
    clock,
    logger,
    authenticator: createAuthenticator({ mode: config.authMode, auth: service, jwt }),
    setup: { service, jwt, config: setupConfig, publicUrl: config.publicUrl, relayStatus: opts.relayStatus },
    corsOrigins: config.corsOrigins,
    rateLimits: config.rateLimits,
    trustProxy: config.trustProxy,
    socketAddress: opts.socketAddress,
    runtime: opts.runtime,
    maxBodyBytes: config.maxBodyBytes,
    client: opts.clientAssets
      ? { assets: opts.clientAssets, relayUrl: () => setupConfig.relayUrl }
      : undefined,
  });
  return { app, auth: service, setupConfig, agent };
}
