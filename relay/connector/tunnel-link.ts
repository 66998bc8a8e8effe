import WebSocket from 'ws';
import type { ErrorCode } from '../../core/errors.ts';
import { type identitySigner, tunnelStatement } from '../../core/identity.ts';
import { STATUS } from '../../http-kit/envelope.ts';
import { answerHot } from '../../http-kit/hot-answer.ts';
import { corkedSender } from '../node/ws-cork.ts';
import {
  CLOSE_WIRE_VERSION,
  chunks,
  concat,
  decodeFrame,
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
  pairAnswerHead,
  type RequestHead,
  WIRE_VERSION,
  wireVersionMismatch,
} from '../protocol/frames.ts';
import { headerPairs } from '../protocol/http-codec.ts';
import { WIRE_LIMITS } from '../protocol/limits.ts';
import type { RelayConnectorOptions } from './connector.ts';
import {
  type TunnelHotExchange,
  type TunnelHotFrame,
  type TunnelHotIo,
  tunnelHotRequest,
} from './tunnel-hot.ts';

/** What a link needs of the connector's options: the long-poll connector's, and the hot routes. */
export interface LinkOptions extends RelayConnectorOptions {
  /**
   * The server's hot routes and frame (its Node dispatcher's): a relayed GET or HEAD is offered to
   * them first, straight from the tunnel frame; when none answers, `handle` (the app) does.
   */
  hot?: TunnelHotFrame;
}

const EMPTY = new Uint8Array(0);

const zeroMask = (mask: Uint8Array) => {
  mask.fill(0);
};

/**
 * Resolves when the WebSocket's socket has written out what was queued (or after 50 ms, or at
 * once when there is no socket): a large answer waits for the wire, not for a timer tick.
 */
function drained(ws: WebSocket): Promise<void> {
  const socket = (ws as unknown as { _socket?: import('node:net').Socket })._socket;
  if (!socket) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      socket.off('drain', done);
      resolve();
    };
    const timer = setTimeout(done, 50);
    socket.once('drain', done);
  });
}

/** Bytes queued on the socket above which a large answer waits, so small ones get through between its chunks. */
const HIGH_WATER = 256 * 1024;

interface Inbound {
  head: RequestHead;
  parts: Uint8Array[];
  size: number;
  /** True once nobody waits for the answer (deadline, RESET, tunnel closed). */
  gone: boolean;
  /** Made only when something asks for the signal (the app's Request, a route): most hot answers never do. */
  ctl?: AbortController;
  deadline?: ReturnType<typeof setTimeout>;
}

/** The request's abort signal, made on first use (already aborted when the request is gone). */
function signalOf(s: Inbound): AbortSignal {
  if (!s.ctl) {
    s.ctl = new AbortController();
    if (s.gone) s.ctl.abort();
  }
  return s.ctl.signal;
}

/** Nobody waits for this request any more: its signal aborts and its deadline timer goes. */
function drop(s: Inbound): void {
  s.gone = true;
  clearTimeout(s.deadline);
  s.ctl?.abort();
}

/**
 * Settles once, with nothing or a promise: `wait()` is undefined when it settled at once, so a
 * request answered synchronously (a hot route) costs no promise, timer or signal.
 */
class Once {
  #done = false;
  #value: void | Promise<void> = undefined;
  #resolve: ((v: void | Promise<void>) => void) | undefined;
  settle(v: void | Promise<void>): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#resolve) this.#resolve(v);
    else this.#value = v;
  }
  wait(): void | Promise<void> {
    if (this.#done) return this.#value;
    return new Promise<void>((resolve) => {
      this.#resolve = resolve;
    });
  }
}

/** What a hot stream needs of its connection (one per connection). */
interface HotStreams {
  /** The tunnel can still carry an answer. */
  open(): boolean;
  /** Sends a hot route's answer (what it returns: undefined when sent at once). */
  answer(h: HotStream, status: number, headers: [string, string][], body: Uint8Array): void | Promise<void>;
  /** No hot route answered: the app runs it (its promise). */
  toApp(h: HotStream): Promise<void>;
}

