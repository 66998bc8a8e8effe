import type { Context } from 'hono';
import type { AppDeps } from './types.ts';

const HOST = /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i;

/**
 * The client's address: the socket address, or with `trustProxy` the address the proxy
 * appended last to X-Forwarded-For (the one entry a client cannot forge).
 */
export function clientAddress(c: Context, deps: AppDeps): string {
  if (deps.trustProxy) {
    const xff = c.req.header('x-forwarded-for');
    const last = xff?.split(',').pop()?.trim();
    if (last) return last;
  }
  return deps.socketAddress?.(c) ?? 'unknown';
}

/**
 * The server's canonical URL: PUBLIC_URL, else the request's origin; X-Forwarded-Proto/Host
 * only with `trustProxy`, and only when they are well formed.
 */
export function serverUrl(c: Context, deps: AppDeps): string {
  if (deps.setup?.publicUrl) return deps.setup.publicUrl;
  const url = new URL(c.req.url);
  if (deps.trustProxy) {
    const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim();
    const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim();
    const scheme = proto === 'http' || proto === 'https' ? proto : url.protocol.slice(0, -1);
    return `${scheme}://${host && HOST.test(host) ? host : url.host}`;
  }
  return url.origin;
}
