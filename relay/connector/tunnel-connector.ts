import WebSocket from 'ws';
import type { ErrorCode } from '../../core/errors.ts';
import { identitySigner, tunnelStatement } from '../../core/identity.ts';
import { isLoopbackHost } from '../../core/net/hosts.ts';
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
import { backoffDelay, sleep, within } from './backoff.ts';
import type { RelayConnector, RelayConnectorOptions, RelayConnectorStatus } from './connector.ts';
import {
  type TunnelHotExchange,
  type TunnelHotFrame,
  type TunnelHotIo,
  tunnelHotRequest,
} from './tunnel-hot.ts';

/** Options of `tunnelConnector`: the long-poll connector's, plus the heartbeat and the hot routes. */
export interface TunnelConnectorOptions extends RelayConnectorOptions {
  /** Ping interval in ms (default 10 000); no frame or pong for 3 intervals cuts and reconnects. */
  heartbeatMs?: number;
  /**
   * The server's hot routes and frame (its Node dispatcher's): a relayed GET or HEAD is offered to
   * them first, straight from the tunnel frame; when none answers, `handle` (the app) does.
   */
  hot?: TunnelHotFrame;
}

const EMPTY = new Uint8Array(0);

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
 * The server side of the relay over one long-lived WebSocket carrying binary frames: proves the
 * key by signing the relay's challenge, runs every request the relay sends (many at once) against
 * `handle`, answers with raw bytes in chunks, pings, and reconnects with backoff. A relay of
 * another wire version, or one without the tunnel endpoint (404 on upgrade), leaves it `refused`
 * with a `lastError` that says why (the long-poll connector, connector.ts, is the spec's other
 * way to a relay: `RELAY_TRANSPORT=poll`).
 */
