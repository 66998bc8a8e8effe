import { fileURLToPath } from 'node:url';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import type { ToolSource } from '../../core/agent/types.ts';
import type { NoteService } from '../../core/notes.ts';
import type { Clock, Logger, StateStore } from '../../core/ports.ts';
import { composeApp as composeShared, publicRelayUrl } from '../shared/compose.ts';
import type { ServerConfig } from './config.ts';
import { isLoopback } from './env.ts';

export { publicRelayUrl };

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

/** The client's address on Node: the socket, or for relayed requests what the relay forwarded. */
function nodeSocketAddress(c: Context): string | undefined {
  // Requests from the relay connector have no socket; the relay put the client in X-Forwarded-For.
  if ((c.env as { relayed?: boolean } | undefined)?.relayed) {
    return c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim() ?? 'relay';
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** Builds auth and the HTTP app from the config (the Node root's wiring, without sockets). */
export function composeApp(opts: {
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
}) {
  return composeShared({
    ...opts,
    runtime: { name: 'node', version: process.version },
    socketAddress: nodeSocketAddress,
    clientAssets: fsClientAssets(CLIENT_DIST_DIR),
  });
}