/**
 * One relayed GET or HEAD offered to the server's hot routes: the io its answer leaves by
 * (tunnel-hot.ts `TunnelHotIo`), settled once. A class, so such a request makes no closures.
 */
class HotStream extends Once implements TunnelHotIo {
  constructor(
    readonly conn: HotStreams,
    readonly stream: number,
    readonly s: Inbound,
    readonly method: string,
  ) {
    super();
  }
  open(): boolean {
    return !this.s.gone && this.conn.open();
  }
  write(status: number, headers: [string, string][], body: Uint8Array | null): void {
    this.settle(this.conn.answer(this, status, headers, body ?? EMPTY));
  }
  cut(): void {
    this.settle();
  }
  signal(): AbortSignal {
    return signalOf(this.s);
  }
}

/** No hot route answered: the app (one function for every request). */
const hotToApp = (x: TunnelHotExchange<HotStream>) => x.io.settle(x.io.conn.toApp(x.io));

/**
 * What the connector and its current link share: the connector's settings, and the state a link
 * reads (whether the server still takes requests, the relay's limit) or reports (online, answers,
 * requests in flight, why it ended).
 */
export interface LinkContext {
  readonly opts: LinkOptions;
  /** The origin relayed requests are made against (`${origin}${path}`). */
  readonly origin: string;
  readonly wsUrl: string;
  /** Frames go unmasked (`maskNeedless`). */
  readonly unmasked: boolean;
  readonly heartbeatMs: number;
  readonly signer: ReturnType<typeof identitySigner>;
  /** Requests running, until their answer is sent (`stop` waits for them). */
  readonly inflight: Set<Promise<void>>;
  /** False once the server stops: a request that comes then is refused, never run. */
  running: boolean;
  /** The link's socket while it lives. */
  ws: WebSocket | null;
  lastError: string | null;
  /** Requests answered, since the connector started. */
  handled: number;
  publicUrl: string | null;
  /** The relay's body limit (its READY), both ways. */
  maxBodyBytes: number;
  /** The pairing-code hash the relay was last sent. */
  sentPairHash: string | null | undefined;
  setState(next: 'online', error?: string): void;
  syncPairCode(): Promise<void>;
}

/**
 * One connection of the tunnel, from open to close (`ended` resolves with why it ended): proves
 * the key by signing the relay's challenge, runs every request the relay sends (many at once)
 * against the hot routes or the app, answers with raw bytes in chunks, and pings. A class, so the
 * connection's state is in one place and each frame type has its own method.
 */
export class TunnelLink {
  readonly ended: Promise<'closed' | 'refused'>;
  private readonly socket: WebSocket;
  private readonly streams = new Map<number, Inbound>();
  private ready = false;
  private lastSeen = Date.now();
  private done = false;
  private finish!: (why: 'closed' | 'refused') => void;
  private readonly out: (bytes: Uint8Array) => void;
  private readonly beat: ReturnType<typeof setInterval>;
  /** What this connection's hot streams need of it (made once per connection). */
  private readonly hotStreams: HotStreams = {
    open: () => this.socket.readyState === WebSocket.OPEN,
    answer: (h, status, headers, body) => {
      this.ctx.handled += 1;
      return this.answer(h.stream, h.s, status, headers, body);
    },
    toApp: (h) => this.runApp(h.stream, h.s, h.method),
  };

