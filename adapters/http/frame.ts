import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from '../../core/ports.ts';
import {
  addBase,
  type BaseHeaders,
  corsPath,
  type FrameStats,
  logRequest,
  serverBaseHeaders,
  withBase,
} from '../../http-kit/frame.ts';
import type { HotExchange } from '../../http-kit/hot-answer.ts';
import { requestIdOf } from '../../http-kit/request-id.ts';
import { isPreflight, preflightAnswer } from './preflight.ts';

export type { BaseHeaders, FrameStats };

/** Responses built with `sealedResponse`: they carry every base header already. */
const sealed = new WeakSet<Response>();

/**
 * The note server's base headers of a request (http-kit/frame.ts): security headers, X-Request-Id,
 * and CORS for an `/api/` path when the (live) allowlist is not empty. The app's frame below and
 * the Node dispatcher (deploy/node/server.ts) both take them from here.
 */
export function serverBase(corsOrigins: readonly string[] | undefined) {
  return (id: string, path: string, origin: () => string | undefined): BaseHeaders =>
    serverBaseHeaders(id, corsOrigins?.length && corsPath(path) ? origin() : undefined, corsOrigins);
}

/** `serverBase` for a hot answer (the Node dispatcher's, the tunnel's). */
export function serverHotBase(corsOrigins: readonly string[] | undefined) {
  const base = serverBase(corsOrigins);
  return (x: HotExchange) => base(x.requestId(), x.path, () => x.header('origin'));
}

/**
 * The one middleware that frames every request of the note server: the request id, the base
 * headers (computed once, as a plain record) and the access log line, all by the kit's rules.
 *
 * A handler on a hot path answers with `sealedResponse`, which puts the base headers into a
 * plain header record of a new Response: nothing is re-created or copied afterwards, so the
 * runtime writes it straight out. Any other answer gets the missing base headers added after the
 * handler ran (a handler's own values win). CORS preflights are answered by the CORS layer alone
 * (same answer on every path); any other OPTIONS is authenticated like any method.
 */
export function requestFrame(opts: {
  logger: Logger;
  /** Exact-match allowlist, read live on every request; absent or empty: no CORS headers. */
  corsOrigins?: string[];
  stats?: FrameStats;
}): MiddlewareHandler {
  const { logger } = opts;
  const answerPreflight = preflightAnswer(opts.corsOrigins);
  const baseOf = serverBase(opts.corsOrigins);
  const stats = opts.stats ?? { requests: 0 };

  return async (c, next) => {
    const started = performance.now();
    stats.requests++;
    const id = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', id);
    const base = baseOf(id, c.req.path, () => c.req.header('origin'));
    c.set('baseHeaders', base);
    if (isPreflight(c.req.method, c.req)) {
      // Answered by the CORS layer alone, the same way for every path (adapters/http/preflight.ts).
      const answer = await answerPreflight(c, async () => {});
      if (answer) c.res = answer;
    } else await next();
    if (!sealed.has(c.res)) addMissing(c, base);
    logRequest(logger, undefined, id, c.req.method, c.req.path, c.res.status, started);
  };
}

/** Adds the base headers a handler did not set (http-kit/frame.ts `addBase`). */
function addMissing(c: Context, base: BaseHeaders): void {
  const apply = (h: Headers) => {
    addBase(
      base,
      (n) => h.get(n),
      (name, value) => h.set(name, value),
    );
  };
  try {
    apply(c.res.headers);
  } catch {
    // A Response straight from fetch() has immutable headers: answer a copy instead.
    const res = new Response(c.res.body, c.res);
    apply(res.headers);
    c.res = res;
  }
}

/**
 * A response whose headers are a plain record: the base headers of the request, then `headers`
 * (which win; a `Vary` of both is merged). Middleware after the handler leaves it alone.
 */
export function sealedResponse(
  c: Context,
  status: number,
  body: BodyInit | null,
  headers: Record<string, string>,
): Response {
  const all = withBase(c.get('baseHeaders') as BaseHeaders | undefined, headers);
  const res = new Response(body, { status, headers: all });
  sealed.add(res);
  return res;
}
