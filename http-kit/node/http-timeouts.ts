import type { HttpTimeouts } from '../../core/security/types.ts';

/** `http.createServer` options for `timeouts` (the check interval bounds how late a time-out fires). */
export function timeoutServerOptions(t: HttpTimeouts) {
  return {
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionsCheckingInterval: Math.max(250, Math.min(1_000, Math.floor(t.headersMs / 2))),
  };
}