  constructor(private readonly ctx: LinkContext) {
    this.ended = new Promise((resolve) => {
      this.finish = resolve;
    });
    const socket = new WebSocket(ctx.wsUrl, {
      perMessageDeflate: false,
      maxPayload: WIRE_LIMITS.maxFrameBytes,
      ...(ctx.unmasked ? { generateMask: zeroMask } : {}),
    });
    this.socket = socket;
    ctx.ws = socket;
    this.out = corkedSender(socket);
    this.beat = setInterval(() => {
      if (Date.now() - this.lastSeen > ctx.heartbeatMs * 3) {
        socket.terminate(); // a silent peer: cut and reconnect
        return;
      }
      if (socket.readyState === WebSocket.OPEN) socket.ping();
    }, ctx.heartbeatMs);
    socket.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      socket.terminate();
      if (status === 404)
        this.end(
          'refused',
          'the relay has no tunnel endpoint (upgrade answered 404); set RELAY_TRANSPORT=poll for a relay that only long-polls',
        );
      else this.end('closed', `tunnel upgrade answered ${status}`);
    });
    socket.on('error', (err) => this.end('closed', `tunnel: ${err.message}`));
    socket.on('pong', () => {
      this.lastSeen = Date.now();
    });
    socket.on('close', (code, reason) => {
      const why = reason.toString();
      const refused = code === 4003 || code === CLOSE_WIRE_VERSION;
      this.end(refused ? 'refused' : 'closed', `tunnel closed ${code}${why ? `: ${why}` : ''}`);
    });
    socket.on('open', () => {
      (socket as unknown as { _socket?: { setNoDelay?: (v: boolean) => void } })._socket?.setNoDelay?.(true);
    });
    socket.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private sendBytes(bytes: Uint8Array): void {
    if (this.socket.readyState === WebSocket.OPEN) this.out(bytes);
  }

  private send(type: FrameType, stream: number, flags: number, body: unknown): void {
    this.sendBytes(encodeFrame(type, stream, flags, body));
  }

  /** Fails one stream alone with `code` (its status too, for relays that read only that). */
  private reset(stream: number, code: ErrorCode, message: string): void {
    this.sendBytes(encodeReset(stream, { code, status: STATUS[code], message }));
  }

  private end(why: 'closed' | 'refused', error?: string): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.beat);
    // Requests in flight keep running; their answers cannot be delivered on a new connection
    // (the relay already answered 504), and nothing is ever executed twice.
    for (const s of this.streams.values()) drop(s);
    this.streams.clear();
    if (this.ctx.ws === this.socket) this.ctx.ws = null;
    if (error) this.ctx.lastError = error;
    this.finish(why);
  }

  private onMessage(buf: Buffer, isBinary: boolean): void {
    this.lastSeen = Date.now();
    if (!isBinary) return;
    let frame: Frame | null = null;
    try {
      frame = decodeFrame(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
      this.onFrame(frame);
    } catch (err) {
      const stream = err instanceof FrameError ? err.stream : (frame?.stream ?? null);
      const why = err instanceof Error ? err.message : String(err);
      this.ctx.opts.logger.warn('relay tunnel frame does not decode; its request fails alone', {
        error: why,
      });
      // The undecodable request fails alone with its own 400; everything else goes on.
      if (stream) {
        const s = this.streams.get(stream);
        if (s) drop(s);
        this.streams.delete(stream);
        this.reset(stream, 'VALIDATION_ERROR', 'The server could not decode the relayed request.');
      }
    }
  }

  private onFrame(frame: Frame): void {
    switch (frame.type) {
      case FrameType.HELLO:
        this.onHello(frame);
        return;
      case FrameType.READY: {
        const r = frameJson<{ publicUrl: string; limits?: { maxBodyBytes?: number } }>(frame);
        this.ctx.publicUrl = r.publicUrl;
        if (typeof r.limits?.maxBodyBytes === 'number') this.ctx.maxBodyBytes = r.limits.maxBodyBytes;
        this.ready = true;
        this.ctx.setState('online');
        void this.ctx.syncPairCode();
        return;
      }
      case FrameType.REQ:
        this.onRequest(frame);
        return;
      case FrameType.DATA:
        this.onData(frame);
        return;
      case FrameType.RESET: {
        // The relay gave up on it (deadline, client gone): stop working on it.
        const s = this.streams.get(frame.stream);
        if (s) drop(s);
        this.streams.delete(frame.stream);
        return;
      }
      default:
        throw new FrameError(`unexpected frame type ${frame.type}`, frame.stream || null);
    }
  }

  /** The relay's challenge: a relay of another wire version is refused; else the key's signature. */
  private onHello(frame: Frame): void {
    const { opts, signer } = this.ctx;
    const { challenge, version } = frameJson<{ challenge: string; version?: unknown }>(frame);
    const mismatch = wireVersionMismatch(version);
    if (mismatch) {
      // A relay of another wire version: nothing it sends could be read; say why, both ends.
      opts.logger.error('relay tunnel refused', { error: mismatch });
      this.socket.close(CLOSE_WIRE_VERSION, mismatch);
      this.end('refused', `tunnel closed ${CLOSE_WIRE_VERSION}: ${mismatch}`);
      return;
    }
    void (async () => {
      const signature = await signer.sign(
        tunnelStatement(opts.serverId, signer.publicKey, String(challenge)),
      );
      const pairCodeHash = opts.pairCodeHash ? await opts.pairCodeHash().catch(() => null) : undefined;
      this.ctx.sentPairHash = pairCodeHash;
      this.send(FrameType.AUTH, 0, 0, {
        version: WIRE_VERSION,
        serverId: opts.serverId,
        publicKey: signer.publicKey,
        signature,
        pairCodeHash,
      });
    })();
  }

  private onRequest(frame: Frame): void {
    if (!this.ready) throw new FrameError('request before READY', frame.stream);
    const head = frameHead<RequestHead>(frame);
    if (head.kind !== 'http' && head.kind !== 'pair')
      throw new FrameError('unknown request kind', frame.stream);
    if (!this.ctx.running) {
      // Sent by the relay before it read our GOAWAY: refused, never run (its client gets
      // 503 SERVER_OFFLINE), so nothing runs whose answer the closing tunnel would lose.
      this.reset(frame.stream, 'SERVER_OFFLINE', 'The server is stopping.');
      return;
    }
    const s: Inbound = { head, parts: [], size: 0, gone: false };
    const inline = inlineBody(frame);
    if (inline?.byteLength) {
      if (inline.byteLength > this.ctx.maxBodyBytes)
        throw new FrameError('request body over the limit', frame.stream);
      s.size = inline.byteLength;
      s.parts.push(inline.slice());
    }
    const ttl = Math.max(1, Number(head.ttlMs) || 1);
    this.streams.set(frame.stream, s);
    // A whole request arms its deadline only if it is not answered at once (start).
    if (frame.flags & END) this.start(frame.stream, s, ttl);
    else this.arm(s, ttl);
  }

  private onData(frame: Frame): void {
    const s = this.streams.get(frame.stream);
    if (!s) return; // reset earlier
    s.size += frame.payload.byteLength;
    if (s.size > this.ctx.maxBodyBytes) throw new FrameError('request body over the limit', frame.stream);
    s.parts.push(frame.payload.slice());
    if (!(frame.flags & END)) return;
    if (!this.ctx.running) {
      // Its body ended after our GOAWAY: `stop` no longer waits for new work, so it is
      // refused like a request that arrives then (503), never run with its answer lost.
      clearTimeout(s.deadline);
      this.streams.delete(frame.stream);
      this.reset(frame.stream, 'SERVER_OFFLINE', 'The server is stopping.');
      return;
    }
    this.start(frame.stream, s);
  }

  /** The request's deadline: past it, nobody waits for the answer (the relay answered 504). */
  private arm(s: Inbound, ttl: number): void {
    if (s.deadline !== undefined || s.gone) return;
    const t = setTimeout(() => drop(s), ttl);
    // A request's deadline never keeps a stopped server's process alive.
    (t as { unref?: () => void }).unref?.();
    s.deadline = t;
  }

  /** Runs a whole request; one answered at once (a hot route) leaves nothing behind. */
  private start(stream: number, s: Inbound, ttl?: number): void {
    const { logger } = this.ctx.opts;
    let now: void | Promise<void>;
    try {
      now = this.run(stream, s);
    } catch (err) {
      logger.error('relayed request failed', { error: String(err) });
      now = undefined;
    }
    if (now === undefined) {
      clearTimeout(s.deadline);
      if (this.streams.get(stream) === s) this.streams.delete(stream);
      return;
    }
    if (ttl !== undefined) this.arm(s, ttl);
    const p = now
      .catch((err) => logger.error('relayed request failed', { error: String(err) }))
      .finally(() => {
        // Done: its deadline timer goes now, not when it would have fired.
        clearTimeout(s.deadline);
        this.ctx.inflight.delete(p);
        if (this.streams.get(stream) === s) this.streams.delete(stream);
      });
    this.ctx.inflight.add(p);
  }

  private run(stream: number, s: Inbound): void | Promise<void> {
    const { head } = s;
    if (head.kind === 'pair') return this.runPair(stream, head);
    const method = String(head.method);
    const frame = this.ctx.opts.hot;
    if (frame && frame.routes.length > 0 && (method === 'GET' || method === 'HEAD')) {
      // The server's hot routes first, straight from the frame (http-kit/hot-answer.ts: the
      // same rules the Node dispatcher applies); none answers: the app, as below.
      const io = new HotStream(this.hotStreams, stream, s, method);
      const x = tunnelHotRequest(method, String(head.path), head.headers ?? [], frame, io);
      if (x) {
        answerHot(x, frame, hotToApp);
        return io.wait();
      }
    }
    return this.runApp(stream, s, method);
  }

  private async runPair(stream: number, head: RequestHead): Promise<void> {
    const r = await this.ctx.opts.redeemPairCode(String(head.code ?? '')).catch(() => null);
    this.ctx.handled += 1;
    this.sendBytes(encodeHead(FrameType.RES, stream, END, pairAnswerHead(r?.apiKey ?? null)));
    if (r?.apiKey) void this.ctx.syncPairCode();
  }

  /** Runs a relayed request through the app (`handle`) and sends its answer. */
  private async runApp(stream: number, s: Inbound, method: string): Promise<void> {
    const { head } = s;
    let req: Request;
    try {
      const headers = new Headers();
      for (const [k, val] of head.headers ?? []) headers.append(k, val);
      const hasBody = method !== 'GET' && method !== 'HEAD' && s.size > 0;
      req = new Request(`${this.ctx.origin}${head.path}`, {
        method,
        headers,
        body: hasBody ? (concat(s.parts, s.size) as Uint8Array<ArrayBuffer>) : null,
        signal: signalOf(s),
      });
    } catch {
      this.reset(stream, 'VALIDATION_ERROR', 'The relayed request is not a valid HTTP request.');
      return;
    }
    let res: Response;
    try {
      res = await this.ctx.opts.handle(req);
    } catch {
      if (s.gone) return;
      this.reset(stream, 'INTERNAL_ERROR', 'Something went wrong on the server.');
      return;
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (s.gone) return;
    this.ctx.handled += 1;
    return this.answer(stream, s, res.status, headerPairs(res.headers), bytes);
  }

  /**
   * Sends one answer: inline when it fits one frame (at once: nothing returned), else a head
   * and DATA chunks, paced by the socket (the promise of their sending).
   */
  private answer(
    stream: number,
    s: Inbound,
    status: number,
    headers: [string, string][],
    bytes: Uint8Array,
  ): void | Promise<void> {
    const { maxBodyBytes } = this.ctx;
    if (bytes.byteLength > maxBodyBytes) {
      const message = `The server's answer is larger than the relay's limit of ${maxBodyBytes} bytes.`;
      this.reset(stream, 'PAYLOAD_TOO_LARGE', message);
      return;
    }
    const noBody = bytes.byteLength === 0;
    const answerHead = { status, headers };
    // An answer that fits in one frame goes with its head: one message.
    const whole = noBody ? null : encodeInline(FrameType.RES, stream, answerHead, bytes);
    if (whole) return this.sendBytes(whole);
    this.sendBytes(encodeHead(FrameType.RES, stream, noBody ? END : 0, answerHead));
    if (noBody) return;
    return this.sendChunks(stream, s, bytes);
  }

  private async sendChunks(stream: number, s: Inbound, bytes: Uint8Array): Promise<void> {
    const { socket } = this;
    const parts = chunks(bytes);
    for (let i = 0; i < parts.length; i++) {
      // Flow control: a large answer yields while the socket is backed up.
      while (socket.bufferedAmount > HIGH_WATER && socket.readyState === WebSocket.OPEN)
        await drained(socket);
      if (s.gone && socket.readyState !== WebSocket.OPEN) return;
      this.send(FrameType.DATA, stream, i === parts.length - 1 ? END : 0, parts[i]);
    }
  }
}
