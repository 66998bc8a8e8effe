/** What a client may send as its own `X-Request-Id` (the same rule as Hono's request-id middleware, 64 at most). */
const VALID_ID = /^[\w\-=]{1,64}$/;

/**
 * The request's own `X-Request-Id` when it is a sane one, else a new random id. One rule for the
 * app's request frame and the Node fast lanes of the server and the relay.
 */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && VALID_ID.test(given) ? given : crypto.randomUUID();
}
