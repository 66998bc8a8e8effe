import { setMaxListeners } from 'node:events';
import type { StoredIdentity } from '../../core/identity.ts';
import type { Logger } from '../../core/ports.ts';
import type { RegisterData } from '../protocol/messages.ts';
import { linkSignals } from '../protocol/signals.ts';
import { type BackoffOptions, backoffDelay, sleep, within } from './backoff.ts';
import { ConnectorState, type ConnectorStateName } from './connector-state.ts';
import { undecodableAnswer } from './execute.ts';
import { createExecutor } from './executor.ts';
import { type FetchLike, type PulledBatch, RelayCallError, relayClient } from './relay-client.ts';
import { createResponder } from './responder.ts';

/** Options of `relayConnector`. */
export interface RelayConnectorOptions {
  /** Base URL of the relay, e.g. `https://relay.example.com`. */
  relayUrl: string;
  serverId: string;
  /** This server's identity key pair; `serverId` must be the id its public key names. */
  identity: StoredIdentity;
  /** The server's app, called in-process for every relayed request (e.g. `app.fetch`). */
  handle: (req: Request) => Promise<Response>;
  /** Checks a pairing code (single use) and mints a device key; null refuses. */
  redeemPairCode: (code: string) => Promise<{ apiKey: string } | null>;
  /** SHA-256 hex of the current pairing code (null: none); re-sent whenever it changes. */
  pairCodeHash?: () => Promise<string | null>;
  /** Pulls kept in flight (default 2). */
  concurrency?: number;
  /** Most relayed requests executing at once before pulling waits (default 64). */
  maxInFlight?: number;
  /** Long-poll wait to ask of the relay in ms (default: the relay's own). */
  waitMs?: number;
  /** Origin of the URLs the handler sees (default: the relay URL's origin). */
  origin?: string;
  backoff?: BackoffOptions;
  logger: Logger;
  fetch?: FetchLike;
  random?: () => number;
}

/** What `status()` reports; never the secret. */
export interface RelayConnectorStatus {
  state: ConnectorStateName;
  /** How it reaches the relay: the tunnel, or the spec's long-poll register/pull/respond. */
  transport: 'tunnel' | 'poll';
  relayUrl: string;
  serverId: string;
  /** `<relay public base>/r/<serverId>` once registered. */
  publicUrl: string | null;
  /** Epoch ms of the last state change. */
  since: number;
  lastError: string | null;
  handled: number;
  inFlight: number;
  /** Times it came back online after being offline. */
  reconnects: number;
}

/** The running connector. */
export interface RelayConnector {
  /** Starts connecting in the background (idempotent); never throws. */
  start(): void;
  /**
   * Tells the relay it leaves (from then on the relay answers 503 SERVER_OFFLINE, also to what
   * is queued but not pulled), stops pulling, and finishes and answers what is in flight
   * (at most `graceMs`, default 10 s).
   */
  stop(graceMs?: number): Promise<void>;
  status(): RelayConnectorStatus;
  /** Sends the current pairing-code hash to the relay now if it changed. */
  syncPairCode(): Promise<void>;
}

/** An item that does not decode fails alone: its client gets a 400 (or a refused pairing). */
function refuseItem(
  bad: PulledBatch['bad'][number],
  responder: ReturnType<typeof createResponder>,
  logger: Logger,
): void {
  logger.warn('relayed item does not decode; answered alone with an error', {
    field: bad.reason,
    requestId: bad.requestId,
  });
  if (!bad.requestId) return; // nothing to answer to: its client gets the relay's 504
  const expiresAt = Date.now() + 30_000;
  if (bad.kind === 'pair')
    responder.push({ kind: 'pair', requestId: bad.requestId, apiKey: null }, expiresAt);
  else responder.push(undecodableAnswer(bad.requestId), expiresAt);
}

/**
 * The server side of the relay: registers, keeps `concurrency` long polls in flight, runs each
 * pulled request against `handle` concurrently, answers in batches, and reconnects with
 * backoff and jitter whenever the relay (or its Redis) goes away, re-registering when the
 * relay has forgotten it.
 */
