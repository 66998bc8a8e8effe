import type { Hono } from 'hono';
import type { AuthService } from '../../core/auth/service.ts';
import { sha256Hex } from '../../core/crypto.ts';
import type { Logger } from '../../core/ports.ts';
import type { SetupConfig } from '../../core/setup.ts';
import type { TunnelHotFrame } from '../../relay/connector/tunnel-hot.ts';
import { loadRelayConfig, type ServerConfig } from './config/index.ts';
import type { Lifecycle } from './lifecycle.ts';

/**
 * Relay pairing on Node: registers with RELAY_URL, or runs the relay in this process (the memory
 * queue; Redis' client is never loaded) so every link works. One multiplexed tunnel carries the
 * relayed requests (or, with RELAY_TRANSPORT=poll, the long-poll protocol). Returns null in open-port pairing.
 */
export async function linkRelay(opts: {
  config: ServerConfig;
  app: Pick<Hono, 'fetch'>;
  auth: AuthService;
  setupConfig: SetupConfig;
  logger: Logger;
  /** The server's hot routes and frame (its Node dispatcher's): relayed GETs and HEADs are offered to them first. */
  hot?: TunnelHotFrame;
}) {
  const { config, auth, logger } = opts;
  if (config.pairingMode !== 'relay') return null;
  let relay: { url: string; publicBaseUrl: string; stop(): Promise<void> } | null = null;
  if (!config.relayUrl) {
    const { startRelay } = await import('../../relay/node/server.ts');
    relay = await startRelay(
      {
        // The relay's defaults for what the server's environment does not set.
        ...loadRelayConfig({}),
        host: config.relayHost,
        port: config.relayPort,
        publicBaseUrl: config.relayPublicBaseUrl,
        redisUrl: null,
        limits: config.relayLimits,
        timeouts: config.timeouts,
        hotRoutes: config.hotRoutes,
      },
      { logger },
    );
    opts.setupConfig.relayUrl = relay.publicBaseUrl;
  }
  // Loaded here, after the server listens: the connector and ws are not on the way to the first answer.
  const make =
    config.relayTransport === 'poll'
      ? (await import('../../relay/connector/connector.ts')).relayConnector
      : (await import('../../relay/connector/tunnel-connector.ts')).tunnelConnector;
  const connector = make({
    relayUrl: config.relayUrl ?? relay!.url,
    serverId: auth.serverId,
    identity: auth.identity,
    handle: (req) => Promise.resolve(opts.app.fetch(req, { relayed: true })),
    hot: opts.hot,
    redeemPairCode: async (code) => {
      const key = await auth.redeemPairCode(code);
      return key ? { apiKey: key.apiKey } : null;
    },
    pairCodeHash: async () => sha256Hex((await auth.pairCode()).code),
    logger,
  });
  auth.onPairCodeChange(() => void connector.syncPairCode().catch(() => {}));
  connector.start();
  return {
    status: () => connector.status(),
    /** The connector closes with the doors; the embedded relay stops last. */
    closeWith(lifecycle: Pick<Lifecycle, 'addDoor' | 'addFinal'>) {
      lifecycle.addDoor((graceMs) => connector.stop(graceMs));
      if (relay) lifecycle.addFinal(() => relay.stop());
    },
  };
}
