import type { Logger } from '../core/ports.ts';
import { errorAnswer, logInternal } from './envelope.ts';
import {
  answerHeaderLines,
  type BaseHeaders,
  type FrameStats,
  foldInto,
  foldRawInto,
  type LogRule,
  logRequest,
} from './frame.ts';
import { type HotRequest, type HotRoute, noBody, type PlainAnswer } from './hot-route.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

/**
 * The frame's rules for a hot answer, whatever carries it: the Node dispatcher
 * (http-kit/node/dispatch.ts) and the server's end of the relay tunnel
 * (relay/connector/tunnel-connector.ts) both answer a HotRequest with `answerHot`, so the base
 * headers, the no-body rule, the error envelope and the access-log line are applied in one place.
 */
export interface HotFrame {
  /** Asked in order; read on every request (a root may fill it once its app is made). */
  routes: readonly HotRoute[];
  logger: Logger;
  /** Named in the 500 answer: "Something went wrong in the <where>". */
  where: string;
  /**
   * The headers every answer carries unless it sets them (the app's frame computes the same); it
   * asks `x.requestId()` only when they name the id (the relay's do not: no id is made for them).
   */
  base: (x: HotExchange) => BaseHeaders;
  log?: LogRule;
  stats?: FrameStats;
  /** Counts the answers hot routes gave here (tests, benchmarks). */
  answered?: { count: number };
}

/** A request being answered: the HotRequest the routes see, and how its transport writes. */
export interface HotExchange extends HotRequest {
  /** `performance.now()` when the request came in (the log line's ms). */
  readonly started: number;
  /** The request's id (http-kit/request-id.ts `requestIdOf`), made once it is needed. */
  requestId(): string;
  /** False when nobody waits for the answer any more (nothing is written then). */
  open(): boolean;
  /** True once the answer's head went out (a failure then cuts the answer instead). */
  headersSent(): boolean;
  /**
   * Writes the answer: `lines` is the flat `[name, value, ...]` list of its headers (the frame's
   * base included; no Content-Length: the transport frames the body). Throws for a header no
   * HTTP message can carry, before anything went out.
   */
  write(status: number, lines: string[], body: Uint8Array | null): void;
  /** Ends the exchange without an answer (a failure after the head went out, or nobody waits). */
  cut(): void;
}

/**
 * Asks the frame's routes in turn from `from`: the first answer is written by the frame's rules
 * (`send`), a throw is answered in the error envelope, and when every route returns null the
 * request goes to `next` (the app).
 */
export function answerHot<X extends HotExchange>(
  x: X,
  frame: HotFrame,
  next: (x: X) => void,
  from = 0,
): void {
  const { routes } = frame;
  for (let i = from; i < routes.length; i++) {
    let a: ReturnType<HotRoute>;
    try {
      a = routes[i]!(x);
    } catch (err) {
      fail(x, frame, err);
      return;
    }
    if (a === null) continue;
    if (a instanceof Promise) {
      a.then(
        (got) => (got === null ? answerHot(x, frame, next, i + 1) : answer(x, frame, got)),
        (err) => fail(x, frame, err),
      );
      return;
    }
    answer(x, frame, a);
    return;
  }
  next(x);
}

function answer(x: HotExchange, frame: HotFrame, a: PlainAnswer): void {
  try {
    send(x, frame, a);
  } catch (err) {
    // A header value no HTTP message can carry, say: a 500 like the app's, never a crash.
    fail(x, frame, err);
  }
}

/** Writes one answer by the frame's rules: base headers, no body where none goes, the log line. */
function send(x: HotExchange, frame: HotFrame, a: PlainAnswer, extra?: [string, string][]): void {
  if (!x.open()) {
    x.cut();
    return;
  }
  const lines = answerHeaderLines(extra ? [...a.headers, ...extra] : a.headers, frame.base(x));
  x.write(a.status, lines, noBody(x.method, a.status) ? null : a.body);
  if (frame.stats) frame.stats.requests++;
  if (frame.answered) frame.answered.count++;
  // The line is at info (or debug when quiet): when the logger drops info, nothing of it is made.
  if (frame.logger.enabled?.('info') !== false)
    logRequest(frame.logger, frame.log, x.requestId(), x.method, loggedPath(x.path), a.status, x.started);
}

/** The frame's error answer (with the request id) for anything a route threw. */
function fail(x: HotExchange, frame: HotFrame, err: unknown): void {
  const e = errorAnswer(err, frame.where);
  if (e.internal) logInternal(frame.logger, x.requestId(), err);
  if (x.headersSent()) {
    x.cut();
    return;
  }
  const headers: [string, string][] = [['content-type', 'application/json'], ...Object.entries(e.headers)];
  const body = new TextEncoder().encode(JSON.stringify(e.body));
  try {
    send(x, frame, { status: e.status, headers, body }, [[REQUEST_ID_HEADER, x.requestId()]]);
  } catch (again) {
    logInternal(frame.logger, x.requestId(), again);
    x.cut();
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

/**
 * Request targets hot routes are offered: characters the WHATWG URL parser and @hono/node-server
 * leave as they are in a path (and a query: `'` is encoded there, so not taken), so the path a
 * hot route sees here is the one it sees inside the app. Anything else takes the app.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*)?$/;
/** A dot segment, also percent-encoded: the URL parser would resolve it. */
const DOT_SEGMENT = /\/\.|%2e/i;

/**
 * A target split as hot routes see it (`path`, `search` with its `?` or ''), or null when the
 * target is not one the URL parser leaves as it is (it takes the app).
 */
export function plainTarget(target: string): { path: string; search: string } | null {
  if (!PLAIN_TARGET.test(target)) return null;
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (DOT_SEGMENT.test(path)) return null;
  return { path, search: q === -1 || q === target.length - 1 ? '' : target.slice(q) };
}

/** Header lines as `HotRequest.headerPairs` gives them: lower-case names, repeats joined (`foldInto`). */
export function foldedPairs(lines: readonly (readonly [string, string])[]): [string, string][] {
  const flat: string[] = [];
  foldInto(lines, flat, [], true);
  return pairsOf(flat);
}

/** `foldedPairs` of node:http's `rawHeaders` (`[name, value, ...]`), each value trimmed. */
export function foldedRawPairs(raw: readonly string[]): [string, string][] {
  const flat: string[] = [];
  foldRawInto(raw, flat, [], true);
  return pairsOf(flat);
}

function pairsOf(flat: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
}
