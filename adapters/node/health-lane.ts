import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../core/ports.ts';
import { requestIdOf } from '../../http-kit/request-id.ts';
import { SECURE_HEADERS } from '../../http-kit/secure-headers.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const HEADERS = { 'Content-Type': 'application/json; charset=UTF-8', ...SECURE_HEADERS };

/**
 * `GET /api/v1/health` answered on node:http directly, without building a web Request and
 * Response: the probe that load balancers and monitors call most. The same body as the app's
 * route (`createHealthBody`), the same headers (security headers, X-Request-Id) and the same
 * access log line. Anything else goes to `next` (the app): other methods, a query string, a
 * browser request with `Origin` (CORS stays in one place), and every request while draining.
 */
export function healthLane(
  next: Listener,
  opts: { body: () => Uint8Array; logger: Logger; draining: () => boolean },
): Listener {
  return (req, res) => {
    if (
      req.url !== '/api/v1/health' ||
      req.method !== 'GET' ||
      req.headers.origin !== undefined ||
      opts.draining()
    ) {
      next(req, res);
      return;
    }
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const id = requestIdOf(given);
    const body = opts.body();
    res.writeHead(200, { ...HEADERS, 'X-Request-Id': id, 'Content-Length': body.length });
    res.end(body);
    opts.logger.info('request', {
      requestId: id,
      method: 'GET',
      path: '/api/v1/health',
      status: 200,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  };
}
