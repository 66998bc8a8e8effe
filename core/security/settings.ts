import type { SecuritySettings } from './service.ts';
import type { SecuritySnapshot } from './types.ts';

/** The configuration the audit reads: every variable that bears on it (docs/reference/configuration.md). */
export interface SecurityConfig {
  authMode: SecuritySnapshot['authMode'];
  host: string;
  publicUrl: string | null;
  tlsTerminatedByProxy: boolean;
  corsOrigins: string[];
  rateLimits: SecuritySnapshot['rateLimits'];
  trustProxy: boolean;
  jwt: { ttlSeconds: number } | null;
  egressAllow: string[];
  pairingMode: 'relay' | 'open-port';
  relayUrl: string | null;
  relayHost: string;
  pairCodeTtlSeconds: number;
  maxBodyBytes: number;
  keyMaxAgeDays: number;
  deviceKeyIdleDays: number;
  agent: { enabled: boolean; provider: string; baseURL: string | null };
}

/**
 * The part of the audit's snapshot that comes from configuration. `relayUrl` is the relay clients
 * are sent to (RELAY_PUBLIC_BASE_URL, RELAY_URL or the embedded relay); `timeouts` are the
 * runtime's socket time-outs (absent where the platform owns the sockets).
 */
export function securitySettings(
  config: SecurityConfig,
  relayUrl: string | null,
  timeouts: SecuritySnapshot['timeouts'],
): SecuritySettings {
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
