import type { MiddlewareHandler } from 'hono';

/** The header that carries a request's id, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What a client may send as its own `X-Request-Id` (the same rule as Hono's request-id middleware, 64 at most). */
const VALID_ID = /^[\w\-=]{1,64}$/;

/**
 * The request's own `X-Request-Id` when it is a sane one, else a new random id. The one rule of
 * every frame: the server's, the relay's, and the Node dispatcher of both (http-kit/node/dispatch.ts).
 */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && VALID_ID.test(given) ? given : crypto.randomUUID();
}

/** The request id of every request (`c.get('requestId')`), also on the answers the app builds itself. */
export function requestIdMiddleware(): MiddlewareHandler {
  return async (c, next) => {
    const id = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', id);
    c.header(REQUEST_ID_HEADER, id);
    await next();
  };
}
