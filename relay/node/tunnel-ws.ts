import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { WIRE_LIMITS } from '../protocol/limits.ts';
import type { TunnelHub } from '../service/tunnel-hub.ts';
import { corkedSender } from './ws-cork.ts';

/** The tunnel endpoint's path. */
export const TUNNEL_PATH = '/api/v1/relay/tunnel';

/**
 * Binds WebSocket upgrades on `TUNNEL_PATH` to the relay's tunnel hub (Node only: the hub and
 * the frames are runtime-neutral). Other upgrades, and every upgrade once `refuse()` is true
 * (shutting down), are refused with a plain HTTP answer.
 */
export function attachTunnels(
  server: Server,
  hub: TunnelHub,
  refuse: () => boolean,
  /** The client's address as the relay's routes see it (last X-Forwarded-For hop with trustProxy). */
  addressOf: (req: IncomingMessage) => string | undefined = (req) => req.socket.remoteAddress,
) {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: WIRE_LIMITS.maxFrameBytes,
    perMessageDeflate: false,
  });
  const deny = (socket: Duplex, status: string) => {
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  };
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== TUNNEL_PATH) return deny(socket, '404 Not Found');
    if (refuse()) return deny(socket, '503 Service Unavailable');
    wss.handleUpgrade(req, socket, head, (ws) => {
      (ws as unknown as { _socket?: { setNoDelay?: (v: boolean) => void } })._socket?.setNoDelay?.(true);
      const send = corkedSender(ws);
      const conn = hub.accept(
        {
          send,
          buffered: () => ws.bufferedAmount,
          close: (code, reason) => ws.close(code, reason),
        },
        addressOf(req),
      );
      ws.on('message', (data, isBinary) => {
        // A Buffer is a Uint8Array: handed over as it is (no view made per message).
        conn.onMessage(isBinary ? (data as Buffer) : new Uint8Array(0));
      });
      ws.on('close', (code) => conn.onClose(code));
      ws.on('error', () => ws.terminate());
    });
  });
  return {
    close() {
      hub.close();
      wss.close();
    },
  };
}
