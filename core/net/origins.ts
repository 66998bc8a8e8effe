import { isLoopbackHost } from './hosts.ts';

/** The settings that decide where clients reach the server and its relay. */
export interface ReachConfig {
  host: string;
  publicUrl: string | null;
  pairingMode: 'relay' | 'open-port';
  relayUrl: string | null;
  relayPublicBaseUrl: string | null;
  relayPort: number;
}

/** A host as a URL shows it: wildcards as loopback, IPv6 in brackets. */
const shownHost = (host: string) =>
  host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

/**
 * The relay address clients are told to use: the public base (the relay as clients reach it,
 * also when the server reaches RELAY_URL at an internal address, as in deploy/compose.yaml),
 * else RELAY_URL, else the embedded relay.
 */
export function publicRelayUrl(config: ReachConfig): string | null {
  if (config.pairingMode !== 'relay') return null;
  if (config.relayPublicBaseUrl) return config.relayPublicBaseUrl;
  if (config.relayUrl) return config.relayUrl;
  const host = config.publicUrl ? new URL(config.publicUrl).hostname : config.host;
  return `http://${shownHost(host)}:${config.relayPort}`;
}

/**
 * The origins the server's own pages are loaded from once it listens on `port` (PUBLIC_URL, the
 * listening address, and `localhost` for a loopback host): the client UI it serves calls the
 * relay's /r/<serverId> address cross-origin, so CORS must allow them.
 */
export function selfOrigins(config: Pick<ReachConfig, 'host' | 'publicUrl'>, port: number): string[] {
  const out = new Set<string>();
  if (config.publicUrl) out.add(new URL(config.publicUrl).origin);
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  out.add(`http://${shownHost(config.host)}:${port}`);
  if (wildcard || isLoopbackHost(config.host)) out.add(`http://localhost:${port}`);
  return [...out];
}
