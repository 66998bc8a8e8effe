/**
 * The relay's end of the tunnels: one multiplexed connection per server, carrying binary
 * frames (relay/protocol/frames.ts). Runtime-neutral: the Node root binds each WebSocket to
 * `accept`. A server proves its key by signing the relay's challenge (no pin is consulted), and
 * from then on requests entering this instance go straight down its tunnel; requests entering
 * other instances reach it through the queue (this hub pulls them for the tunnel), with the
 * same deadline and at-most-once rules as the long-poll endpoints.
 */
import { toBase64Url } from '../../core/crypto.ts';
import type { ErrorCode } from '../../core/errors.ts';
import { serverIdOf, tunnelStatement, verifySignature } from '../../core/identity.ts';
import type { Clock, Logger } from '../../core/ports.ts';
import { errorBody, STATUS } from '../../http-kit/envelope.ts';
import {
  type AnswerHead,
  CLOSE_WIRE_VERSION,
  chunks,
  concat,
  decodeFrame,
  decodeReset,
  END,
  encodeFrame,
  encodeHead,
  encodeInline,
  encodeReset,
  type Frame,
  FrameError,
  FrameType,
  frameHead,
  frameJson,
  inlineBody,
  pairAnswerKey,
  type RequestHead,
  requestHead,
  WIRE_VERSION,
  wireVersionMismatch,
} from '../protocol/frames.ts';
import { fromBase64, toBase64 } from '../protocol/http-codec.ts';
import type { HttpItem, PairItem } from '../protocol/messages.ts';
import type { PayloadSeal } from '../protocol/seal.ts';
import type { RelayQueue } from '../queue/ports.ts';
import type { RelayLimits } from './relay-limits.ts';

/** Bytes a tunnel may have waiting for the wire before a streamed body's next chunk is read. */
const TUNNEL_HIGH_WATER = 1024 * 1024;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the hub needs of one connection. */
export interface TunnelSocket {
  send(bytes: Uint8Array): void;
  /** Bytes queued for sending and not yet on the wire. */
  buffered(): number;
  close(code: number, reason: string): void;
}

/** A tunnel's answer to one request; null when none came (time-out, tunnel closed). */
export type TunnelAnswer =
  | { kind: 'http'; status: number; headers: [string, string][]; bytes: Uint8Array | null }
  | { kind: 'pair'; apiKey: string | null }
  | { kind: 'reset'; code: ErrorCode; status: number; message: string }
  /** The client went away before the answer came (the request's stream was reset). */
  | { kind: 'gone' };

/** The HTTP status of a known error code (the kit's one table); undefined for any other string. */
export const statusOfCode = (code: string): number | undefined =>
  Object.hasOwn(STATUS, code) ? STATUS[code as ErrorCode] : undefined;

/** One server's connected tunnel. */
export interface Tunnel {
  serverId: string;
  /**
   * Sends one request and waits for its answer until `deadline` (epoch ms): null when none came
   * (time-out, tunnel closed), `{kind: 'gone'}` when its client left first (`gone`).
   */
  forward(
    head: RequestHead,
    /** Whole bytes, or chunks as they arrive (sent with flow control; an error thrown fails the call). */
    body: Uint8Array | AsyncIterable<Uint8Array> | null,
    deadline: number,
    gone?: ClientGone,
  ): Promise<TunnelAnswer | null>;
}

/**
 * How a request's client leaving is told: its AbortSignal, or a `whenGone` subscription
 * (http-kit/hot-route.ts `HotRequest.whenGone`: on node:http no AbortController is made).
 */
export type ClientGone = AbortSignal | ((cb: () => void) => () => void);

/** Subscribes `cb` to the client's leaving; returns the function that stops listening. */
function whenGone(gone: ClientGone, cb: () => void): () => void {
  if (typeof gone === 'function') return gone(cb);
  gone.addEventListener('abort', cb, { once: true });
  return () => gone.removeEventListener('abort', cb);
}

/** `forward`'s answer when the client went away first (its caller answers nobody). */
const GONE: TunnelAnswer = { kind: 'gone' };

