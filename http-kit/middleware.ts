import type { Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { Logger } from '../core/ports.ts';
import { errorBody, STATUS } from './envelope.ts';
import { addBase, type LogRule, logRequest } from './frame.ts';
import { SECURE_HEADERS } from './secure-headers.ts';

/** One log line per request (http-kit/frame.ts `logRequest`, by `rule`); never a secret. */
export function accessLog(logger: Logger, rule: LogRule = {}): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logRequest(logger, rule, c.get('requestId'), c.req.method, c.req.path, c.res.status, started);
  };
}

/** 405 METHOD_NOT_ALLOWED in the envelope, with `Allow`, for a known path and another method. */
// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its env
export function methodNotAllowedEnvelope(app: Hono<any>): MiddlewareHandler {
  return methodNotAllowed({
    app,
    onMethodNotAllowed: (c, methods) =>
      c.json(errorBody('METHOD_NOT_ALLOWED', `Use one of: ${methods.join(', ')}.`), 405, {
        Allow: methods.join(', '),
      }),
  });
}

/** 413 PAYLOAD_TOO_LARGE in the envelope above `max` bytes; GET and HEAD skip the check. */
export function bodyLimitEnvelope(max: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: max,
    onError: (c) =>
      c.json(
        errorBody('PAYLOAD_TOO_LARGE', `The request body is larger than ${max} bytes.`),
        STATUS.PAYLOAD_TOO_LARGE,
      ),
  });
  // GET and HEAD carry no body; skipping them keeps the runtime's lightweight request object.
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limit(c, next));
}

/**
 * Adds SECURE_HEADERS to every response, after the handler ran, leaving any header the handler
 * set itself alone (pages of the client UI bring their own Content-Security-Policy).
 */
export function secureHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const missing: [string, string][] = [];
    addBase(
      SECURE_HEADERS,
      (n) => c.res.headers.get(n),
      (name, value) => missing.push([name, value]),
    );
    if (missing.length === 0) return;
    try {
      for (const [name, value] of missing) c.res.headers.set(name, value);
    } catch {
      // A Response straight from fetch() has immutable headers: answer a copy instead.
      const res = new Response(c.res.body, c.res);
      for (const [name, value] of missing) res.headers.set(name, value);
      c.res = res;
    }
  };
}
