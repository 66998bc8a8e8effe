import { Hono } from 'hono';
import { errorBody } from '../../adapters/http-kit/envelope.ts';
import { DomainError } from '../../core/errors.ts';
import { retryLater } from '../errors.ts';
import { answerToResponse, headerPairs, requestHeaders } from '../http-codec.ts';
import { checkRequestHead } from '../protocol/limits.ts';
import type { HttpAnswer } from '../protocol.ts';
import { windowCounter } from '../rate-limit.ts';
import type { RelayContext, RelayEnv } from '../types.ts';
import { forward } from './forward.ts';

const SERVER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{2,127}$/;

/**
 * `ALL /r/:serverId/*`: any method, path, query, headers and body bytes, to that server. Every
 * wire limit is checked here, at the door (414, 431; 413 by the body limit before this), and
 * the rate limits per client address and per serverId (429 with Retry-After), before anything
 * is queued: a request the relay accepts is one the server can decode.
 */
/**
 * The door of `/r/:serverId/*`, shared by the Hono route below and the Node fast lane
 * (deploy/relay/proxy-lane.ts), so both count against the same rate limits.
 */
export function proxyDoor(ctx: RelayContext) {
  const base = new URL(ctx.publicBaseUrl);
  const { limits } = ctx;
  const counter = windowCounter(limits.proxyWindowMs, () => ctx.clock.now());
  const forwardInfo = { proto: base.protocol.replace(':', ''), host: base.host };
  const basePath = base.pathname.replace(/\/$/, '');

  function rateLimit(key: string, max: number, who: string) {
    const { count, resetInMs } = counter.hit(key);
    if (count > max)
      throw retryLater('RATE_LIMITED', `Too many requests ${who}; slow down and retry.`, resetInMs / 1000);
  }

  return {
    validId: (serverId: string) => SERVER_ID.test(serverId),
    /** Counts the request against the per-address and per-server limits; throws RATE_LIMITED over them. */
    admit(serverId: string, address: string | undefined) {
      rateLimit(`c:${address ?? 'unknown'}`, limits.proxyPerClient, 'from this address');
      rateLimit(`s:${serverId}`, limits.proxyPerServer, 'for this server');
    },
    /** The headers the server receives: end-to-end ones, and the relay's X-Forwarded-*. */
    headers: (pairs: Iterable<[string, string]>, serverId: string, address: string | undefined) =>
      requestHeaders(pairs, { ...forwardInfo, clientAddress: address, prefix: `${basePath}/r/${serverId}` }),
  };
}

export type ProxyDoor = ReturnType<typeof proxyDoor>;

export function proxyRoutes(ctx: RelayContext, door: ProxyDoor = proxyDoor(ctx)) {
  const app = new Hono<RelayEnv>();

  const handler = async (c: import('hono').Context<RelayEnv>) => {
    const serverId = c.req.param('serverId') ?? '';
    if (!door.validId(serverId)) throw new DomainError('NOT_FOUND', 'No server has that id.');
    const address = ctx.clientAddress(c);
    door.admit(serverId, address);
    const url = new URL(c.req.url);
    // The raw pathname keeps the client's percent-encoding: the server decodes it exactly once.
    const prefix = `/r/${serverId}`;
    const path = (url.pathname.slice(prefix.length) || '/') + url.search;
    const method = c.req.method;
    const headers = door.headers(headerPairs(c.req.raw.headers), serverId, address);
    const breach = checkRequestHead(path, headers);
    if (breach) return c.json(errorBody(breach.code, breach.message), breach.status);
    const bytes = method === 'GET' || method === 'HEAD' ? null : new Uint8Array(await c.req.arrayBuffer());
    const done = await forward(ctx, c.req.raw.signal, serverId, {
      kind: 'http',
      method,
      path,
      headers,
      bytes,
    });
    if (!done) return new Response(null, { status: 499 });
    return answerToResponse(done.answer as HttpAnswer, method, done.requestId);
  };

  app.all('/:serverId', handler);
  app.all('/:serverId/*', handler);
  return app;
}
