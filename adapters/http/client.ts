import type { Context } from 'hono';
import { clientAddressOf } from '../../http-kit/frame.ts';
import type { AppDeps } from './types.ts';

const HOST = /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i;

/** The client's address by the kit's rule (http-kit/frame.ts `clientAddressOf`), or `unknown`. */
export function clientAddress(c: Context, deps: AppDeps): string {
  return (
    clientAddressOf(!!deps.trustProxy, c.req.header('x-forwarded-for'), () => deps.socketAddress?.(c)) ??
    'unknown'
  );
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
