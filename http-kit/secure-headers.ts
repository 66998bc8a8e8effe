import type { MiddlewareHandler } from 'hono';
import { addBase } from './frame.ts';

/** The headers every answer carries, server and relay (a handler's own values win). */
export const SECURE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

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