interface Pending {
  resolve(a: TunnelAnswer | null): void;
  /** A pairing request: its answer is read as one (frames.ts `pairAnswerKey`). */
  pair: boolean;
  head?: AnswerHead;
  parts: Uint8Array[];
  size: number;
}

/** What a waiting stream needs of its connection. */
interface WaitingStreams {
  drop(w: Waiting): void;
  reset(stream: number): void;
}

/**
 * One request on a tunnel waiting for its answer: settled once, by its answer, its deadline, its
 * client leaving or the tunnel closing. A class, so a relayed request makes no closures but the
 * one its client's leaving calls.
 */
class Waiting implements Pending {
  pair = false;
  head?: AnswerHead;
  parts: Uint8Array[] = [];
  size = 0;
  settled = false;
  timer: ReturnType<typeof setTimeout> | undefined;
  unlisten: (() => void) | undefined;
  constructor(
    readonly stream: number,
    readonly streams: WaitingStreams,
    readonly answer: (a: TunnelAnswer | null) => void,
  ) {}

  /** Ends the wait: its timer, its listener, its place in the table (the promise is left to the caller). */
  finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.unlisten?.();
    this.streams.drop(this);
  }

  resolve(a: TunnelAnswer | null): void {
    if (this.settled) return;
    this.finish();
    this.answer(a);
  }

  /** Its deadline passed (null) or its client left (GONE): the server is told to drop it. */
  giveUp(left: boolean): void {
    if (this.settled) return;
    this.streams.reset(this.stream);
    this.resolve(left ? GONE : null);
  }
}

const giveUpAtDeadline = (w: Waiting) => w.giveUp(false);

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

