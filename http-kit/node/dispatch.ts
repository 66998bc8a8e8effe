import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../core/ports.ts';
import { errorAnswer, logInternal } from '../envelope.ts';
import {
  answerHeaderLines,
  type BaseHeaders,
  clientAddressOf,
  type FrameStats,
  foldInto,
  type LogRule,
  logRequest,
} from '../frame.ts';
import { type HotRequest, type HotRoute, noBody, type PlainAnswer } from '../hot-route.ts';
import { REQUEST_ID_HEADER, requestIdOf } from '../request-id.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Request targets hot routes are offered: characters the WHATWG URL parser and @hono/node-server
 * leave as they are in a path (and a query: `'` is encoded there, so not taken), so the path a
 * hot route sees here is the one it sees inside the app. Anything else takes the app.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*)?$/;
/** A dot segment, also percent-encoded: the URL parser would resolve it. */
const DOT_SEGMENT = /\/\.|%2e/i;
/** Host headers @hono/node-server takes as they are (the test it makes in its url.ts; any other takes the app). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** What a Node server's frame is made of: its hot routes and the frame's rules (http-kit/frame.ts). */
export interface NodeFrame {
  /** Asked in order; read on every request (a root may fill it once its app is made). */
  routes: readonly HotRoute[];
  logger: Logger;
  /** Named in the 500 answer: "Something went wrong in the <where>". */
  where: string;
  /** The headers every answer carries unless it sets them (the app's frame computes the same). */
  base: (id: string, req: HotRequest) => BaseHeaders;
  log?: LogRule;
  trustProxy: boolean;
  draining: () => boolean;
  stats?: FrameStats;
  /** Counts the answers hot routes gave here (tests, benchmarks). */
  answered?: { count: number };
}

/**
 * The one node:http dispatcher of the note server and the relay: GET and HEAD without a body, on
 * a plain target and Host, are offered to the hot routes in turn (http-kit/hot-route.ts); the
 * first answer is written straight to the socket with the frame's rules applied once here: the
 * request id, the base headers (security, CORS) where the answer lacks them, no body for HEAD,
 * 204, 205 and 304, the error answer for anything a route throws, and the access-log line.
 * Everything else (and every request while draining) goes to `next`, the app's listener.
 */
export function hotDispatcher(next: Listener, frame: NodeFrame): Listener {
  const { routes } = frame;
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
      !PLAIN_TARGET.test(url) ||
      frame.draining()
    )
      return next(req, res);
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (DOT_SEGMENT.test(path)) return next(req, res);
    const hot = new NodeHotRequest(
      req,
      res,
      method,
      path,
      q === -1 || q === url.length - 1 ? '' : url.slice(q),
      frame,
    );
    step(hot, next, 0);
  };
}

/** Asks the routes from `from` on; the first answer is written, none: `next`. */
function step(hot: NodeHotRequest, next: Listener, from: number): void {
  const { routes } = hot.frame;
  for (let i = from; i < routes.length; i++) {
    let a: ReturnType<HotRoute>;
    try {
      a = routes[i]!(hot);
    } catch (err) {
      fail(hot, err);
      return;
    }
    if (a === null) continue;
    if (a instanceof Promise) {
      a.then(
        (x) => (x === null ? step(hot, next, i + 1) : answer(hot, x)),
        (err) => fail(hot, err),
      );
      return;
    }
    answer(hot, a);
    return;
  }
  next(hot.req, hot.res);
}

function answer(hot: NodeHotRequest, a: PlainAnswer): void {
  try {
    send(hot, a);
  } catch (err) {
    // A header value no HTTP message can carry, say: a 500 like the app's, never a crash.
    fail(hot, err);
  }
}

/** Writes one answer by the frame's rules: base headers, no body where none goes, the log line. */
function send(hot: NodeHotRequest, a: PlainAnswer, extra?: [string, string][]): void {
  const { res, frame, method } = hot;
  if (res.destroyed) return;
  const id = hot.requestId();
  const flat = answerHeaderLines(extra ? [...a.headers, ...extra] : a.headers, frame.base(id, hot));
  const body = noBody(method, a.status) ? null : a.body;
  if (body) flat.push('Content-Length', String(body.byteLength));
  res.writeHead(a.status, flat);
  res.end(body ?? undefined);
  if (frame.stats) frame.stats.requests++;
  if (frame.answered) frame.answered.count++;
  logRequest(frame.logger, frame.log, id, method, loggedPath(hot.path), a.status, hot.started);
}

/** The frame's error answer (with the request id) for anything a route threw. */
function fail(hot: NodeHotRequest, err: unknown): void {
  const { res, frame } = hot;
  const e = errorAnswer(err, frame.where);
  if (e.internal) logInternal(frame.logger, hot.requestId(), err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: [string, string][] = [['content-type', 'application/json'], ...Object.entries(e.headers)];
  const body = new TextEncoder().encode(JSON.stringify(e.body));
  try {
    send(hot, { status: e.status, headers, body }, [[REQUEST_ID_HEADER, hot.requestId()]]);
  } catch (again) {
    logInternal(frame.logger, hot.requestId(), again);
    res.destroy();
  }
}

/** The path the access log shows: decoded as Hono's `c.req.path` is (a malformed escape stays). */
function loggedPath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** A HotRequest over node:http's request, every part read only when a route asks. */
class NodeHotRequest implements HotRequest {
  #gone: AbortController | undefined;
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

  /** The request's id (http-kit/request-id.ts), made once it is needed. */
  requestId(): string {
    this.#id ??= requestIdOf(this.req.headers['x-request-id']);
    return this.#id;
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  headerPairs(): [string, string][] {
    const raw = this.req.rawHeaders;
    const lines: [string, string][] = [];
    for (let i = 0; i < raw.length; i += 2) lines.push([raw[i]!, raw[i + 1]!.trim()]);
    const flat: string[] = [];
    foldInto(lines, flat, [], true);
    const pairs: [string, string][] = [];
    for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
    return pairs;
  }

  address(): string | undefined {
    return clientAddressOf(
      this.frame.trustProxy,
      this.header('x-forwarded-for'),
      () => this.req.socket.remoteAddress,
    );
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
