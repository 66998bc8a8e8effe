import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Graceful close of a node:http server. `server.close()` alone stops accepting connections
 * but keeps serving new requests on kept-alive ones, and waits for them for as long as clients
 * keep sending. Once `close` is called, `draining` is true (the caller answers new requests
 * with a refusal), every response closes its connection, idle connections are closed as soon
 * as they are idle, and whatever is still open after `graceMs` is cut.
 */
export function httpDrain(server: Server) {
  let draining = false;
  let closing: Promise<{ cut: boolean }> | undefined;
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
  });
  return {
    /** True once `close` was called: refuse new requests (they did not start before it). */
    get draining() {
      return draining;
    },
    /** Stops accepting and resolves once every connection is closed; `cut`: the grace ran out. */
    close(graceMs: number): Promise<{ cut: boolean }> {
      closing ??= new Promise((resolve) => {
        draining = true;
        let done = false;
        const until = Date.now() + graceMs;
        server.close(() => {
          done = true;
          resolve({ cut: Date.now() > until });
        });
        const sweep = () => {
          if (done) return;
          if (Date.now() > until) return server.closeAllConnections();
          server.closeIdleConnections();
          setTimeout(sweep, 20).unref();
        };
        sweep();
      });
      return closing;
    },
  };
}