/** The tunnels of this relay instance. */
export function createTunnelHub(deps: TunnelHubDeps) {
  const { queue, seal, limits, logger } = deps;
  const clock = deps.clock ?? { now: () => Date.now() };
  const tunnels = new Map<string, Tunnel & { closeNow(code: number, reason: string): void }>();
  const all = new Set<{ closeNow(code: number, reason: string): void }>();
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  let closed = false;

  /** Binds one connection; `address` is its client's (rate limits on new serverIds). */
  function accept(socket: TunnelSocket, address?: string) {
    const challenge = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    let serverId: string | null = null;
    let open = true;
    let nextStream = 1;
    const pending = new Map<number, Pending>();
    const stop = new AbortController();
    let presence: ReturnType<typeof setInterval> | undefined;
    const authTimer = setTimeout(
      () => closeNow(4001, 'no proof of key in time'),
      deps.authTimeoutMs ?? 10_000,
    );

    const send = (type: FrameType, stream: number, flags: number, body: unknown) => {
      if (open) socket.send(encodeFrame(type, stream, flags, body));
    };
    // The wire version this relay speaks: a server of another one closes the tunnel (frames.ts).
    send(FrameType.HELLO, 0, 0, { challenge, version: WIRE_VERSION });

    function closeNow(code: number, reason: string) {
      if (!open) return;
      socket.close(code, reason);
      onClose();
    }

    let finished = false;
    function onClose(code?: number) {
      if (finished) return;
      finished = true;
      open = false;
      // A server leaving on purpose (1000): it is offline at once, what waits for it is answered 503.
      const leaving = code === 1000 && serverId !== null;
      clearTimeout(authTimer);
      clearInterval(presence);
      stop.abort();
      all.delete(entry);
      // In flight at a cut: never re-sent (it may have run); its client gets a 504.
      for (const p of pending.values()) p.resolve(null);
      pending.clear();
      if (serverId && tunnels.get(serverId) === tunnel) {
        tunnels.delete(serverId);
        if (leaving) void goOffline(serverId);
      }
    }

    async function goOffline(id: string) {
      try {
        await queue.markOffline(id);
        const gone = await seal.seal(JSON.stringify({ kind: 'offline' }));
        for (const r of await queue.evict(id)) await queue.answer(id, r.requestId, gone);
        logger.info('relay tunnel closed by its server', { serverId: id });
      } catch {}
    }

    const tunnel: Tunnel & { closeNow(code: number, reason: string): void } = {
      get serverId() {
        return serverId ?? '';
      },
      closeNow,
      forward(head, body, deadline, gone) {
        return new Promise<TunnelAnswer | null>((resolve, reject) => {
          if (!open) return resolve(null);
          const stream = nextStream;
          nextStream = nextStream >= 0xfffffff0 ? 1 : nextStream + 1;
          const w = new Waiting(stream, streams, resolve);
          w.pair = head.kind === 'pair';
          pending.set(stream, w);
          w.timer = setTimeout(giveUpAtDeadline, Math.max(1, deadline - clock.now()), w);
          if (gone) w.unlisten = whenGone(gone, () => w.giveUp(true));
          // The head is the caller's own (frames.ts requestHead): its time left is set in place.
          const reqHead = head;
          reqHead.ttlMs = Math.max(1, deadline - clock.now());
          const streamed = !!body && !(body instanceof Uint8Array);
          const hasBody = !!body && (streamed || (body as Uint8Array).byteLength > 0);
          let first: Uint8Array;
          let whole = false;
          try {
            // A body that fits in one frame goes with its head: one message.
            const inline =
              hasBody && !streamed ? encodeInline(FrameType.REQ, stream, reqHead, body as Uint8Array) : null;
            whole = inline !== null;
            first = inline ?? encodeHead(FrameType.REQ, stream, hasBody ? 0 : END, reqHead);
          } catch {
            // A head with no line form (a `\n` in a part: no HTTP request has one) is never sent.
            w.finish();
            return resolve({
              kind: 'reset',
              code: 'VALIDATION_ERROR',
              status: 400,
              message: 'The request has a line break in its target or a header.',
            });
          }
          if (open) socket.send(first);
          if (whole) return;
          if (streamed) {
            // A streamed body: DATA frames as the client's bytes arrive.
            void streamBody(stream, body as AsyncIterable<Uint8Array>, () => w.settled).then(
              () => undefined,
              (err: unknown) => {
                if (w.settled) return;
                // The client went away mid-body: nobody to answer (as when it leaves while waiting).
                if (gone && typeof gone !== 'function' && gone.aborted) return w.giveUp(true);
                // The body failed (too slow, too large, client gone): the server drops the stream.
                if (open)
                  socket.send(
                    encodeReset(stream, {
                      code: 'VALIDATION_ERROR',
                      status: 400,
                      message: 'the request body did not arrive',
                    }),
                  );
                w.finish();
                reject(err);
              },
            );
            return;
          }
          if (hasBody) {
            const parts = chunks(body as Uint8Array);
            for (let i = 0; i < parts.length; i++)
              send(FrameType.DATA, stream, i === parts.length - 1 ? END : 0, parts[i]);
          }
        });
      },
    };

    /** What a waiting stream needs of its connection: leaving the table, telling the server to drop it. */
    const streams: WaitingStreams = {
      drop(w) {
        if (pending.get(w.stream) === w) pending.delete(w.stream);
      },
      reset(stream) {
        // The server is told to drop it; an answer arriving later is ignored.
        if (open)
          socket.send(
            encodeReset(stream, { code: 'RELAY_TIMEOUT', status: 504, message: 'deadline passed' }),
          );
      },
    };

    /**
     * Sends `body` as DATA frames with flow control: the next chunk is read from the client only
     * while this tunnel has less than `TUNNEL_HIGH_WATER` bytes waiting for the wire, so a fast
     * client behind a slow tunnel is slowed by TCP and nothing piles up in the relay. The last
     * frame (empty) carries END.
     */
    async function streamBody(stream: number, body: AsyncIterable<Uint8Array>, stopped: () => boolean) {
      // One chunk is held back so the last one carries END (no empty frame after it).
      let held: Uint8Array | null = null;
      for await (const part of body) {
        if (held) {
          while (open && !stopped() && socket.buffered() > TUNNEL_HIGH_WATER) await pause(2);
          if (!open || stopped()) return;
          send(FrameType.DATA, stream, 0, held);
        }
        held = part;
      }
      if (!stopped()) send(FrameType.DATA, stream, END, held ?? new Uint8Array(0));
    }
    const entry = { closeNow };
    all.add(entry);

    async function onAuth(frame: Frame) {
      const auth = frameJson<{
        serverId?: unknown;
        publicKey?: unknown;
        signature?: unknown;
        pairCodeHash?: unknown;
        version?: unknown;
      }>(frame);
      const mismatch = wireVersionMismatch(auth.version);
      if (mismatch) return closeNow(CLOSE_WIRE_VERSION, mismatch);
      const { serverId: id, publicKey, signature } = auth;
      if (typeof id !== 'string' || typeof publicKey !== 'string' || typeof signature !== 'string')
        return closeNow(4003, 'malformed proof of key');
      if ((await serverIdOf(publicKey)) !== id)
        return closeNow(4003, 'the serverId is not the one the key names');
      if (!(await verifySignature(publicKey, tunnelStatement(id, publicKey, challenge), signature)))
        return closeNow(4003, 'the challenge is not signed by that key');
      if (!open) return;
      if (!(await admitNew(id, address)))
        return closeNow(4029, 'too many new servers from this address; retry later');
      if (!open) return;
      clearTimeout(authTimer);
      serverId = id;
      // A newer tunnel of the same server replaces an older one on this instance.
      tunnels.get(id)?.closeNow(4009, 'replaced by a newer tunnel');
      tunnels.set(id, tunnel);
      try {
        await queue.markOnline(id, limits.offlineAfterMs);
        const hash = auth.pairCodeHash;
        if (hash === null || (typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash)))
          await queue.setPairCode(id, hash, limits.pairCodeTtlMs);
      } catch {
        return closeNow(1013, 'queue store unreachable; retry');
      }
      presence = setInterval(
        () => void queue.markOnline(id, limits.offlineAfterMs).catch(() => undefined),
        Math.max(1_000, Math.floor(limits.offlineAfterMs / 3)),
      );
      send(FrameType.READY, 0, 0, {
        serverId: id,
        publicUrl: `${base}/r/${id}`,
        now: clock.now(),
        limits: { maxBodyBytes: limits.maxBodyBytes, answerTimeoutMs: limits.answerTimeoutMs },
      });
      logger.info('relay tunnel open', { serverId: id });
      void pump(id);
    }

    /** Requests queued for this server by other instances (or long-poll-era clients) go down the tunnel. */
    async function pump(id: string) {
      while (open && !closed && !stop.signal.aborted) {
        let taken: Awaited<ReturnType<RelayQueue['take']>> = [];
        const began = clock.now();
        try {
          taken = await queue.take(id, {
            max: limits.maxBatch,
            maxBytes: 1 << 30,
            waitMs: limits.pullWaitMs,
            signal: stop.signal,
          });
          if (open) await queue.refreshOnline(id, limits.offlineAfterMs);
        } catch {
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        for (const t of taken) void relayQueued(id, t.requestId, t.payload);
        // A take that came back empty at once (presence lost meanwhile): never spin.
        if (!taken.length && clock.now() - began < 50) await new Promise((r) => setTimeout(r, 250));
      }
    }

    async function relayQueued(id: string, requestId: string, payload: string) {
      let item: HttpItem | PairItem;
      try {
        item = JSON.parse(await seal.open(payload));
      } catch {
        logger.error('relay payload does not open: do all instances share RELAY_QUEUE_KEY?', {});
        return;
      }
      const head = requestHead(item);
      const body =
        item.kind === 'http' && item.method !== 'GET' && item.method !== 'HEAD'
          ? fromBase64(item.body)
          : null;
      const a = await tunnel.forward(head, body, item.deadline);
      if (!a || a.kind === 'gone') return; // its waiter answers 504 at the deadline
      const answer =
        a.kind === 'pair'
          ? { kind: 'pair', requestId, apiKey: a.apiKey }
          : a.kind === 'reset'
            ? {
                kind: 'http',
                requestId,
                status: a.status,
                headers: [['content-type', 'application/json; charset=utf-8']],
                body: toBase64(new TextEncoder().encode(JSON.stringify(errorBody(a.code, a.message)))),
              }
            : { kind: 'http', requestId, status: a.status, headers: a.headers, body: toBase64(a.bytes) };
      await queue.answer(id, requestId, await seal.seal(JSON.stringify(answer))).catch(() => undefined);
    }

    function onAnswerFrame(frame: Frame) {
      const p = pending.get(frame.stream);
      if (!p) return; // given up already, or never asked: ignored
      if (frame.type === FrameType.RESET) {
        return p.resolve({ kind: 'reset', ...decodeReset(frame, statusOfCode) });
      }
      if (frame.type === FrameType.RES) {
        if (p.head) throw new FrameError('second answer head', frame.stream);
        p.head = frameHead<AnswerHead>(frame);
        const inline = inlineBody(frame);
        if (inline?.byteLength) {
          if (inline.byteLength > limits.maxBodyBytes)
            throw new FrameError('answer larger than the relay allows', frame.stream);
          p.size = inline.byteLength;
          // A whole answer is settled now and written before the socket reads again: its body is
          // used where it lies (a view into the message ws hands over, never reused by it).
          p.parts.push(inline);
        }
      } else {
        if (!p.head) throw new FrameError('body before answer head', frame.stream);
        p.size += frame.payload.byteLength;
        if (p.size > limits.maxBodyBytes)
          throw new FrameError('answer larger than the relay allows', frame.stream);
        p.parts.push(frame.payload.slice());
      }
      if (!(frame.flags & END)) return;
      const h = p.head as AnswerHead;
      if (p.pair) return p.resolve({ kind: 'pair', apiKey: pairAnswerKey(h) });
      p.resolve({
        kind: 'http',
        status: h.status,
        headers: h.headers,
        bytes: p.parts.length ? concat(p.parts, p.size) : null,
      });
    }

    return {
      onMessage(bytes: Uint8Array) {
        let frame: Frame | null = null;
        try {
          frame = decodeFrame(bytes);
          if (!serverId) {
            if (frame.type !== FrameType.AUTH) throw new FrameError('expected AUTH', null);
            void onAuth(frame).catch(() => closeNow(4003, 'malformed proof of key'));
            return;
          }
          if (frame.type === FrameType.RES || frame.type === FrameType.DATA || frame.type === FrameType.RESET)
            return onAnswerFrame(frame);
          if (frame.type === FrameType.GOAWAY) {
            if (tunnels.get(serverId) === tunnel) tunnels.delete(serverId);
            stop.abort(); // the pump stops taking queued requests for it
            void goOffline(serverId);
            return;
          }
          if (frame.type === FrameType.PAIR) {
            const { pairCodeHash } = frameJson<{ pairCodeHash?: unknown }>(frame);
            if (
              pairCodeHash === null ||
              (typeof pairCodeHash === 'string' && /^[0-9a-f]{64}$/.test(pairCodeHash))
            )
              void queue.setPairCode(serverId, pairCodeHash, limits.pairCodeTtlMs).catch(() => undefined);
            return;
          }
          throw new FrameError(`unexpected frame type ${frame.type}`, frame.stream || null);
        } catch (err) {
          const stream = err instanceof FrameError ? err.stream : (frame?.stream ?? null);
          const why = err instanceof Error ? err.message : String(err);
          const p = stream ? pending.get(stream) : undefined;
          if (p) {
            // The bad frame fails its own stream alone: its client gets a 502, nothing else is touched.
            logger.warn('relay tunnel frame does not decode; its request fails alone', { error: why });
            if (open)
              socket.send(
                encodeReset(stream as number, { code: 'INTERNAL_ERROR', status: 502, message: why }),
              );
            p.resolve({
              kind: 'reset',
              code: 'INTERNAL_ERROR',
              status: 502,
              message: 'The server sent an answer the relay could not decode.',
            });
          } else if (!serverId) closeNow(4002, why);
          else logger.warn('relay tunnel frame ignored', { error: why });
        }
      },
      onClose,
    };
  }

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

  return {
    accept,
    /** The tunnel of `serverId` held by this instance, if any. */
    get: (serverId: string): Tunnel | undefined => tunnels.get(serverId),
    /** Tunnels open on this instance. */
    size: () => tunnels.size,
    /** Closes every tunnel (servers reconnect, to another instance if there is one). */
    close() {
      closed = true;
      for (const t of [...all]) t.closeNow(1012, 'relay restarting');
    },
  };
}

export type TunnelHub = ReturnType<typeof createTunnelHub>;
