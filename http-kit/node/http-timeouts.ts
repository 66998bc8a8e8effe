/** Socket time-outs against slow clients, in ms. */
export interface HttpTimeouts {
  /** Longest a client may take to send the request headers. */
  headersMs: number;
  /** Longest a client may take to send the whole request, body included (not the answer). */
  requestMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveMs: number;
}

/** Defaults for the server and the relay. */
export const DEFAULT_TIMEOUTS: HttpTimeouts = { headersMs: 20_000, requestMs: 120_000, keepAliveMs: 5_000 };

/** `http.createServer` options for `timeouts` (the check interval bounds how late a time-out fires). */
export function timeoutServerOptions(t: HttpTimeouts) {
  return {
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionsCheckingInterval: Math.max(250, Math.min(1_000, Math.floor(t.headersMs / 2))),
  };
}
