import { identitySigner } from '../../core/identity.ts';
import { isLoopbackHost } from '../../core/net/hosts.ts';
import { encodeFrame, FrameType } from '../protocol/frames.ts';
import { WIRE_LIMITS } from '../protocol/limits.ts';
import { backoffDelay, sleep, within } from './backoff.ts';
import type { RelayConnector, RelayConnectorStatus } from './connector.ts';
import { ConnectorState } from './connector-state.ts';
import { type LinkContext, type LinkOptions, TunnelLink } from './tunnel-link.ts';

/** WebSocket's OPEN ready state (the link owns the socket; the connector only asks). */
const OPEN = 1;

/** Options of `tunnelConnector`: the long-poll connector's, plus the heartbeat and the hot routes. */
export interface TunnelConnectorOptions extends LinkOptions {
  /** Ping interval in ms (default 10 000); no frame or pong for 3 intervals cuts and reconnects. */
  heartbeatMs?: number;
}

/**
 * True when masking our frames protects nothing: over TLS (`wss:`) no intermediary reads them,
 * and a loopback relay (the embedded one) has none. Masking (RFC 6455 section 10.3) guards
 * proxies between a browser and a server against bytes a page's script chose; it costs a copy
 * and an XOR of every byte we send. A zero key keeps the frames valid (ws then skips the copy);
 * a plain `ws:` URL to another host keeps random keys.
 */
export function maskNeedless(wsUrl: string): boolean {
  const u = new URL(wsUrl);
  return u.protocol === 'wss:' || isLoopbackHost(u.hostname);
}

/**
 * The server side of the relay over one long-lived WebSocket carrying binary frames: one
 * connection at a time (a `TunnelLink`, tunnel-link.ts: proves the key by signing the relay's
 * challenge, runs every request the relay sends against the hot routes or `handle`, answers with
 * raw bytes in chunks, pings), reconnecting with backoff, and its status. A relay of
 * another wire version, or one without the tunnel endpoint (404 on upgrade), leaves it `refused`
 * with a `lastError` that says why (the long-poll connector, connector.ts, is the spec's other
 * way to a relay: `RELAY_TRANSPORT=poll`).
 */
export function tunnelConnector(opts: TunnelConnectorOptions): RelayConnector {
  const { logger } = opts;
  const random = opts.random ?? Math.random;
  const wsUrl = `${opts.relayUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/api/v1/relay/tunnel`;
  const st = new ConnectorState(logger, { serverId: opts.serverId, transport: 'tunnel' });
  let loop: Promise<void> | null = null;
  let stopCtl = new AbortController();

  function setState(next: RelayConnectorStatus['state'], error?: string) {
    if (error !== undefined) ctx.lastError = error;
    st.set(next, error);
  }

  async function syncPairCode() {
    if (!opts.pairCodeHash || !ctx.ws || st.state !== 'online') return;
    const hash = await opts.pairCodeHash().catch(() => null);
    if (hash === ctx.sentPairHash) return;
    ctx.sentPairHash = hash;
    if (ctx.ws?.readyState === OPEN) ctx.ws.send(encodeFrame(FrameType.PAIR, 0, 0, { pairCodeHash: hash }));
  }

  // What the connector and its current link share (a link per connection: tunnel-link.ts).
  const ctx: LinkContext = {
    opts,
    origin: (opts.origin ?? new URL(opts.relayUrl).origin).replace(/\/+$/, ''),
    wsUrl,
    unmasked: maskNeedless(wsUrl),
    heartbeatMs: opts.heartbeatMs ?? 10_000,
    signer: identitySigner(opts.identity),
    inflight: new Set<Promise<void>>(),
    running: false,
    ws: null,
    lastError: null,
    handled: 0,
    publicUrl: null,
    maxBodyBytes: WIRE_LIMITS.maxBodyBytes,
    sentPairHash: undefined,
    setState,
    syncPairCode,
  };

  async function run() {
    let attempt = 0;
    while (ctx.running) {
      const why = await new TunnelLink(ctx).ended;
      if (!ctx.running) break;
      if (st.state === 'online') attempt = 0;
      setState(why === 'refused' ? 'refused' : 'offline', ctx.lastError ?? undefined);
      await sleep(backoffDelay(attempt, opts.backoff, random), stopCtl.signal);
      attempt += 1;
    }
  }

  return {
    start() {
      if (ctx.running) return;
      ctx.running = true;
      stopCtl = new AbortController();
      setState('connecting');
      loop = run();
    },
    async stop(graceMs = 10_000) {
      if (!ctx.running) return;
      ctx.running = false;
      stopCtl.abort();
      // Tell the relay first (it refuses new requests for us at once), finish what is in flight
      // (its answers still go out), then close the tunnel cleanly.
      if (ctx.ws?.readyState === OPEN) ctx.ws.send(encodeFrame(FrameType.GOAWAY, 0, 0, {}));
      await within(Promise.allSettled([...ctx.inflight]), graceMs);
      ctx.ws?.close(1000, 'server stopping');
      const closing = ctx.ws;
      if (closing) await within(new Promise((r) => closing.once('close', r)), 1_000);
      ctx.ws?.terminate();
      await loop;
      ctx.publicUrl = null;
      setState('stopped');
    },
    status: () => ({
      state: st.state,
      transport: 'tunnel',
      relayUrl: opts.relayUrl,
      serverId: opts.serverId,
      publicUrl: ctx.publicUrl,
      since: st.since,
      lastError: ctx.lastError,
      handled: ctx.handled,
      inFlight: ctx.inflight.size,
      reconnects: st.reconnects,
    }),
    syncPairCode,
  };
}
