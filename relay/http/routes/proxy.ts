import { Hono } from 'hono';
import { DomainError } from '../../../core/errors.ts';
import type { HotRequest, HotRoute } from '../../../http-kit/hot-route.ts';
import {
  answerToResponse,
  fromBase64,
  headerPairs,
  proxiedHeaders,
  requestHeaders,
} from '../../protocol/http-codec.ts';
import { checkRequestHead, WIRE_LIMITS } from '../../protocol/limits.ts';
import type { HttpAnswer } from '../../protocol/messages.ts';
import { bodyChunks, readBody } from '../../service/body-stream.ts';
import { type DoorLease, doorBudget } from '../../service/door-budget.ts';
import { forward, offline, viaTunnel } from '../../service/forward.ts';
import { proxyRates } from '../../service/rate-limit.ts';
import type { RelayContext, RelayEnv } from '../../service/types.ts';

const SERVER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{2,127}$/;

/**
 * True when a request carries a credential a server's door checks (its charge may then fall on
 * the server budget): `Authorization`, the note server's own `X-Service-Key`, or `X-API-Key`.
 * `req` is Hono's request or a hot request: both read a header by name.
 */
export function credentialed(req: Pick<HotRequest, 'header'>): boolean {
  return (
    req.header('x-service-key') !== undefined ||
    req.header('authorization') !== undefined ||
    req.header('x-api-key') !== undefined
  );
}

/**
 * The door of `/r/:serverId/*`, shared by the Hono route and the hot route below, so both count
 * against the same limits. Everything it decides
 * needs no body: the rate per client address, the server's budgets, requests open per address.
 */
export function proxyDoor(ctx: RelayContext) {
  const base = new URL(ctx.publicBaseUrl);
  const { limits } = ctx;
  const rates = proxyRates(limits);
  const budget = doorBudget(limits);
  const forwardInfo = { proto: base.protocol.replace(':', ''), host: base.host };
  const basePath = base.pathname.replace(/\/$/, '');

  return {
    validId: (serverId: string) => SERVER_ID.test(serverId),
    /**
     * Admits one request: counts it against its address's rate, checks the server's budgets
     * (the stranger budget too when it carries no credential) and opens its place among the
     * address's open requests. Throws RATE_LIMITED over any of them. The lease must be released.
     * Synchronous: no promise per request.
     */
    admit(serverId: string, address: string | undefined, withCredential: boolean): DoorLease {
      rates.admit(serverId, address, withCredential);
      return budget.open(address);
    },
    /**
     * Charges the server for a request its server answered: 401/403 (its door refused the key)
     * to the stranger budget, anything else to its own. Refusals by the relay cost it nothing.
     */
    settle: rates.settle,
    /** Body bytes in flight on this instance (for tests and health). */
    inflight: budget.inflight,
    /** The headers the server receives: end-to-end ones, and the relay's X-Forwarded-*. */
    headers: (pairs: readonly [string, string][], serverId: string, address: string | undefined) =>
      requestHeaders(pairs, forwardInfo, address, `${basePath}/r/${serverId}`),
  };
}

export type ProxyDoor = ReturnType<typeof proxyDoor>;

/**
 * `ALL /r/:serverId/*`: any method, path, query, headers and body bytes, to that server. The
 * door decides before it reads: the id, the declared size (413), the rates (429), the wire
 * limits (414, 431), whether the server is online here or anywhere (503) and the byte budgets
 * (the declared Content-Length reserved up front); only then is the body read, and down a
 * tunnel it is streamed as it arrives (408 when it takes longer than `bodyTimeoutMs`).
 */
