import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { createApp } from '../../adapters/http/app.ts';
import { createProvider } from '../../adapters/llm/index.ts';
import { stateFileModes } from '../../adapters/node/state-file-modes.ts';
import { createAgent } from '../../core/agent/agent.ts';
import type { ToolSource } from '../../core/agent/types.ts';
import { createAuthenticator } from '../../core/auth/authenticator.ts';
import { createJwt } from '../../core/auth/jwt.ts';
import { createAuthService } from '../../core/auth/service.ts';
import type { NoteService } from '../../core/notes.ts';
import type { Clock, Logger, StateStore } from '../../core/ports.ts';
import { createSecurityService, type SecurityDeps } from '../../core/security/service.ts';
import type { SetupConfig } from '../../core/setup.ts';
import type { ServerConfig } from './config.ts';

/** The relay address clients are told to use: RELAY_URL, the public base, or the embedded relay. */
export function publicRelayUrl(config: ServerConfig): string | null {
  if (config.pairingMode !== 'relay') return null;
  if (config.relayUrl) return config.relayUrl;
  if (config.relayPublicBaseUrl) return config.relayPublicBaseUrl;
  const host = config.publicUrl ? new URL(config.publicUrl).hostname : config.host;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${config.relayPort}`;
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
  /** The agent's HTTP client (default: global fetch). */
  fetch?: typeof globalThis.fetch;
  /** What the security audit reads about channels and plugins (default: none). */
  securitySources?: Pick<SecurityDeps, 'channels' | 'plugins'>;
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
  const security = createSecurityService({
    clock,
    auth: service,
    stateFileModes: stateFileModes(config.dataDir),
    ...opts.securitySources,
    settings: () => ({
      authMode: config.authMode,
      host: config.host,
      publicUrl: config.publicUrl,
      tlsTerminatedByProxy: config.tlsTerminatedByProxy,
      corsOrigins: config.corsOrigins,
      rateLimits: config.rateLimits,
      trustProxy: config.trustProxy,
      pairing: {
        mode: config.pairingMode,
        relayUrl: setupConfig.relayUrl,
        embeddedRelayHost: config.pairingMode === 'relay' && !config.relayUrl ? config.relayHost : null,
        codeTtlSeconds: config.pairCodeTtlSeconds,
      },
      maxBodyBytes: config.maxBodyBytes,
      policy: { keyMaxAgeDays: config.keyMaxAgeDays, deviceKeyIdleDays: config.deviceKeyIdleDays },
      agent: {
        enabled: config.agent.enabled,
        provider: config.agent.provider,
        baseUrl: config.agent.baseURL,
      },
      timeouts: config.timeouts,
    }),
  });
  const app = createApp({
    notes,
    agent,
    security,
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
  });
  return { app, auth: service, setupConfig, agent, security };
}
