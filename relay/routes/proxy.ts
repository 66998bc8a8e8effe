import { Hono } from 'hono';
import { errorBody } from '../../adapters/http-kit/envelope.ts';
import { DomainError } from '../../core/errors.ts';
import { retryLater } from '../errors.ts';
import { answerToResponse, requestHeaders } from '../http-codec.ts';
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
export function proxyRoutes(ctx: RelayContext) {
  const app = new Hono<RelayEnv>();
  const base = new URL(ctx.publicBaseUrl);
  const { limits } = ctx;
  const counter = windowCounter(limits.proxyWindowMs, () => ctx.clock.now());

  function rateLimit(key: string, max: number, who: string) {
    const { count, resetInMs } = counter.hit(key);
    if (count > max)
      throw retryLater('RATE_LIMITED', `Too many requests ${who}; slow down and retry.`, resetInMs / 1000);
  }

  const handler = async (c: import('hono').Context<RelayEnv>) => {
    const serverId = c.req.param('serverId') ?? '';
    if (!SERVER_ID.test(serverId)) throw new DomainError('NOT_FOUND', 'No server has that id.');
    const address = ctx.clientAddress(c);
    rateLimit(`c:${address ?? 'unknown'}`, limits.proxyPerClient, 'from this address');
    rateLimit(`s:${serverId}`, limits.proxyPerServer, 'for this server');
    const url = new URL(c.req.url);
    // The raw pathname keeps the client's percent-encoding: the server decodes it exactly once.
    const prefix = `/r/${serverId}`;
    const path = (url.pathname.slice(prefix.length) || '/') + url.search;
    const method = c.req.method;
    const headers = requestHeaders(c.req.raw.headers, {
      clientAddress: address,
      proto: base.protocol.replace(':', ''),
      host: base.host,
      prefix: `${base.pathname.replace(/\/$/, '')}${prefix}`,
    });
    const breach = checkRequestHead(path, headers);
    if (breach) return c.json(errorBody(breach.code, breach.message), breach.status);
    const bytes = method === 'GET' || method === 'HEAD' ? null : new Uint8Array(await c.req.arrayBuffer());
    const done = await forward(ctx, c, serverId, {
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