export function proxyRoutes(ctx: RelayContext, door: ProxyDoor = proxyDoor(ctx)) {
  const app = new Hono<RelayEnv>();
  const { limits } = ctx;

  const handler = async (c: import('hono').Context<RelayEnv>) => {
    const method = c.req.method;
    const withBody = method !== 'GET' && method !== 'HEAD' && c.req.raw.body !== null;
    try {
      return await proxy(c, method, withBody);
    } catch (err) {
      // Every refusal (404, 413, 429, 414, 431, 503, 408) comes here. One of a request whose body
      // may still be coming closes its connection, and node:http closes it lingering
      // (http-kit/node/linger.ts): the rest of the body is read and dropped, so the refusal
      // reaches a client that is still sending instead of a reset.
      if (withBody && err instanceof DomainError) c.header('connection', 'close');
      throw err;
    }
  };

  const proxy = async (c: import('hono').Context<RelayEnv>, method: string, withBody: boolean) => {
    const serverId = c.req.param('serverId') ?? '';
    if (!door.validId(serverId)) throw new DomainError('NOT_FOUND', 'No server has that id.');
    const length = c.req.header('content-length');
    const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
    if (withBody && declared !== null && declared > limits.maxBodyBytes)
      throw new DomainError(
        'PAYLOAD_TOO_LARGE',
        `The request body is larger than ${limits.maxBodyBytes} bytes.`,
      );
    const address = ctx.clientAddress(c);
    const lease = door.admit(serverId, address, credentialed(c.req));
    try {
      const url = new URL(c.req.url);
      // The raw pathname keeps the client's percent-encoding: the server decodes it exactly once.
      const prefix = `/r/${serverId}`;
      const path = (url.pathname.slice(prefix.length) || '/') + url.search;
      const headers = door.headers(headerPairs(c.req.raw.headers), serverId, address);
      const breach = checkRequestHead(path, headers);
      if (breach) throw new DomainError(breach.code, breach.message);
      if (!ctx.tunnels?.get(serverId) && !(await ctx.queue.isOnline(serverId))) throw offline();
      let bytes: AsyncIterable<Uint8Array> | Uint8Array | null = null;
      if (withBody && c.req.raw.body && declared !== 0) {
        if (declared !== null) lease.reserve(declared);
        const chunks = bodyChunks(c.req.raw.body, {
          maxBytes: limits.maxBodyBytes,
          deadline: ctx.clock.now() + limits.bodyTimeoutMs,
          timeoutMs: limits.bodyTimeoutMs,
          now: () => ctx.clock.now(),
          lease,
          reserveAsRead: declared === null,
        });
        // A body that fits in one frame is read first and travels inline with its head (one message).
        bytes = declared !== null && declared <= WIRE_LIMITS.maxChunkBytes ? await readBody(chunks) : chunks;
      }
      const done = await forward(ctx, c.req.raw.signal, serverId, {
        kind: 'http',
        method,
        path,
        headers,
        bytes,
      });
      if (!done) return new Response(null, { status: 499 });
      const answer = done.answer as HttpAnswer;
      door.settle(serverId, answer.status);
      return answerToResponse(answer, method, done.requestId, path);
    } finally {
      lease.release();
    }
  };

  app.all('/:serverId', handler);
  app.all('/:serverId/*', handler);
  return app;
}

/**
 * `GET` and `HEAD` on `/r/:serverId/*` for a server whose tunnel is on this instance, as a hot
 * route (http-kit/hot-route.ts): mounted in the relay app and in the Node dispatcher
 * (relay/node/server.ts), where the answer's bytes go from the tunnel frame to the socket with no
 * web Request or Response. The same door as the route above (id check, rate limits, forwarded
 * headers, wire limits) and the same answer. Not its own: servers reached through the queue and
 * a request over a wire limit (the route answers 414/431); the frame does the rest.
 */
export function proxyHot(ctx: RelayContext, door: ProxyDoor): HotRoute {
  return async (req) => {
    const { path: target } = req;
    if (!target.startsWith('/r/')) return null;
    const slash = target.indexOf('/', 3);
    const serverId = slash === -1 ? target.slice(3) : target.slice(3, slash);
    const tunnel = ctx.tunnels?.get(serverId);
    if (!tunnel || !door.validId(serverId)) return null;
    const path = (slash === -1 ? '/' : target.slice(slash)) + req.search;
    const address = req.address();
    const headers = door.headers(req.headerPairs(), serverId, address);
    if (checkRequestHead(path, headers)) return null;
    const lease = door.admit(serverId, address, credentialed(req));
    try {
      const draft = { kind: 'http' as const, method: req.method, path, headers, bytes: null };
      const done = await viaTunnel(ctx, req, tunnel, draft);
      if (!done) return { status: 499, headers: [], body: null }; // the client went away
      const a = done.answer as HttpAnswer & { bytes?: Uint8Array | null };
      door.settle(serverId, a.status);
      const out = proxiedHeaders(a.headers, path);
      out.push(['x-relay-request-id', done.requestId]);
      return { status: a.status, headers: out, body: a.bytes !== undefined ? a.bytes : fromBase64(a.body) };
    } finally {
      lease.release();
    }
  };
}
