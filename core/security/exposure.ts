import { isLoopbackHost } from '../net/hosts.ts';

/** The settings that decide who can reach the server's API. */
export interface ReachSettings {
  /** HOST. */
  host: string;
  pairingMode: 'relay' | 'open-port';
  /** The relay clients are sent to (RELAY_PUBLIC_BASE_URL, else RELAY_URL), or null. */
  relayUrl: string | null;
  /** RELAY_HOST of the relay embedded in this process; null when none runs here. */
  embeddedRelayHost: string | null;
  /** TRUST_PROXY: a proxy in front forwards other machines' requests. */
  trustProxy: boolean;
}

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'a relay';
  }
};

/**
 * Every way a request from another machine can arrive, one sentence each; empty when only this
 * machine can reach the API. The one definition of "reachable from other machines": the start
 * refuses SERVICE_AUTH_MODE=none when this is not empty (unless ALLOW_INSECURE_NO_AUTH=1), and the
 * audit's `auth-disabled` finding names the same paths. Relay pairing is always a path, whatever
 * address the relay has: a relay on loopback may itself listen on every interface or sit behind a
 * proxy (RELAY_PUBLIC_BASE_URL), and it forwards `/r/<serverId>/…` from anyone who reaches it.
 */
export function remoteReachPaths(s: ReachSettings): string[] {
  const out: string[] = [];
  if (!isLoopbackHost(s.host)) out.push(`HOST=${s.host} listens beyond loopback`);
  if (s.pairingMode === 'relay') {
    if (s.embeddedRelayHost !== null)
      out.push(
        `the embedded relay (RELAY_HOST=${s.embeddedRelayHost}) forwards /r/<serverId>/… from anyone who reaches it`,
      );
    else if (s.relayUrl)
      out.push(`the relay at ${originOf(s.relayUrl)} forwards requests from anyone who reaches it`);
    else out.push('relay pairing forwards requests from anyone who reaches the relay');
  }
  if (s.trustProxy) out.push('TRUST_PROXY is on: a proxy in front forwards requests from other machines');
  return out;
}
