import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDomainError } from '../../core/errors.ts';
import { errorBody, STATUS } from '../../http-kit/envelope.ts';
import { requestIdOf } from '../../http-kit/request-id.ts';
import { SECURE_HEADERS } from '../../http-kit/secure-headers.ts';
import type { Relay } from '../http/app.ts';
import { credentialed } from '../http/routes/proxy.ts';
import { proxiedHeaders } from '../protocol/http-codec.ts';
import { checkRequestHead } from '../protocol/limits.ts';
import type { DoorLease } from '../service/door-budget.ts';
import { viaTunnel } from '../service/forward.ts';
import type { TunnelHub } from '../service/tunnel-hub.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Request targets the lane takes: characters the WHATWG URL parser leaves alone in a path and
 * query, and no dot segment (`/.`, `%2e`), so the path the server gets is the one the Hono route
 * would compute from `new URL(...)`. Anything else takes the Hono route.
 */
const PLAIN_TARGET = /^\/r\/[A-Za-z0-9_-]+(?:[/?][A-Za-z0-9\-._~!$&()*+,;=:@/%?]*)?$/;
const DOT_SEGMENT = /\/\.|%2e/i;
const SECURE = Object.entries(SECURE_HEADERS).map(([k, v]): [string, string] => [k.toLowerCase(), v]);

/**
 * `GET` and `HEAD` on `/r/:serverId/*` for a server whose tunnel is on this instance, answered
 * on node:http directly: no web Request, no Hono dispatch, no Response object; the answer's bytes
 * go from the tunnel frame to the socket. Same door as the Hono route (the shared `door`: id
 * check, rate limits, forwarded headers, wire limits), same answer (status, headers with the
 * security headers and X-Request-Id, body), same access-log line; `proxy-lane.test.ts` holds
 * the two equal. Everything else goes to `next`: other methods (bodies), servers reached
 * through the queue, targets the URL parser would rewrite, a request over a wire limit, and
 * every request while draining.
 */
export function proxyLane(
  next: Listener,
  opts: {
    relay: () => Relay | null;
    hub: () => TunnelHub | null;
    trustProxy: boolean;
    draining: () => boolean;
    /** Called once for each request the lane takes. */
    taken?: () => void;
  },
): Listener {
  return async (req, res) => {
    const relay = opts.relay();
    const method = req.method;
    const target = req.url ?? '';
    if (
      !relay ||
      (method !== 'GET' && method !== 'HEAD') ||
      !PLAIN_TARGET.test(target) ||
      DOT_SEGMENT.test(target) ||
      opts.draining()
    )
      return next(req, res);
    const idEnd = target.slice(3).search(/[/?]/);
    const serverId = idEnd === -1 ? target.slice(3) : target.slice(3, 3 + idEnd);
    const tunnel = opts.hub()?.get(serverId);
    if (!tunnel || !relay.door.validId(serverId)) return next(req, res);
    const q = target.indexOf('?');
    const rest = (q === -1 ? target : target.slice(0, q)).slice(3 + serverId.length) || '/';
    const search = q === -1 || q === target.length - 1 ? '' : target.slice(q);
    const path = rest + search;

    const address = clientAddress(req, opts.trustProxy);
    const headers = relay.door.headers(combined(req.rawHeaders), serverId, address);
    if (checkRequestHead(path, headers)) return next(req, res); // the route answers 414/431

    opts.taken?.();
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = requestIdOf(given);
    const log = (status: number) =>
      relay.ctx.logger.info('request', {
        requestId,
        method,
        path: '/r/:serverId/*',
        status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    const fail = (err: unknown) => {
      if (!isDomainError(err)) throw err;
      const body = JSON.stringify(errorBody(err.code, err.message, err.details));
      const status = STATUS[err.code];
      const out: [string, string][] = [['content-type', 'application/json']];
      if (err.retryAfter !== undefined) out.push(['retry-after', String(err.retryAfter)]);
      write(res, status, out, requestId, method === 'HEAD' ? null : Buffer.from(body));
      log(status);
    };
    let lease: DoorLease;
    try {
      lease = await relay.door.admit(
        serverId,
        address,
        credentialed((n) => req.headers[n] !== undefined),
      );
    } catch (err) {
      return fail(err);
    }
    const gone = new AbortController();
    res.once('close', () => {
      lease.release();
      if (!res.writableFinished) gone.abort();
    });
    // Anything thrown on the way out (a header value the server sent that no HTTP message can
    // carry, say) answers 500 like the Hono route's error handler; it never escapes as a crash.
    const internal = (err: unknown) => {
      relay.ctx.logger.error('unhandled error', { requestId, error: String(err) });
      if (res.headersSent) return void res.destroy();
      const body = errorBody(
        'INTERNAL_ERROR',
        'Something went wrong in the relay; the request id is in X-Request-Id.',
      );
      const bytes = method === 'HEAD' ? null : Buffer.from(JSON.stringify(body));
      write(res, 500, [['content-type', 'application/json']], requestId, bytes);
      log(500);
    };
    viaTunnel(relay.ctx, gone.signal, tunnel, { kind: 'http', method, path, headers, bytes: null })
      .then((done) => {
        if (!done) return; // the client went away
        const a = done.answer as { status: number; headers: [string, string][]; bytes: Uint8Array | null };
        relay.door.settle(serverId, a.status);
        const out = proxiedHeaders(a.headers, path);
        out.push(['x-relay-request-id', done.requestId]);
        const noBody = method === 'HEAD' || a.status === 204 || a.status === 205 || a.status === 304;
        // As on the Hono route, a proxied answer carries the server's own X-Request-Id, not the relay's.
        write(res, a.status, out, null, noBody ? null : a.bytes);
        log(a.status);
      })
      .catch((err) => {
        try {
          if (isDomainError(err) && !res.headersSent) fail(err);
          else internal(err);
        } catch (again) {
          internal(again);
        }
      });
  };
}

/** Writes one answer: its headers, the security headers it lacks, X-Request-Id (the relay's own answers), the body. */
function write(
  res: ServerResponse,
  status: number,
  headers: [string, string][],
  requestId: string | null,
  body: Uint8Array | null,
) {
  if (res.destroyed) return;
  const flat: string[] = [];
  const has = new Set<string>();
  for (const [k, v] of headers) {
    flat.push(k, v);
    has.add(k);
  }
  for (const [k, v] of SECURE) if (!has.has(k)) flat.push(k, v);
  if (requestId !== null && !has.has('x-request-id')) flat.push('x-request-id', requestId);
  if (body) flat.push('content-length', String(body.byteLength));
  res.writeHead(status, flat);
  res.end(body ?? undefined);
}

/** The client's address, as the Hono route's `clientAddress` finds it. */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const xff = req.headers['x-forwarded-for'];
    const last = (Array.isArray(xff) ? xff.join(',') : xff)?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress;
}

/** Raw header lines as a web Headers object would list them: names lower-cased, repeats joined. */
function combined(raw: string[]): [string, string][] {
  const seen = new Map<string, [string, string]>();
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = (raw[i + 1] as string).trim();
    const prev = seen.get(name);
    if (prev) prev[1] = `${prev[1]}, ${value}`;
    else {
      const pair: [string, string] = [name, value];
      seen.set(name, pair);
      out.push(pair);
    }
  }
  return out;
}