export function tunnelConnector(opts: TunnelConnectorOptions): RelayConnector {
  const { logger } = opts;
  const random = opts.random ?? Math.random;
  const origin = (opts.origin ?? new URL(opts.relayUrl).origin).replace(/\/+$/, '');
  const wsUrl = `${opts.relayUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/api/v1/relay/tunnel`;
  const signer = identitySigner(opts.identity);
  const heartbeatMs = opts.heartbeatMs ?? 10_000;
  const unmasked = maskNeedless(wsUrl);
  let state: RelayConnectorStatus['state'] = 'stopped';
  let since = Date.now();
  let lastError: string | null = null;
  let reconnects = 0;
  let everOnline = false;
  let handled = 0;
  let publicUrl: string | null = null;
  let maxBodyBytes = WIRE_LIMITS.maxBodyBytes;
  let running = false;
  let ws: WebSocket | null = null;
  let loop: Promise<void> | null = null;
  let stopCtl = new AbortController();
  let sentPairHash: string | null | undefined;
  const inflight = new Set<Promise<void>>();

  function setState(next: RelayConnectorStatus['state'], error?: string) {
    if (error !== undefined) lastError = error;
    if (next === state) return;
    if (next === 'online' && everOnline) reconnects += 1;
    if (next === 'online') everOnline = true;
    state = next;
    since = Date.now();
    const fields = { serverId: opts.serverId, transport: 'tunnel', ...(error ? { error } : {}) };
    if (next === 'offline' || next === 'refused') logger.warn(`relay connector ${next}`, fields);
    else logger.info(`relay connector ${next}`, fields);
  }

  /** One connection, from open to close; resolves with why it ended. */
  function connectOnce(): Promise<'closed' | 'refused'> {
    return new Promise((resolve) => {
      const socket = new WebSocket(wsUrl, {
        perMessageDeflate: false,
        maxPayload: WIRE_LIMITS.maxFrameBytes,
        ...(unmasked ? { generateMask: zeroMask } : {}),
      });
      ws = socket;
      const streams = new Map<number, Inbound>();
      let ready = false;
      let lastSeen = Date.now();
      let ended = false;
      const out = corkedSender(socket);
      const sendBytes = (bytes: Uint8Array) => {
        if (socket.readyState === WebSocket.OPEN) out(bytes);
      };
      const send = (type: FrameType, stream: number, flags: number, body: unknown) =>
        sendBytes(encodeFrame(type, stream, flags, body));
      /** Fails one stream alone with `code` (its status too, for relays that read only that). */
      const reset = (stream: number, code: ErrorCode, message: string) =>
        sendBytes(encodeReset(stream, { code, status: STATUS[code], message }));
      const beat = setInterval(() => {
        if (Date.now() - lastSeen > heartbeatMs * 3) {
          socket.terminate(); // a silent peer: cut and reconnect
          return;
        }
        if (socket.readyState === WebSocket.OPEN) socket.ping();
      }, heartbeatMs);
      const end = (why: 'closed' | 'refused', error?: string) => {
        if (ended) return;
        ended = true;
        clearInterval(beat);
        // Requests in flight keep running; their answers cannot be delivered on a new connection
        // (the relay already answered 504), and nothing is ever executed twice.
        for (const s of streams.values()) drop(s);
        streams.clear();
        if (ws === socket) ws = null;
        if (error) lastError = error;
        resolve(why);
      };
      socket.on('unexpected-response', (_req, res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        socket.terminate();
        if (status === 404)
          end(
            'refused',
            'the relay has no tunnel endpoint (upgrade answered 404); set RELAY_TRANSPORT=poll for a relay that only long-polls',
          );
        else end('closed', `tunnel upgrade answered ${status}`);
      });
      socket.on('error', (err) => end('closed', `tunnel: ${err.message}`));
      socket.on('pong', () => {
        lastSeen = Date.now();
      });
      socket.on('close', (code, reason) => {
        const why = reason.toString();
        const refused = code === 4003 || code === CLOSE_WIRE_VERSION;
        end(refused ? 'refused' : 'closed', `tunnel closed ${code}${why ? `: ${why}` : ''}`);
      });
      socket.on('open', () => {
        (socket as unknown as { _socket?: { setNoDelay?: (v: boolean) => void } })._socket?.setNoDelay?.(
          true,
        );
      });
      socket.on('message', (data, isBinary) => {
        lastSeen = Date.now();
        if (!isBinary) return;
        const buf = data as Buffer;
        let frame: Frame | null = null;
        try {
          frame = decodeFrame(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
          onFrame(frame);
        } catch (err) {
          const stream = err instanceof FrameError ? err.stream : (frame?.stream ?? null);
          const why = err instanceof Error ? err.message : String(err);
          logger.warn('relay tunnel frame does not decode; its request fails alone', { error: why });
          // The undecodable request fails alone with its own 400; everything else goes on.
          if (stream) {
            const s = streams.get(stream);
            if (s) drop(s);
            streams.delete(stream);
            reset(stream, 'VALIDATION_ERROR', 'The server could not decode the relayed request.');
          }
        }
      });

      function onFrame(frame: Frame) {
        switch (frame.type) {
          case FrameType.HELLO: {
            const { challenge, version } = frameJson<{ challenge: string; version?: unknown }>(frame);
            const mismatch = wireVersionMismatch(version);
            if (mismatch) {
              // A relay of another wire version: nothing it sends could be read; say why, both ends.
              logger.error('relay tunnel refused', { error: mismatch });
              socket.close(CLOSE_WIRE_VERSION, mismatch);
              end('refused', `tunnel closed ${CLOSE_WIRE_VERSION}: ${mismatch}`);
              return;
            }
            void (async () => {
              const signature = await signer.sign(
                tunnelStatement(opts.serverId, signer.publicKey, String(challenge)),
              );
              const pairCodeHash = opts.pairCodeHash
                ? await opts.pairCodeHash().catch(() => null)
                : undefined;
              sentPairHash = pairCodeHash;
              send(FrameType.AUTH, 0, 0, {
                version: WIRE_VERSION,
                serverId: opts.serverId,
                publicKey: signer.publicKey,
                signature,
                pairCodeHash,
              });
            })();
            return;
          }
          case FrameType.READY: {
            const r = frameJson<{ publicUrl: string; limits?: { maxBodyBytes?: number } }>(frame);
            publicUrl = r.publicUrl;
            if (typeof r.limits?.maxBodyBytes === 'number') maxBodyBytes = r.limits.maxBodyBytes;
            ready = true;
            setState('online');
            void syncPairCode();
            return;
          }
          case FrameType.REQ: {
            if (!ready) throw new FrameError('request before READY', frame.stream);
            const head = frameHead<RequestHead>(frame);
            if (head.kind !== 'http' && head.kind !== 'pair')
              throw new FrameError('unknown request kind', frame.stream);
            if (!running) {
              // Sent by the relay before it read our GOAWAY: refused, never run (its client gets
              // 503 SERVER_OFFLINE), so nothing runs whose answer the closing tunnel would lose.
              reset(frame.stream, 'SERVER_OFFLINE', 'The server is stopping.');
              return;
            }
            const s: Inbound = { head, parts: [], size: 0, gone: false };
            const inline = inlineBody(frame);
            if (inline?.byteLength) {
              if (inline.byteLength > maxBodyBytes)
                throw new FrameError('request body over the limit', frame.stream);
              s.size = inline.byteLength;
              s.parts.push(inline.slice());
            }
            const ttl = Math.max(1, Number(head.ttlMs) || 1);
            streams.set(frame.stream, s);
            // A whole request arms its deadline only if it is not answered at once (start).
            if (frame.flags & END) start(frame.stream, s, ttl);
            else arm(s, ttl);
            return;
          }
          case FrameType.DATA: {
            const s = streams.get(frame.stream);
            if (!s) return; // reset earlier
            s.size += frame.payload.byteLength;
            if (s.size > maxBodyBytes) throw new FrameError('request body over the limit', frame.stream);
            s.parts.push(frame.payload.slice());
            if (!(frame.flags & END)) return;
            if (!running) {
              // Its body ended after our GOAWAY: `stop` no longer waits for new work, so it is
              // refused like a request that arrives then (503), never run with its answer lost.
              clearTimeout(s.deadline);
              streams.delete(frame.stream);
              reset(frame.stream, 'SERVER_OFFLINE', 'The server is stopping.');
              return;
            }
            start(frame.stream, s);
            return;
          }
          case FrameType.RESET: {
            // The relay gave up on it (deadline, client gone): stop working on it.
            const s = streams.get(frame.stream);
            if (s) drop(s);
            streams.delete(frame.stream);
            return;
          }
          default:
            throw new FrameError(`unexpected frame type ${frame.type}`, frame.stream || null);
        }
      }

      /** The request's deadline: past it, nobody waits for the answer (the relay answered 504). */
      function arm(s: Inbound, ttl: number) {
        if (s.deadline !== undefined || s.gone) return;
        const t = setTimeout(() => drop(s), ttl);
        // A request's deadline never keeps a stopped server's process alive.
        (t as { unref?: () => void }).unref?.();
        s.deadline = t;
      }

      /** Runs a whole request; one answered at once (a hot route) leaves nothing behind. */
      function start(stream: number, s: Inbound, ttl?: number) {
        let now: void | Promise<void>;
        try {
          now = run(stream, s);
        } catch (err) {
          logger.error('relayed request failed', { error: String(err) });
          now = undefined;
        }
        if (now === undefined) {
          clearTimeout(s.deadline);
          if (streams.get(stream) === s) streams.delete(stream);
          return;
        }
        if (ttl !== undefined) arm(s, ttl);
        const p = now
          .catch((err) => logger.error('relayed request failed', { error: String(err) }))
          .finally(() => {
            // Done: its deadline timer goes now, not when it would have fired.
            clearTimeout(s.deadline);
            inflight.delete(p);
            if (streams.get(stream) === s) streams.delete(stream);
          });
        inflight.add(p);
      }

      /** What this connection's hot streams need of it (made once per connection). */
      const hotStreams: HotStreams = {
        open: () => socket.readyState === WebSocket.OPEN,
        answer: (h, status, headers, body) => {
          handled += 1;
          return answer(h.stream, h.s, status, headers, body);
        },
        toApp: (h) => runApp(h.stream, h.s, h.method),
      };

      function run(stream: number, s: Inbound): void | Promise<void> {
        const { head } = s;
        if (head.kind === 'pair') return runPair(stream, head);
        const method = String(head.method);
        const frame = opts.hot;
        if (frame && frame.routes.length > 0 && (method === 'GET' || method === 'HEAD')) {
          // The server's hot routes first, straight from the frame (http-kit/hot-answer.ts: the
          // same rules the Node dispatcher applies); none answers: the app, as below.
          const io = new HotStream(hotStreams, stream, s, method);
          const x = tunnelHotRequest(method, String(head.path), head.headers ?? [], frame, io);
          if (x) {
            answerHot(x, frame, hotToApp);
            return io.wait();
          }
        }
        return runApp(stream, s, method);
      }

      async function runPair(stream: number, head: RequestHead) {
        const r = await opts.redeemPairCode(String(head.code ?? '')).catch(() => null);
        handled += 1;
        sendBytes(encodeHead(FrameType.RES, stream, END, pairAnswerHead(r?.apiKey ?? null)));
        if (r?.apiKey) void syncPairCode();
      }

      /** Runs a relayed request through the app (`handle`) and sends its answer. */
      async function runApp(stream: number, s: Inbound, method: string) {
        const { head } = s;
        let req: Request;
        try {
          const headers = new Headers();
          for (const [k, val] of head.headers ?? []) headers.append(k, val);
          const hasBody = method !== 'GET' && method !== 'HEAD' && s.size > 0;
          req = new Request(`${origin}${head.path}`, {
            method,
            headers,
            body: hasBody ? (concat(s.parts, s.size) as Uint8Array<ArrayBuffer>) : null,
            signal: signalOf(s),
          });
        } catch {
          reset(stream, 'VALIDATION_ERROR', 'The relayed request is not a valid HTTP request.');
          return;
        }
        let res: Response;
        try {
          res = await opts.handle(req);
        } catch {
          if (s.gone) return;
          reset(stream, 'INTERNAL_ERROR', 'Something went wrong on the server.');
          return;
        }
        const bytes = new Uint8Array(await res.arrayBuffer());
        if (s.gone) return;
        handled += 1;
        return answer(stream, s, res.status, headerPairs(res.headers), bytes);
      }

      /**
       * Sends one answer: inline when it fits one frame (at once: nothing returned), else a head
       * and DATA chunks, paced by the socket (the promise of their sending).
       */
      function answer(
        stream: number,
        s: Inbound,
        status: number,
        headers: [string, string][],
        bytes: Uint8Array,
      ): void | Promise<void> {
        if (bytes.byteLength > maxBodyBytes) {
          const message = `The server's answer is larger than the relay's limit of ${maxBodyBytes} bytes.`;
          reset(stream, 'PAYLOAD_TOO_LARGE', message);
          return;
        }
        const noBody = bytes.byteLength === 0;
        const answerHead = { status, headers };
        // An answer that fits in one frame goes with its head: one message.
        const whole = noBody ? null : encodeInline(FrameType.RES, stream, answerHead, bytes);
        if (whole) return sendBytes(whole);
        sendBytes(encodeHead(FrameType.RES, stream, noBody ? END : 0, answerHead));
        if (noBody) return;
        return sendChunks(stream, s, bytes);
      }

      async function sendChunks(stream: number, s: Inbound, bytes: Uint8Array) {
        const parts = chunks(bytes);
        for (let i = 0; i < parts.length; i++) {
          // Flow control: a large answer yields while the socket is backed up.
          while (socket.bufferedAmount > HIGH_WATER && socket.readyState === WebSocket.OPEN)
            await drained(socket);
          if (s.gone && socket.readyState !== WebSocket.OPEN) return;
          send(FrameType.DATA, stream, i === parts.length - 1 ? END : 0, parts[i]);
        }
      }
    });
  }

  async function syncPairCode() {
    if (!opts.pairCodeHash || !ws || state !== 'online') return;
    const hash = await opts.pairCodeHash().catch(() => null);
    if (hash === sentPairHash) return;
    sentPairHash = hash;
    if (ws?.readyState === WebSocket.OPEN) ws.send(encodeFrame(FrameType.PAIR, 0, 0, { pairCodeHash: hash }));
  }

  async function run() {
    let attempt = 0;
    while (running) {
      const why = await connectOnce();
      if (!running) break;
      if (state === 'online') attempt = 0;
      setState(why === 'refused' ? 'refused' : 'offline', lastError ?? undefined);
      await sleep(backoffDelay(attempt, opts.backoff, random), stopCtl.signal);
      attempt += 1;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      stopCtl = new AbortController();
      setState('connecting');
      loop = run();
    },
    async stop(graceMs = 10_000) {
      if (!running) return;
      running = false;
      stopCtl.abort();
      // Tell the relay first (it refuses new requests for us at once), finish what is in flight
      // (its answers still go out), then close the tunnel cleanly.
      if (ws?.readyState === WebSocket.OPEN) ws.send(encodeFrame(FrameType.GOAWAY, 0, 0, {}));
      await within(Promise.allSettled([...inflight]), graceMs);
      ws?.close(1000, 'server stopping');
      const closing = ws;
      if (closing) await within(new Promise((r) => closing.once('close', r)), 1_000);
      ws?.terminate();
      await loop;
      publicUrl = null;
      setState('stopped');
    },
    status: () => ({
      state,
      transport: 'tunnel',
      relayUrl: opts.relayUrl,
      serverId: opts.serverId,
      publicUrl,
      since,
      lastError,
      handled,
      inFlight: inflight.size,
      reconnects,
    }),
    syncPairCode,
  };
}
