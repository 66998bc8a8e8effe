import { cors } from 'hono/cors';

/** The response headers a browser script may read: the one list (answers and preflights). */
export const EXPOSE_HEADERS = [
  'ETag',
  'X-Request-Id',
  'Retry-After',
  'Content-Range',
  'Content-Disposition',
  'Mcp-Session-Id',
] as const;

const EXPOSE = EXPOSE_HEADERS.join(',');

/**
 * True when `origin` is on the exact-match allowlist (`http://localhost.evil.example` is not
 * `http://localhost`; never a wildcard). A trailing slash on an entry is ignored.
 */
export function allowedOrigin(origins: readonly string[] | undefined, origin: string): boolean {
  return !!origins?.some((o) => o === origin || (o.endsWith('/') && o.replace(/\/+$/, '') === origin));
}

/**
 * The CORS headers of an answer to a request from `origin` (not a preflight): the allowed origin
 * when it is on the list, the exposed headers, `Vary: Origin`.
 */
export function corsHeaders(
  origins: readonly string[] | undefined,
  origin: string,
  out: Record<string, string> = {},
): Record<string, string> {
  if (allowedOrigin(origins, origin)) out['Access-Control-Allow-Origin'] = origin;
  out['Access-Control-Expose-Headers'] = EXPOSE;
  out.Vary = 'Origin';
  return out;
}

/**
 * CORS preflights (hono/cors) for an exact-match allowlist of origins, read live: a root adds its
 * own origin once it is listening (it serves the client UI). No cookies are used, so no credentials.
 */
export function corsMiddleware(origins: readonly string[]) {
  return cors({
    origin: (origin) => (allowedOrigin(origins, origin) ? origin : null),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowHeaders: [
      'X-Service-Key',
      'Authorization',
      'Content-Type',
      'If-Match',
      'If-None-Match',
      'X-Request-Id',
      'Range',
      'If-Range',
      'Last-Event-ID',
      // An MCP client in a browser sends these after initialize (the session names the client).
      'Mcp-Session-Id',
      'Mcp-Protocol-Version',
    ],
    exposeHeaders: [...EXPOSE_HEADERS],
    maxAge: 600,
  });
}
