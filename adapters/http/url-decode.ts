/**
 * Percent-decoding of URL paths in one place. The router leaves an escape it cannot decode as it
 * is (`%ff` stays `%ff`), and a handler decoding a capture itself would throw `URIError` (a 500);
 * a path that is not valid UTF-8 percent-encoding is the client's error, so it is refused first.
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../core/errors.ts';

const refuse = (what: string) =>
  new DomainError('INVALID_PATH', `${what} is not valid URL encoding (percent-escapes of UTF-8).`);

/** `raw` percent-decoded; a malformed escape is a 400 (INVALID_PATH), never a URIError. */
export function decodeUrlPart(raw: string, what = 'The URL path'): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw refuse(what);
  }
}

/** Refuses a request whose path holds a malformed escape, before any route reads a parameter. */
export const wellEncodedPath: MiddlewareHandler = (c, next) => {
  const url = c.req.url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const query = url.indexOf('?', start);
  const path = url.slice(start, query < 0 ? undefined : query);
  if (path.includes('%')) decodeUrlPart(path);
  return next();
};
