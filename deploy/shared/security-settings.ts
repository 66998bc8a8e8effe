import type { SecuritySnapshot } from '../../core/security/types.ts';
import type { ServerConfig } from './config/server.ts';

/** The part of the audit's snapshot that comes from configuration (every variable that matters). */
export type ConfigFacts = Omit<SecuritySnapshot, 'setup' | 'keys' | 'stateFiles' | 'channels' | 'plugins'>;

/**
 * What the audit reads from the validated config. `relayUrl` is the relay clients are sent to
 * (RELAY_PUBLIC_BASE_URL, RELAY_URL or the embedded relay); `timeouts` are the runtime's sockets.
 */
export function securitySettings(
  config: ServerConfig,
  relayUrl: string | null,
  timeouts: SecuritySnapshot['timeouts'],
): ConfigFacts {
  return {
    authMode: config.authMode,
    host: config.host,
    publicUrl: config.publicUrl,
    tlsTerminatedByProxy: config.tlsTerminatedByProxy,
    corsOrigins: config.corsOrigins,
    rateLimits: config.rateLimits,
    trustProxy: config.trustProxy,
    jwtTtlSeconds: config.jwt?.ttlSeconds ?? null,
    egressAllow: config.egressAllow,
    pairing: {
      mode: config.pairingMode,
      relayUrl,
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
    ...(timeouts ? { timeouts } : {}),
  };
}
