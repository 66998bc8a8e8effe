import type { MiddlewareHandler } from 'hono';
import { corsMiddleware } from '../../http-kit/cors.ts';

/** True for a CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(method: string, headers: { header(name: string): string | undefined }): boolean {
  return (
    method === 'OPTIONS' &&
    headers.header('origin') !== undefined &&
    headers.header('access-control-request-method') !== undefined
  );
}

/**
 * Answers every CORS preflight in the CORS layer alone, the same way for every path (known or
 * not, installed plugin or not): 204, with the allow headers only for an allowed origin. No route
 * handler ever sees a preflight; every other OPTIONS request is authenticated like any method.
 */
export function preflightAnswer(origins: readonly string[] | undefined): MiddlewareHandler {
  const withCors = origins?.length ? corsMiddleware(origins) : null;
  return async (c, next) => {
    if (!isPreflight(c.req.method, c.req)) return next();
    if (withCors) {
      const res = await withCors(c, async () => {});
      if (res) return res;
    }
    return c.body(null, 204);
  };
}
