import type { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';

/** How long a connection closed after an answer goes on reading before it is cut, by default. */
export const LINGER_MS = 1_000;

/** The last request read on a socket: the only one whose body can still be arriving. */
const REQUEST = Symbol('last request');
type Held = Socket & { [REQUEST]?: IncomingMessage };

function remember(req: IncomingMessage) {
  (req.socket as Held)[REQUEST] = req;
}

const cut = (socket: Socket) => socket.destroy();

/**
 * Lingering close (RFC 9112 section 9.6) of the connections `server` closes after an answer.
 *
 * node:http closes a connection after a `connection: close` answer with `socket.destroySoon()`:
 * its FIN, then the socket destroyed as soon as the answer is flushed. When the client is still
 * sending a body the server did not read (a refusal before the body: 413, 401, 503, a refusal
 * while shutting down), the kernel answers the unread bytes with a reset, and a client that
 * had not read the answer yet loses it (status 0, EPIPE, ECONNRESET).
 *
 * On this server's sockets `destroySoon` half-closes instead: the FIN goes after the answer,
 * the rest of the request body is read and discarded, and the socket closes when the client
 * closes its side (it has the answer by then) or after `ms`, whichever comes first. Bounded by
 * time only: a byte cap that cut earlier would bring the reset back for a fast upload.
 */
export function lingeringClose(server: Server, ms = LINGER_MS) {
  const lingering = new Set<Socket>();
  // One function for every socket (an own property, so only this server's sockets change).
  function destroySoon(this: Held) {
    // The client's FIN came already (nothing more can arrive to be reset) or the socket is gone.
    if (!this.readable || this.destroyed) return Socket.prototype.destroySoon.call(this);
    if (lingering.has(this)) return;
    lingering.add(this);
    const timer = setTimeout(cut, ms, this);
    timer.unref();
    this.once('close', () => {
      clearTimeout(timer);
      lingering.delete(this);
    });
    if (this.writable) this.end();
    // The answer is final, so the rest of the body has no reader any more: read and drop it,
    // as Node does for a body nobody touched (`req._dump()`). A reader that took the body and
    // then stopped (a web stream over it that is never read) would otherwise hold it paused,
    // and the unread bytes would meet a closed socket at the end of the linger.
    const req = this[REQUEST];
    if (req && !req.complete) {
      req.removeAllListeners('data');
      req.resume();
    }
  }
  server.prependListener('request', remember);
  server.on('connection', (socket: Socket) => {
    socket.destroySoon = destroySoon;
  });
  return {
    /** True while `socket` is half-closed, waiting for its client's FIN. */
    has: (socket: Socket) => lingering.has(socket),
  };
}
