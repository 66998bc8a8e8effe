import { fileURLToPath } from 'node:url';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import { nodeResolveHost } from '../../adapters/node/resolve-host.ts';
import { stateFileModes } from '../../adapters/node/state-file-modes.ts';
import type { ToolSource } from '../../core/agent/types.ts';
import type { NoteService } from '../../core/notes.ts';
import type { PluginDefinition } from '../../core/plugins/types.ts';
import type { Clock, Logger, StateStore } from '../../core/ports.ts';
import { composeApp as composeShared, publicRelayUrl, selfOrigins } from '../shared/compose.ts';
import type { ServerConfig } from './config.ts';

export { publicRelayUrl, selfOrigins };

/** The built client UI this server serves at /link and /workspace. */
export const CLIENT_DIST_DIR = fileURLToPath(new URL('../../client-link/dist', import.meta.url));

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
  /** The HTTP client of the agent and the channel providers (default: global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Plugins registered in code, beside the built-ins. */
  plugins?: readonly PluginDefinition[];
}) {
  return composeShared({
    ...opts,
    runtime: { name: 'node', version: process.version },
    socketAddress: nodeSocketAddress,
    clientAssets: fsClientAssets(CLIENT_DIST_DIR),
    resolveHost: nodeResolveHost,
    stateFileModes: stateFileModes(opts.config.dataDir),
    timeouts: opts.config.timeouts,
  });
}
