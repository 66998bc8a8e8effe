/**
 * One server's tunnel at the relay, from the upgrade to the close: the challenge and the proof of
 * key, the requests sent down it and their answers read back (many at once, each on its own
 * stream), and the requests other instances queued for it (pulled and sent down the same way).
 * The hub (tunnel-hub.ts) holds the links and the rules across them.
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
 * How a request's client leaving is told: its AbortSignal, or the hot request itself
 * (http-kit/hot-route.ts `HotRequest.whenGone`: on node:http no AbortController is made).
 */
export type ClientGone = AbortSignal | { whenGone(cb: () => void): () => void };

/** Subscribes `cb` to the client's leaving; returns the function that stops listening. */
function whenGone(gone: ClientGone, cb: () => void): () => void {
  if (!(gone instanceof AbortSignal)) return gone.whenGone(cb);
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

/** What a link shares with its hub: the relay's services and the hub's tables. */
export interface HubContext {
  readonly queue: RelayQueue;
  readonly seal: PayloadSeal;
  readonly limits: RelayLimits;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The relay's public base URL, without a trailing slash. */
  readonly base: string;
  readonly authTimeoutMs: number;
  /** The tunnel of each server on this instance. */
  readonly tunnels: Map<string, HubLink>;
  /** Every connection, proven or not (closed together when the relay stops). */
  readonly all: Set<HubLink>;
  /** The relay is closing: the pumps stop. */
  closed(): boolean;
  /** False when `address` may not sign in one more serverId this relay does not know. */
  admitNew(id: string, address: string | undefined): Promise<boolean>;
}

/** One connection bound by the hub's `accept`; a proven one is its server's `Tunnel`. */
export class HubLink implements Tunnel {
  private readonly challenge = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  private id: string | null = null;
  private open = true;
  private finished = false;
  private nextStream = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly stop = new AbortController();
  private presence: ReturnType<typeof setInterval> | undefined;
  private readonly authTimer: ReturnType<typeof setTimeout>;
  /** What a waiting stream needs of its connection: leaving the table, telling the server to drop it. */
  private readonly streams: WaitingStreams = {
    drop: (w) => {
      if (this.pending.get(w.stream) === w) this.pending.delete(w.stream);
    },
    reset: (stream) => {
      // The server is told to drop it; an answer arriving later is ignored.
      if (this.open)
        this.socket.send(
          encodeReset(stream, { code: 'RELAY_TIMEOUT', status: 504, message: 'deadline passed' }),
        );
    },
  };

  constructor(
    private readonly hub: HubContext,
    private readonly socket: TunnelSocket,
    /** Its client's address (rate limits on new serverIds). */
    private readonly address?: string,
  ) {
    this.authTimer = setTimeout(() => this.closeNow(4001, 'no proof of key in time'), hub.authTimeoutMs);
    hub.all.add(this);
    // The wire version this relay speaks: a server of another one closes the tunnel (frames.ts).
    this.send(FrameType.HELLO, 0, 0, { challenge: this.challenge, version: WIRE_VERSION });
  }

  get serverId(): string {
    return this.id ?? '';
  }

  private send(type: FrameType, stream: number, flags: number, body: unknown): void {
    if (this.open) this.socket.send(encodeFrame(type, stream, flags, body));
  }

  closeNow(code: number, reason: string): void {
    if (!this.open) return;
    this.socket.close(code, reason);
    this.onClose();
  }

  /** The connection closed (`code`: its close code, when the socket gave one). */
  onClose(code?: number): void {
    if (this.finished) return;
    this.finished = true;
    this.open = false;
    const { id, hub } = this;
    // A server leaving on purpose (1000): it is offline at once, what waits for it is answered 503.
    const leaving = code === 1000 && id !== null;
    clearTimeout(this.authTimer);
    clearInterval(this.presence);
    this.stop.abort();
    hub.all.delete(this);
    // In flight at a cut: never re-sent (it may have run); its client gets a 504.
    for (const p of this.pending.values()) p.resolve(null);
    this.pending.clear();
    if (id && hub.tunnels.get(id) === this) {
      hub.tunnels.delete(id);
      if (leaving) void this.goOffline(id);
    }
  }

  private async goOffline(id: string): Promise<void> {
    const { queue, seal, logger } = this.hub;
    try {
      await queue.markOffline(id);
      const gone = await seal.seal(JSON.stringify({ kind: 'offline' }));
      for (const r of await queue.evict(id)) await queue.answer(id, r.requestId, gone);
      logger.info('relay tunnel closed by its server', { serverId: id });
    } catch {}
  }

  forward(
    head: RequestHead,
    body: Uint8Array | AsyncIterable<Uint8Array> | null,
    deadline: number,
    gone?: ClientGone,
  ): Promise<TunnelAnswer | null> {
    return new Promise<TunnelAnswer | null>((resolve, reject) => {
      if (!this.open) return resolve(null);
      const { clock } = this.hub;
      const stream = this.nextStream;
      this.nextStream = stream >= 0xfffffff0 ? 1 : stream + 1;
      const w = new Waiting(stream, this.streams, resolve);
      w.pair = head.kind === 'pair';
      this.pending.set(stream, w);
      w.timer = setTimeout(giveUpAtDeadline, Math.max(1, deadline - clock.now()), w);
      if (gone) w.unlisten = whenGone(gone, () => w.giveUp(true));
      // The head is the caller's own (frames.ts requestHead): its time left is set in place.
      head.ttlMs = Math.max(1, deadline - clock.now());
      const streamed = !!body && !(body instanceof Uint8Array);
      const hasBody = !!body && (streamed || (body as Uint8Array).byteLength > 0);
      let first: Uint8Array;
      let whole = false;
      try {
        // A body that fits in one frame goes with its head: one message.
        const inline =
          hasBody && !streamed ? encodeInline(FrameType.REQ, stream, head, body as Uint8Array) : null;
        whole = inline !== null;
        first = inline ?? encodeHead(FrameType.REQ, stream, hasBody ? 0 : END, head);
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
      if (this.open) this.socket.send(first);
      if (whole) return;
      if (streamed) return this.streamed(w, body as AsyncIterable<Uint8Array>, gone, reject);
      if (hasBody) {
        const parts = chunks(body as Uint8Array);
        for (let i = 0; i < parts.length; i++)
          this.send(FrameType.DATA, stream, i === parts.length - 1 ? END : 0, parts[i]);
      }
    });
  }

  /** A streamed body: DATA frames as the client's bytes arrive; a failed body fails the call. */
  private streamed(
    w: Waiting,
    body: AsyncIterable<Uint8Array>,
    gone: ClientGone | undefined,
    reject: (err: unknown) => void,
  ): void {
    void this.streamBody(w.stream, body, () => w.settled).then(
      () => undefined,
      (err: unknown) => {
        if (w.settled) return;
        // The client went away mid-body: nobody to answer (as when it leaves while waiting).
        if (gone instanceof AbortSignal && gone.aborted) return w.giveUp(true);
        // The body failed (too slow, too large, client gone): the server drops the stream.
        if (this.open)
          this.socket.send(
            encodeReset(w.stream, {
              code: 'VALIDATION_ERROR',
              status: 400,
              message: 'the request body did not arrive',
            }),
          );
        w.finish();
        reject(err);
      },
    );
  }

  /**
   * Sends `body` as DATA frames with flow control: the next chunk is read from the client only
   * while this tunnel has less than `TUNNEL_HIGH_WATER` bytes waiting for the wire, so a fast
   * client behind a slow tunnel is slowed by TCP and nothing piles up in the relay. The last
   * frame (empty) carries END.
   */
  private async streamBody(
    stream: number,
    body: AsyncIterable<Uint8Array>,
    stopped: () => boolean,
  ): Promise<void> {
    // One chunk is held back so the last one carries END (no empty frame after it).
    let held: Uint8Array | null = null;
    for await (const part of body) {
      if (held) {
        while (this.open && !stopped() && this.socket.buffered() > TUNNEL_HIGH_WATER) await pause(2);
        if (!this.open || stopped()) return;
        this.send(FrameType.DATA, stream, 0, held);
      }
      held = part;
    }
    if (!stopped()) this.send(FrameType.DATA, stream, END, held ?? new Uint8Array(0));
  }

  /** The server's proof of key: checked, then the tunnel is its server's (and READY says so). */
  private async onAuth(frame: Frame): Promise<void> {
    const { hub } = this;
    const auth = frameJson<{
      serverId?: unknown;
      publicKey?: unknown;
      signature?: unknown;
      pairCodeHash?: unknown;
      version?: unknown;
    }>(frame);
    const mismatch = wireVersionMismatch(auth.version);
    if (mismatch) return this.closeNow(CLOSE_WIRE_VERSION, mismatch);
    const { serverId: id, publicKey, signature } = auth;
    if (typeof id !== 'string' || typeof publicKey !== 'string' || typeof signature !== 'string')
      return this.closeNow(4003, 'malformed proof of key');
    if ((await serverIdOf(publicKey)) !== id)
      return this.closeNow(4003, 'the serverId is not the one the key names');
    if (!(await verifySignature(publicKey, tunnelStatement(id, publicKey, this.challenge), signature)))
      return this.closeNow(4003, 'the challenge is not signed by that key');
    if (!this.open) return;
    if (!(await hub.admitNew(id, this.address)))
      return this.closeNow(4029, 'too many new servers from this address; retry later');
    if (!this.open) return;
    clearTimeout(this.authTimer);
    this.id = id;
    // A newer tunnel of the same server replaces an older one on this instance.
    hub.tunnels.get(id)?.closeNow(4009, 'replaced by a newer tunnel');
    hub.tunnels.set(id, this);
    const { queue, limits } = hub;
    try {
      await queue.markOnline(id, limits.offlineAfterMs);
      const hash = auth.pairCodeHash;
      if (hash === null || (typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash)))
        await queue.setPairCode(id, hash, limits.pairCodeTtlMs);
    } catch {
      return this.closeNow(1013, 'queue store unreachable; retry');
    }
    this.presence = setInterval(
      () => void queue.markOnline(id, limits.offlineAfterMs).catch(() => undefined),
      Math.max(1_000, Math.floor(limits.offlineAfterMs / 3)),
    );
    this.send(FrameType.READY, 0, 0, {
      serverId: id,
      publicUrl: `${hub.base}/r/${id}`,
      now: hub.clock.now(),
      limits: { maxBodyBytes: limits.maxBodyBytes, answerTimeoutMs: limits.answerTimeoutMs },
    });
    hub.logger.info('relay tunnel open', { serverId: id });
    void this.pump(id);
  }

  /** Requests queued for this server by other instances (or long-poll-era clients) go down the tunnel. */
  private async pump(id: string): Promise<void> {
    const { queue, limits, clock } = this.hub;
    while (this.open && !this.hub.closed() && !this.stop.signal.aborted) {
      let taken: Awaited<ReturnType<RelayQueue['take']>> = [];
      const began = clock.now();
      try {
        taken = await queue.take(id, {
          max: limits.maxBatch,
          maxBytes: 1 << 30,
          waitMs: limits.pullWaitMs,
          signal: this.stop.signal,
        });
        if (this.open) await queue.refreshOnline(id, limits.offlineAfterMs);
      } catch {
        await pause(250);
        continue;
      }
      for (const t of taken) void this.relayQueued(id, t.requestId, t.payload);
      // A take that came back empty at once (presence lost meanwhile): never spin.
      if (!taken.length && clock.now() - began < 50) await pause(250);
    }
  }

  private async relayQueued(id: string, requestId: string, payload: string): Promise<void> {
    const { queue, seal, logger } = this.hub;
    let item: HttpItem | PairItem;
    try {
      item = JSON.parse(await seal.open(payload));
    } catch {
      logger.error('relay payload does not open: do all instances share RELAY_QUEUE_KEY?', {});
      return;
    }
    const head = requestHead(item);
    const body =
      item.kind === 'http' && item.method !== 'GET' && item.method !== 'HEAD' ? fromBase64(item.body) : null;
    const a = await this.forward(head, body, item.deadline);
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

  private onAnswerFrame(frame: Frame): void {
    const p = this.pending.get(frame.stream);
    if (!p) return; // given up already, or never asked: ignored
    if (frame.type === FrameType.RESET) {
      p.resolve({ kind: 'reset', ...decodeReset(frame, statusOfCode) });
      return;
    }
    const { maxBodyBytes } = this.hub.limits;
    if (frame.type === FrameType.RES) {
      if (p.head) throw new FrameError('second answer head', frame.stream);
      p.head = frameHead<AnswerHead>(frame);
      const inline = inlineBody(frame);
      if (inline?.byteLength) {
        if (inline.byteLength > maxBodyBytes)
          throw new FrameError('answer larger than the relay allows', frame.stream);
        p.size = inline.byteLength;
        // A whole answer is settled now and written before the socket reads again: its body is
        // used where it lies (a view into the message ws hands over, never reused by it).
        p.parts.push(inline);
      }
    } else {
      if (!p.head) throw new FrameError('body before answer head', frame.stream);
      p.size += frame.payload.byteLength;
      if (p.size > maxBodyBytes) throw new FrameError('answer larger than the relay allows', frame.stream);
      p.parts.push(frame.payload.slice());
    }
    if (!(frame.flags & END)) return;
    const h = p.head as AnswerHead;
    if (p.pair) {
      p.resolve({ kind: 'pair', apiKey: pairAnswerKey(h) });
      return;
    }
    p.resolve({
      kind: 'http',
      status: h.status,
      headers: h.headers,
      bytes: p.parts.length ? concat(p.parts, p.size) : null,
    });
  }

  /** One message from the server. */
  onMessage(bytes: Uint8Array): void {
    let frame: Frame | null = null;
    try {
      frame = decodeFrame(bytes);
      this.onFrame(frame);
    } catch (err) {
      this.onBadFrame(err, frame);
    }
  }

  private onFrame(frame: Frame): void {
    const { id, hub } = this;
    if (!id) {
      if (frame.type !== FrameType.AUTH) throw new FrameError('expected AUTH', null);
      void this.onAuth(frame).catch(() => this.closeNow(4003, 'malformed proof of key'));
      return;
    }
    if (frame.type === FrameType.RES || frame.type === FrameType.DATA || frame.type === FrameType.RESET) {
      this.onAnswerFrame(frame);
      return;
    }
    if (frame.type === FrameType.GOAWAY) {
      if (hub.tunnels.get(id) === this) hub.tunnels.delete(id);
      this.stop.abort(); // the pump stops taking queued requests for it
      void this.goOffline(id);
      return;
    }
    if (frame.type === FrameType.PAIR) {
      const { pairCodeHash } = frameJson<{ pairCodeHash?: unknown }>(frame);
      if (pairCodeHash === null || (typeof pairCodeHash === 'string' && /^[0-9a-f]{64}$/.test(pairCodeHash)))
        void hub.queue.setPairCode(id, pairCodeHash, hub.limits.pairCodeTtlMs).catch(() => undefined);
      return;
    }
    throw new FrameError(`unexpected frame type ${frame.type}`, frame.stream || null);
  }

  /** A frame that does not decode or does not belong: its stream fails alone, or the tunnel closes before AUTH. */
  private onBadFrame(err: unknown, frame: Frame | null): void {
    const stream = err instanceof FrameError ? err.stream : (frame?.stream ?? null);
    const why = err instanceof Error ? err.message : String(err);
    const p = stream ? this.pending.get(stream) : undefined;
    if (p) {
      // The bad frame fails its own stream alone: its client gets a 502, nothing else is touched.
      this.hub.logger.warn('relay tunnel frame does not decode; its request fails alone', { error: why });
      if (this.open)
        this.socket.send(
          encodeReset(stream as number, { code: 'INTERNAL_ERROR', status: 502, message: why }),
        );
      p.resolve({
        kind: 'reset',
        code: 'INTERNAL_ERROR',
        status: 502,
        message: 'The server sent an answer the relay could not decode.',
      });
    } else if (!this.id) this.closeNow(4002, why);
    else this.hub.logger.warn('relay tunnel frame ignored', { error: why });
  }
}
