/**
 * The relay's end of the tunnels: one multiplexed connection per server, carrying binary
 * frames (relay/protocol/frames.ts). Runtime-neutral: the Node root binds each WebSocket to
 * `accept`. A server proves its key by signing the relay's challenge (no pin is consulted), and
 * from then on requests entering this instance go straight down its tunnel; requests entering
 * other instances reach it through the queue (this hub pulls them for the tunnel), with the
 * same deadline and at-most-once rules as the long-poll endpoints.
 */

import type { Clock, Logger } from '../../core/ports.ts';
import type { PayloadSeal } from '../protocol/seal.ts';
import type { RelayQueue } from '../queue/ports.ts';
import { type HubContext, HubLink, type Tunnel, type TunnelSocket } from './hub-link.ts';
import type { RelayLimits } from './relay-limits.ts';

export interface TunnelHubDeps {
  queue: RelayQueue;
  seal: PayloadSeal;
  limits: RelayLimits;
  logger: Logger;
  clock?: Clock;
  publicBaseUrl: string;
  /** How long a new connection has to prove its key (default 10 s). */
  authTimeoutMs?: number;
}

/** The tunnels of this relay instance (each connection a `HubLink`, hub-link.ts). */
export function createTunnelHub(deps: TunnelHubDeps) {
  const { queue, limits } = deps;
  let closed = false;
  /**
   * Counts a sign-in of a serverId this relay does not know (no pin, not online, not seen within
   * the hour) against its address's `newServersPerClientHour`, the counter the HTTP register
   * uses too; false when the address is over it. A store error lets it through (the tunnel
   * then fails on the store anyway).
   */
  async function admitNew(id: string, address: string | undefined): Promise<boolean> {
    try {
      const seenKey = `tunnel-id:${id}`;
      const known =
        (await queue.isOnline(id)) ||
        (await queue.hits(seenKey)).count > 0 ||
        (await queue.owner(id)) !== null;
      if (!known) {
        const limitKey = `register:${address ?? 'unknown'}`;
        if ((await queue.hits(limitKey)).count >= limits.newServersPerClientHour) return false;
        await queue.hit(limitKey, 3_600_000);
      }
      await queue.hit(seenKey, 3_600_000);
      return true;
    } catch {
      return true;
    }
  }
  const hub: HubContext = {
    queue,
    seal: deps.seal,
    limits,
    logger: deps.logger,
    clock: deps.clock ?? { now: () => Date.now() },
    base: deps.publicBaseUrl.replace(/\/+$/, ''),
    authTimeoutMs: deps.authTimeoutMs ?? 10_000,
    tunnels: new Map(),
    all: new Set(),
    closed: () => closed,
    admitNew,
  };

  return {
    /** Binds one connection; `address` is its client's (rate limits on new serverIds). */
    accept: (socket: TunnelSocket, address?: string): Pick<HubLink, 'onMessage' | 'onClose'> =>
      new HubLink(hub, socket, address),
    /** The tunnel of `serverId` held by this instance, if any. */
    get: (serverId: string): Tunnel | undefined => hub.tunnels.get(serverId),
    /** Tunnels open on this instance. */
    size: () => hub.tunnels.size,
    /** Closes every tunnel (servers reconnect, to another instance if there is one). */
    close() {
      closed = true;
      for (const t of [...hub.all]) t.closeNow(1012, 'relay restarting');
    },
  };
}

export type TunnelHub = ReturnType<typeof createTunnelHub>;
