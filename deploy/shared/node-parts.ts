import type { Context } from 'hono';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import { nodePinnedFetch } from '../../adapters/node/pinned-fetch.ts';
import { nodeResolveHost } from '../../adapters/node/resolve-host.ts';
import { stateFileModes } from '../../adapters/node/state-file-modes.ts';
import { relayedSocketAddress } from '../../http-kit/frame.ts';
import { socketAddressOf } from '../../http-kit/node/socket-address.ts';
import { composeApp as composeShared, publicRelayUrl, type RuntimeParts, selfOrigins } from './compose.ts';
import type { ServerConfig } from './config/index.ts';
import { CLIENT_DIST_DIR } from './fs-server.ts';

export { liveDoorOn } from '../../adapters/node/live-door.ts';
export { CLIENT_DIST_DIR, publicRelayUrl, selfOrigins };

/** The client's address on Node: the socket, or for relayed requests what the relay forwarded. */
function nodeSocketAddress(c: Context): string | undefined {
  // Requests from the relay connector have no socket; the relay put the client in X-Forwarded-For.
  if ((c.env as { relayed?: boolean } | undefined)?.relayed) {
    return relayedSocketAddress(c.req.header('x-forwarded-for'));
  }
  return socketAddressOf(c);
}

/** Node's parts of the HTTP app: sockets, the client UI, DNS, pinned fetch, state file modes. */
export function nodeParts(config: ServerConfig): RuntimeParts {
  return {
    runtime: { name: 'node', version: process.version },
    socketAddress: nodeSocketAddress,
    clientAssets: fsClientAssets(CLIENT_DIST_DIR),
    resolveHost: nodeResolveHost,
    pinnedFetch: nodePinnedFetch,
    stateFileModes: stateFileModes(config.dataDir),
    timeouts: config.timeouts,
    liveDoor: true,
  };
}

/** What the Node root passes to the shared composition (everything but the runtime's parts). */
export type ComposeOptions = Omit<Parameters<typeof composeShared>[0], keyof RuntimeParts>;

/** Builds auth and the HTTP app from the config with Node's parts (tests use it without sockets). */
export function composeApp(opts: ComposeOptions) {
  return composeShared({ ...opts, ...nodeParts(opts.config) });
}