export function relayConnector(opts: RelayConnectorOptions): RelayConnector {
  const { logger } = opts;
  const client = relayClient(opts);
  const origin = (opts.origin ?? new URL(opts.relayUrl).origin).replace(/\/+$/, '');
  const random = opts.random ?? Math.random;
  const st = new ConnectorState(logger, { serverId: opts.serverId });
  const setState = (next: RelayConnectorStatus['state'], error?: string) => st.set(next, error);
  let running = false;
  // stopCtl ends sleeps and registrations at once; pullCtl cuts pulls, only after the relay knows we leave.
  let stopCtl = new AbortController();
  let pullCtl = new AbortController();
  let loops: Promise<void>[] = [];
  let registration: Promise<RegisterData> | null = null;
  let registered: RegisterData | null = null;
  let sentPairHash: string | null | undefined;
  const responder = createResponder({
    send: (batch) => client.respond(batch, AbortSignal.timeout(30_000)),
    budget: () => registered?.limits.maxRespondBytes ?? 1024 * 1024,
    logger,
  });
  const executor = createExecutor({
    ...opts,
    origin,
    maxBodyBytes: () => registered?.limits.maxBodyBytes ?? 10 * 1024 * 1024,
    onAnswer(answer, expiresAt) {
      responder.push(answer, expiresAt);
      // A redeemed code was rotated by the server: hand the relay the new hash.
      if (answer.kind === 'pair' && answer.apiKey) syncPairCode().catch(() => undefined);
    },
  });

  // Order of events across the concurrent loops, to tell fresh failures from stale ones.
  let events = 0;
  let lastSuccess = 0;
  function succeeded() {
    lastSuccess = ++events;
    setState('online');
  }

  const currentPairHash = async () => (opts.pairCodeHash ? opts.pairCodeHash().catch(() => null) : undefined);

  function ensureRegistered(): Promise<RegisterData> {
    if (registration) return registration;
    const p = (async () => {
      const hash = await currentPairHash();
      const data = await client.register(hash, stopCtl.signal);
      sentPairHash = hash;
      registered = data;
      if (running) succeeded();
      if (data.pairCodeAccepted === false)
        logger.warn('relay refused the pairing code hash (in use by another server)');
      return data;
    })();
    registration = p;
    p.catch(() => {
      if (registration === p) registration = null;
    });
    return p;
  }

  async function syncPairCode() {
    if (!opts.pairCodeHash || !running) return;
    const hash = await currentPairHash();
    if (hash === sentPairHash) return;
    registration = null;
    await ensureRegistered();
  }

  async function loop() {
    let attempt = 0;
    while (running) {
      const started = ++events;
      try {
        const reg = await ensureRegistered();
        await syncPairCode();
        await executor.below(opts.maxInFlight ?? 64);
        if (!running) break;
        const waitMs = Math.min(opts.waitMs ?? reg.limits.pullWaitMs, reg.limits.pullWaitMs);
        const linked = linkSignals([pullCtl.signal], waitMs + 15_000);
        const data = await client.pull(reg.limits.maxBatch, waitMs, linked.signal).finally(linked.dispose);
        attempt = 0;
        succeeded();
        for (const item of data.items) executor.run(item, data.now);
        for (const bad of data.bad) refuseItem(bad, responder, logger);
      } catch (err) {
        if (!running) break;
        const kind = err instanceof RelayCallError ? err.kind : 'unavailable';
        const msg = err instanceof Error ? err.message : String(err);
        if (kind === 'unregistered') {
          // The relay forgot us (restart, Redis flushed): register again, at once the first time.
          registration = null;
          attempt += 1;
          if (attempt === 1) continue;
        }
        // A call issued before some later success is stale news (e.g. a pull cut by a restart).
        if (kind === 'refused' || lastSuccess < started)
          setState(kind === 'refused' ? 'refused' : 'offline', msg);
        await sleep(backoffDelay(attempt, opts.backoff, random), stopCtl.signal);
        attempt += 1;
      }
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      stopCtl = new AbortController();
      pullCtl = new AbortController();
      setMaxListeners(0, pullCtl.signal); // one listener per pull in flight
      setState('connecting');
      loops = Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, () => loop());
    },
    async stop(graceMs = 10_000) {
      if (!running) return;
      running = false;
      stopCtl.abort();
      // Unregister first: the relay then queues nothing more for us, answers what waits 503 at
      // once, and ends our pulls (a pull that took requests just before still brings them here).
      if (registered) await client.unregister(AbortSignal.timeout(2_000)).catch(() => undefined);
      await within(Promise.allSettled(loops), 2_000);
      pullCtl.abort();
      await Promise.allSettled(loops);
      await executor.settle(graceMs);
      await responder.drain(5_000);
      responder.clear();
      registration = null;
      registered = null;
      setState('stopped');
    },
    status: () => ({
      state: st.state,
      transport: 'poll',
      relayUrl: opts.relayUrl,
      serverId: opts.serverId,
      publicUrl: registered?.publicUrl ?? null,
      since: st.since,
      lastError: st.lastError,
      handled: executor.handled(),
      inFlight: executor.size() + responder.size(),
      reconnects: st.reconnects,
    }),
    syncPairCode,
  };
}
