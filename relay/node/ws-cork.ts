import type { Socket } from 'node:net';
import type WebSocket from 'ws';

/**
 * A sender of binary messages on `ws` that corks its socket until the I/O of this turn of the
 * event loop is handled (`setImmediate`): the frames of many streams written in one turn (say,
 * requests from 32 client connections that arrived together) leave in one write, one system
 * call and one wake-up of the peer, instead of one each.
 */
export function corkedSender(ws: WebSocket): (bytes: Uint8Array) => void {
  let corked: Socket | null = null;
  const uncork = () => {
    const s = corked;
    corked = null;
    s?.uncork();
  };
  return (bytes) => {
    if (!corked) {
      const socket = (ws as unknown as { _socket?: Socket })._socket;
      if (socket) {
        socket.cork();
        corked = socket;
        setImmediate(uncork);
      }
    }
    ws.send(bytes, { binary: true });
  };
}
