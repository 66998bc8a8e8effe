import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { LINGER_MS, lingeringClose } from './linger.ts';

/**
 * Graceful close of a node:http server. `server.close()` alone is not enough: it keeps serving
 * new requests on kept-alive connections for as long as clients send them, and it drops
 * connections that were accepted a moment ago but whose first request has not arrived yet
 * (their client sees a reset and cannot tell whether its request ran). Once `close` is called:
 * `draining` is true (the caller answers new requests with a refusal), every response closes
 * its connection, idle kept-alive connections are closed, a new connection gets `idleMs` for
 * its first request to arrive (and be refused properly), and whatever is still open after the
 * grace is cut. It resolves once every connection has really closed.
 *
 * Every connection the server closes after an answer closes lingering (./linger.ts): a refusal
 * sent while the client is still sending its body reaches it instead of a reset. A lingering
 * connection is not idle: the sweep leaves it to its linger (`lingerMs`), within the grace.
 */
export function httpDrain(
  server: Server,
  opts: {
    idleMs?: number;
    /**
     * Requests that wait for something to happen rather than work (a change feed's stream or long
     * poll): in flight, but not `working`. A workspace holds one open all the time.
     */
    waits?: (req: IncomingMessage) => boolean;
    /** Longest a closed connection goes on reading what its client still sends (./linger.ts). */
    lingerMs?: number;
  } = {},
) {
  const idleMs = opts.idleMs ?? 250;
  const linger = lingeringClose(server, opts.lingerMs ?? LINGER_MS);
  /** The responses of open requests that `waits`. */
  const waiting = new Set<ServerResponse>();
  let draining = false;
  let closing: Promise<{ cut: boolean }> | undefined;
  const sockets = new Map<Socket, { busy: number; served: number; since: number }>();
  /** Responses not closed yet, each with its socket's record. */
  const open = new Map<ServerResponse, { busy: number; served: number; since: number } | undefined>();
  let onEmpty = () => {};
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { busy: 0, served: 0, since: Date.now() });
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) onEmpty();
    });
  });
  // One listener function for every response (no closure made per request): `close` comes once.
  // (`res.socket` is gone by then: the socket's record is kept beside the response.)
  function onResponseClose(this: ServerResponse) {
    const s = open.get(this);
    open.delete(this);
    waiting.delete(this);
    if (s) {
      s.busy -= 1;
      s.served += 1;
    }
  }
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const s = sockets.get(req.socket);
    if (s) s.busy += 1;
    open.set(res, s);
    if (opts.waits?.(req)) waiting.add(res);
    res.on('close', onResponseClose);
    if (draining) res.shouldKeepAlive = false;
  });
  return {
    /** Requests answered now (their response not closed yet). */
    get inFlight() {
      return open.size;
    },
    /** Requests in flight that work (not `waits`): what background work after a start waits for. */
    get working() {
      return open.size - waiting.size;
    },
    /** True once `close` was called: refuse new requests (they did not start before it). */
    get draining() {
      return draining;
    },
    /** Stops accepting and resolves once every connection is closed; `cut`: the grace ran out. */
    close(graceMs: number): Promise<{ cut: boolean }> {
      closing ??= new Promise((resolve) => {
        draining = true;
        for (const res of open.keys()) if (!res.headersSent) res.shouldKeepAlive = false;
        const until = Date.now() + graceMs;
        let listening = true;
        // One turn later: a client in this process sees the closes before the caller goes on.
        const finish = () => {
          if (!listening && sockets.size === 0) setImmediate(() => resolve({ cut: Date.now() > until }));
        };
        onEmpty = finish;
        // net's close: stop listening without http's immediate drop of fresh connections.
        NetServer.prototype.close.call(server, () => {
          listening = false;
          finish();
        });
        const sweep = () => {
          if (!listening && sockets.size === 0) return;
          const now = Date.now();
          for (const [socket, s] of sockets) {
            const idle = s.busy === 0 && (s.served > 0 || now - s.since >= idleMs) && !linger.has(socket);
            if (now > until || idle) socket.destroy();
          }
          setTimeout(sweep, 20).unref();
        };
        sweep();
      });
      return closing;
    },
  };
}
