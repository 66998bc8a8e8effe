/**
 * The live editing door on node:http: the WebSocket at `/api/v1/live`, its ticket shown as a
 * subprotocol (`quire-live.ticket.<ticket>` beside `quire-live`), each connection handed to the
 * core's live service as a peer (docs/reference/api.md "Live editing").
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { DomainError } from '../../core/errors.ts';
import type { Live, LivePeer, LiveSession } from '../../core/live/service.ts';
import type { Logger } from '../../core/ports.ts';
import { LIVE_PATH } from '../http/routes/live.ts';

/** The subprotocol the server answers with; the ticket rides in a second one. */
export const LIVE_PROTOCOL = 'quire-live';
const TICKET_PREFIX = `${LIVE_PROTOCOL}.ticket.`;
/** Largest message taken from an editor (a paste of a large note fits). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** A connection that answers no ping for this long is dropped (its editor left without a word). */
const PING_MS = 30_000;

/** Close codes: the ticket failed (like 401), the note is gone or hidden (like 404), try again. */
const CLOSE_TICKET = 4401;
const CLOSE_NOT_FOUND = 4404;
const CLOSE_TRY_AGAIN = 1013;

const bytesOf = (data: RawData): Uint8Array =>
  Array.isArray(data)
    ? new Uint8Array(Buffer.concat(data))
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

function attach(ws: WebSocket, ticket: string, live: Live, logger?: Logger): void {
  const early: Uint8Array[] = [];
  let session: LiveSession | undefined;
  let closed = false;
  const peer: LivePeer = {
    send: (d) => (ws.readyState === ws.OPEN ? ws.send(d) : undefined),
    notice: (n) => (ws.readyState === ws.OPEN ? ws.send(JSON.stringify(n)) : undefined),
    close: (code, reason) => ws.close(code, reason),
  };
  let alive = true;
  const pinger = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, PING_MS);
  pinger.unref();
  ws.on('pong', () => {
    alive = true;
  });
  ws.on('message', (data, isBinary) => {
    if (!isBinary) return;
    const bytes = bytesOf(data);
    if (!session) return void early.push(bytes);
    try {
      session.receive(bytes);
    } catch {
      ws.close(1007, 'malformed message');
    }
  });
  ws.on('close', () => {
    closed = true;
    clearInterval(pinger);
    void session?.leave();
  });
  live.join(ticket, peer).then(
    (s) => {
      if (closed) return void s.leave();
      session = s;
      try {
        for (const d of early.splice(0)) s.receive(d);
      } catch {
        ws.close(1007, 'malformed message');
      }
    },
    (err: unknown) => {
      const code = err instanceof DomainError ? err.code : 'INTERNAL_ERROR';
      if (code === 'INTERNAL_ERROR') logger?.error('live join failed', { error: String(err) });
      const close =
        code === 'UNAUTHORIZED'
          ? CLOSE_TICKET
          : code === 'NOTE_NOT_FOUND'
            ? CLOSE_NOT_FOUND
            : CLOSE_TRY_AGAIN;
      ws.close(close, code);
    },
  );
}

/**
 * The door: `handles(req)` says whether an upgrade request is for it, `upgrade` takes the socket.
 * The ticket is checked when the session is joined; a bad one closes the socket with 4401.
 */
export function liveDoor(live: Live, opts: { path: string; logger?: Logger }) {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (protocols) => (protocols.has(LIVE_PROTOCOL) ? LIVE_PROTOCOL : false),
  });
  return {
    handles: (req: IncomingMessage): boolean => (req.url ?? '').split('?', 1)[0] === opts.path,
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',');
      const ticket = protocols.map((p) => p.trim()).find((p) => p.startsWith(TICKET_PREFIX));
      if (!ticket) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) =>
        attach(ws, ticket.slice(TICKET_PREFIX.length), live, opts.logger),
      );
    },
    close: () => wss.close(),
  };
}

/** Serves live editing's WebSocket on `server`'s upgrades; every other upgrade, and any while draining, is refused. */
export function liveDoorOn(server: Server, live: Live, logger: Logger, draining: () => boolean): void {
  const door = liveDoor(live, { path: LIVE_PATH, logger });
  server.on('upgrade', (req, socket, head) => {
    if (!draining() && door.handles(req)) door.upgrade(req, socket, head);
    else socket.destroy();
  });
  server.on('close', () => door.close());
}
