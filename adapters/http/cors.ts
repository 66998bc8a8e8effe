import { cors } from 'hono/cors';

/**
 * CORS for an exact-match allowlist of origins: `http://localhost.evil.example` is not
 * `http://localhost`, and there is never a wildcard. No cookies are used, so no credentials.
 */
export function corsMiddleware(origins: readonly string[]) {
  // Read live: a root adds its own origin once it is listening (it serves the client UI).
  const allowed = (origin: string) => origins.some((o) => o === origin || o.replace(/\/+$/, '') === origin);
  return cors({
    origin: (origin) => (allowed(origin) ? origin : null),
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
    exposeHeaders: [
      'ETag',
      'X-Request-Id',
      'Retry-After',
      'Content-Range',
      'Content-Disposition',
      'Mcp-Session-Id',
    ],
    maxAge: 600,
  });
}
