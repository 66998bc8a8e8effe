import { Hono } from 'hono';
import { DomainError } from '../../core/errors.ts';
import { answerToResponse, requestHeaders, toBase64 } from '../http-codec.ts';
import type { HttpAnswer } from '../protocol.ts';
import type { RelayContext, RelayEnv } from '../types.ts';
import { forward } from './forward.ts';

const SERVER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{2,127}$/;

/** `ALL /r/:serverId/*`: any method, path, query, headers and body bytes, to that server. */
export function proxyRoutes(ctx: RelayContext) {
  const app = new Hono<RelayEnv>();
  const base = new URL(ctx.publicBaseUrl);

  const handler = async (c: import('hono').Context<RelayEnv>) => {
    const serverId = c.req.param('serverId') ?? '';
    if (!SERVER_ID.test(serverId)) throw new DomainError('NOT_FOUND', 'No server has that id.');
    const url = new URL(c.req.url);
    // The raw pathname keeps the client's percent-encoding: the server decodes it exactly once.
    const prefix = `/r/${serverId}`;
    const path = (url.pathname.slice(prefix.length) || '/') + url.search;
    const method = c.req.method;
    const bytes = method === 'GET' || method === 'HEAD' ? null : new Uint8Array(await c.req.arrayBuffer());
    const headers = requestHeaders(c.req.raw.headers, {
      clientAddress: ctx.clientAddress(c),
      proto: base.protocol.replace(':', ''),
      host: base.host,
      prefix: `${base.pathname.replace(/\/$/, '')}${prefix}`,
    });
    const done = await forward(ctx, c, serverId, {
      kind: 'http',
      method,
      path,
      headers,
      body: toBase64(bytes),
    });
    if (!done) return new Response(null, { status: 499 });
    return answerToResponse(done.answer as HttpAnswer, method, done.requestId);
  };

  app.all('/:serverId', handler);
  app.all('/:serverId/*', handler);
  return app;
}
