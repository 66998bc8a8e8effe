import { hostOf, isLoopbackHost } from './checks.ts';

/** The settings that decide who can reach the server's API. */
export interface ReachSettings {
  /** HOST. */
  host: string;
  pairingMode: 'relay' | 'open-port';
  /** RELAY_URL (an external relay), or null. */
  relayUrl: string | null;
  /** RELAY_HOST of the relay embedded in this process; null when none runs here. */
  embeddedRelayHost: string | null;
  /** TRUST_PROXY: a proxy in front forwards other machines' requests. */
  trustProxy: boolean;
}

/**
 * Every way a request from another machine can arrive, one sentence each; empty when only this
 * machine can reach the API. The start refuses SERVICE_AUTH_MODE=none when this is not empty
 * (unless ALLOW_INSECURE_NO_AUTH=1), and the audit's `auth-disabled` finding names the same paths.
 */
export function remoteReachPaths(s: ReachSettings): string[] {
  const out: string[] = [];
  if (!isLoopbackHost(s.host)) out.push(`HOST=${s.host} listens beyond loopback`);
  if (s.pairingMode === 'relay') {
    if (s.relayUrl && !isLoopbackHost(hostOf(s.relayUrl) ?? ''))
      out.push(
        `RELAY_URL=${new URL(s.relayUrl).origin} forwards requests from anyone who reaches that relay`,
      );
    if (!s.relayUrl && s.embeddedRelayHost && !isLoopbackHost(s.embeddedRelayHost))
      out.push(
        `the embedded relay listens on RELAY_HOST=${s.embeddedRelayHost} and forwards /r/<serverId>/…`,
      );
  }
  if (s.trustProxy) out.push('TRUST_PROXY is on: a proxy in front forwards requests from other machines');
  return out;
}
