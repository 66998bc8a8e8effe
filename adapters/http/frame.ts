import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from '../../core/ports.ts';
import { requestIdOf } from '../../http-kit/request-id.ts';
import { SECURE_HEADERS } from '../../http-kit/secure-headers.ts';
import { isPreflight, preflightAnswer } from './preflight.ts';

/** Headers every answer of this request carries: security headers, X-Request-Id, CORS. */
export type BaseHeaders = Record<string, string>;

const EXPOSE = 'ETag,X-Request-Id,Retry-After,Content-Range,Content-Disposition';
/** Responses built with `sealedResponse`: they carry every base header already. */
const sealed = new WeakSet<Response>();

/** Counters of the request frame (every request is counted, whatever the log level). */
export interface FrameStats {
  requests: number;
}

/**
 * The one middleware that frames every request of the note server: the request id, the
 * security and CORS headers (computed once, as a plain record), and the access log line.
 *
 * A handler on a hot path answers with `sealedResponse`, which puts the base headers into a
 * plain header record of a new Response: nothing is re-created or copied afterwards, so the
 * runtime writes it straight out. Any other answer gets the missing base headers added after the
 * handler ran, as before (a handler's own values win). CORS preflights are answered by the CORS
 * layer alone (same answer on every path); any other OPTIONS is authenticated like any method.
 */
export function requestFrame(opts: {
  logger: Logger;
  /** Exact-match allowlist, read live on every request; absent or empty: no CORS headers. */
  corsOrigins?: string[];
  stats?: FrameStats;
}): MiddlewareHandler {
  const { logger } = opts;
  const origins = opts.corsOrigins;
  const answerPreflight = preflightAnswer(origins);
  const stats = opts.stats ?? { requests: 0 };

  return async (c, next) => {
    const started = performance.now();
    stats.requests++;
    const id = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', id);
    const origin = origins?.length && c.req.path.startsWith('/api/') ? c.req.header('origin') : undefined;
    const base = frameHeaders(id, origin, origins);
    c.set('baseHeaders', base);
    if (isPreflight(c.req.method, c.req)) {
      // Answered by the CORS layer alone, the same way for every path (adapters/http/preflight.ts).
      const answer = await answerPreflight(c, async () => {});
      if (answer) c.res = answer;
    } else await next();
    const res = c.res;
    if (!sealed.has(res)) addMissing(c, base);
    logRequest(logger, id, c.req.method, c.req.path, c.res.status, started);
  };
}

/**
 * The base headers of one request: security headers, `X-Request-Id`, and the CORS headers when
 * `origin` is given (pass it only for `/api/` paths with a non-empty allowlist).
 */
export function frameHeaders(
  id: string,
  origin: string | undefined,
  origins: string[] | undefined,
): BaseHeaders {
  const base: BaseHeaders = { ...SECURE_HEADERS, 'X-Request-Id': id };
  if (origin) {
    // A trailing slash is ignored; only the entries that have one are copied to compare.
    if (origins?.some((o) => o === origin || (o.endsWith('/') && o.replace(/\/+$/, '') === origin)))
      base['Access-Control-Allow-Origin'] = origin;
    base['Access-Control-Expose-Headers'] = EXPOSE;
    base.Vary = 'Origin';
  }
  return base;
}

/** The access log line of one request (every request logs one at `info`). */
export function logRequest(
  logger: Logger,
  requestId: string,
  method: string,
  path: string,
  status: number,
  started: number,
): void {
  logger.info('request', {
    requestId,
    method,
    path,
    status,
    ms: Math.round((performance.now() - started) * 10) / 10,
  });
}

/**
 * Adds the base headers a handler did not set (Vary is merged, never replaced). X-Request-Id
 * marks the API's answers: it is left off pages and assets (any type but JSON), as before.
 */
function addMissing(c: Context, base: BaseHeaders): void {
  const apply = (h: Headers) => {
    const type = h.get('content-type');
    const api = type === null || type.includes('json');
    for (const name in base) {
      const value = base[name]!;
      if (name === 'X-Request-Id' && !api) continue;
      if (name === 'Vary') {
        const cur = h.get('vary');
        if (!cur) h.set('Vary', value);
        else if (!cur.split(',').some((v) => v.trim().toLowerCase() === 'origin'))
          h.set('Vary', `${cur}, ${value}`);
      } else if (!h.has(name)) h.set(name, value);
    }
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

/** The header record of a sealed answer: `base`, then `headers` (which win; a `Vary` of both is merged). */
export function withBase(
  base: BaseHeaders | undefined,
  headers: Record<string, string>,
): Record<string, string> {
  if (!base) return headers;
  const all = { ...base, ...headers };
  if (base.Vary && headers.Vary) all.Vary = `${base.Vary}, ${headers.Vary}`;
  return all;
}
