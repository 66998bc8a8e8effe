import type { Context, MiddlewareHandler } from 'hono';

/**
 * One request as a hot route sees it, the same on every path that offers it (the Hono app's
 * `mountHot` and the Node dispatcher, http-kit/node/dispatch.ts): only GET and HEAD without a
 * body, and a target the URL parser leaves as it is.
 */
export interface HotRequest {
  method: 'GET' | 'HEAD';
  /** The path as sent, percent-encoding kept (never a dot segment). */
  path: string;
  /** The query with its `?`, or ''. */
  search: string;
  /** A header by lower-case name (repeats joined with `, `). */
  header(name: string): string | undefined;
  /** Every header as `[lower-case name, value]`, repeats joined, in the order sent. */
  headerPairs(): [string, string][];
  /** The client's address (http-kit/frame.ts `clientAddressOf`). */
  address(): string | undefined;
  /** Aborts when the client goes away before its answer is written. */
  signal(): AbortSignal;
  /**
   * Runs `cb` once when the client goes away before its answer is written, from this call on
   * (as a listener added to `signal()` would); returns the function that stops listening. For a
   * route that only needs to be told: on node:http it costs no AbortController.
   */
  whenGone(cb: () => void): () => void;
}

/** `whenGone` over an AbortSignal: `cb` once on its abort; returns the function that stops listening. */
export function whenAborted(signal: AbortSignal, cb: () => void): () => void {
  signal.addEventListener('abort', cb, { once: true });
  return () => signal.removeEventListener('abort', cb);
}

/**
 * An answer as plain data. The frame adds its base headers (security, `X-Request-Id`, CORS) where
 * the answer lacks them, the body is dropped for HEAD, 204, 205 and 304, and it logs the line.
 */
export interface PlainAnswer {
  status: number;
  /** The answer's own headers, in order; a name may repeat (`set-cookie`). */
  headers: [string, string][];
  body: Uint8Array | null;
}

/**
 * A fast answer declared as data: the answer, or null when the request is not its own (it falls
 * through to the app). It may throw a DomainError: the frame answers it in the envelope.
 */
export type HotRoute = (req: HotRequest) => PlainAnswer | null | Promise<PlainAnswer | null>;

/** True when an answer of `status` to `method` carries no body. */
export function noBody(method: string, status: number): boolean {
  return method === 'HEAD' || status === 204 || status === 205 || status === 304;
}

/**
 * The hot routes mounted in a Hono app, so `app.request` gives the answer the Node dispatcher
 * gives: each route is asked in turn, the first answer is the response (the app's own frame
 * middleware adds its base headers, as for any answer); none: the app's routes go on.
 */
export function mountHot(
  routes: readonly HotRoute[],
  opts: {
    address: (c: Context) => string | undefined;
    /** Builds the Response (e.g. with the frame's base headers sealed in); default a plain one. */
    respond?: (c: Context, status: number, headers: [string, string][], body: Uint8Array | null) => Response;
  },
): MiddlewareHandler {
  const respond =
    opts.respond ??
    ((_c, status, headers, body) => {
      // Headers checked here (a value no HTTP message can carry throws now, into the app's error
      // answer), not later when a runtime's lazy Response is first read.
      const h = new Headers();
      for (const [k, v] of headers) h.append(k, v);
      return new Response(body as Uint8Array<ArrayBuffer> | null, { status, headers: h });
    });
  return async (c, next) => {
    const method = c.req.method;
    // A GET or HEAD Request never has a body (the fetch standard refuses one); `c.req.raw.body` is
    // not read here: on @hono/node-server it would build the whole web Request for every request.
    if (method !== 'GET' && method !== 'HEAD') return next();
    const url = c.req.url;
    const q = url.indexOf('?');
    const target = url.slice(url.indexOf('/', url.indexOf('//') + 2), q === -1 ? undefined : q);
    const req: HotRequest = {
      method,
      path: target,
      search: q === -1 || q === url.length - 1 ? '' : url.slice(q),
      header: (name) => c.req.header(name),
      headerPairs: () => [...c.req.raw.headers],
      address: () => opts.address(c),
      signal: () => c.req.raw.signal,
      whenGone: (cb) => whenAborted(c.req.raw.signal, cb),
    };
    for (const route of routes) {
      const a = await route(req);
      if (a) return respond(c, a.status, a.headers, noBody(method, a.status) ? null : a.body);
    }
    return next();
  };
}
