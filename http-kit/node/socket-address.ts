import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The peer address of a request @hono/node-server serves; undefined where there is no socket (a
 * request made with `app.request`, or one the relay connector hands in).
 */
export function socketAddressOf(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
