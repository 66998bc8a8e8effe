import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddressOf } from '../frame.ts';
import { answerHot, foldedRawPairs, type HotExchange, type HotFrame, plainTarget } from '../hot-answer.ts';
import { requestIdOf } from '../request-id.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Host headers @hono/node-server takes as they are (the test it makes in its url.ts; any other takes the app). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** What a Node server's frame is made of: its hot routes and the frame's rules (http-kit/hot-answer.ts). */
export interface NodeFrame extends HotFrame {
  trustProxy: boolean;
  draining: () => boolean;
}

/**
 * The one node:http dispatcher of the note server and the relay: GET and HEAD without a body, on
 * a plain target and Host, are offered to the hot routes in turn (http-kit/hot-route.ts); the
 * first answer is written straight to the socket with the frame's rules applied by `answerHot`
 * (http-kit/hot-answer.ts): the request id, the base headers (security, CORS) where the answer
 * lacks them, no body for HEAD, 204, 205 and 304, the error answer for anything a route throws,
 * and the access-log line. Everything else (and every request while draining) goes to `next`,
 * the app's listener.
 */
export function hotDispatcher(next: Listener, frame: NodeFrame): Listener {
  const { routes } = frame;
  const fallThrough = (x: NodeHotRequest) => next(x.req, x.res);
  return (req, res) => {
    const method = req.method;
    const url = req.url;
    const h = req.headers;
    if (
      (method !== 'GET' && method !== 'HEAD') ||
      url === undefined ||
      routes.length === 0 ||
      h['content-length'] !== undefined ||
      h['transfer-encoding'] !== undefined ||
      h.host === undefined ||
      !PLAIN_HOST.test(h.host) ||
      frame.draining()
    )
      return next(req, res);
    const target = plainTarget(url);
    if (target === null) return next(req, res);
    const hot = new NodeHotRequest(req, res, method, target.path, target.search, frame);
    answerHot(hot, frame, fallThrough);
  };
}

/** A HotRequest over node:http's request, every part read only when a route asks. */
const EXCHANGE = Symbol('hot exchange');
type GoneAware = ServerResponse & { [EXCHANGE]?: NodeHotRequest };

function onResponseClose(this: ServerResponse) {
  (this as GoneAware)[EXCHANGE]?.gone();
}

class NodeHotRequest implements HotExchange {
  #gone: AbortController | undefined;
  #onGone: (() => void) | undefined;
  #id: string | undefined;
  readonly started = performance.now();
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly method: 'GET' | 'HEAD',
    readonly path: string,
    readonly search: string,
    readonly frame: NodeFrame,
  ) {}

  requestId(): string {
    this.#id ??= requestIdOf(this.req.headers['x-request-id']);
    return this.#id;
  }

  open(): boolean {
    return !this.res.destroyed;
  }

  headersSent(): boolean {
    return this.res.headersSent;
  }

  write(status: number, lines: string[], body: Uint8Array | null): void {
    if (body) lines.push('Content-Length', String(body.byteLength));
    this.res.writeHead(status, lines);
    this.res.end(body ?? undefined);
  }

  cut(): void {
    this.res.destroy();
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  headerPairs(): [string, string][] {
    return foldedRawPairs(this.req.rawHeaders);
  }

  address(): string | undefined {
    return clientAddressOf(
      this.frame.trustProxy,
      this.header('x-forwarded-for'),
      () => this.req.socket.remoteAddress,
    );
  }

  whenGone(cb: () => void): () => void {
    // One listener function for every response, its callback kept on the exchange: no closure
    // is made per request (a second listener gets its own).
    if (this.#onGone) {
      const { res } = this;
      const also = () => {
        if (!res.writableFinished) cb();
      };
      res.on('close', also);
      return () => res.off('close', also);
    }
    this.#onGone = cb;
    (this.res as GoneAware)[EXCHANGE] = this;
    this.res.on('close', onResponseClose);
    // An unnamed arrow, made only when asked (a class field would be made, and under tsx named,
    // for every request).
    return () => this.#stopGone();
  }

  /** Stops telling the first `whenGone` callback. */
  #stopGone(): void {
    this.#onGone = undefined;
    this.res.off('close', onResponseClose);
  }

  /** The response closed: its client left unless the answer was all written. */
  gone(): void {
    const cb = this.#onGone;
    this.#onGone = undefined;
    if (cb && !this.res.writableFinished) cb();
  }

  signal(): AbortSignal {
    if (!this.#gone) {
      const gone = new AbortController();
      this.#gone = gone;
      this.res.once('close', () => {
        if (!this.res.writableFinished) gone.abort();
      });
    }
    return this.#gone.signal;
  }
}
