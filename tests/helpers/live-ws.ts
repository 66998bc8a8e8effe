/** A live editor over a real WebSocket (`ws`): a ticket by POST, then the client of client-link. */
import WebSocket from 'ws';
import { LiveClient } from '../../client-link/src/flow/live-client.ts';
import { until } from './wait.ts';

export async function liveTicket(base: string, key: string, path: string) {
  const res = await fetch(`${base}/api/v1/live/tickets`, {
    method: 'POST',
    headers: { 'x-service-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ path }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A socket to the live door with `ticket`; resolves once it opened or closed. */
export function liveSocket(base: string, ticket: string | null): WebSocket {
  const url = `${base.replace(/^http/, 'ws')}/api/v1/live`;
  const protocols = ticket === null ? ['quire-live'] : ['quire-live', `quire-live.ticket.${ticket}`];
  return new WebSocket(url, protocols);
}

export interface WsEditor {
  client: LiveClient;
  ws: WebSocket;
  closed: { code: number; reason: string } | null;
  close(): Promise<void>;
}

/** Joins the note at `path` as `key`, waiting until the document is synced. */
export async function liveEditor(base: string, key: string, path: string): Promise<WsEditor> {
  const t = await liveTicket(base, key, path);
  if (t.status !== 201) throw new Error(`ticket: ${t.status} ${JSON.stringify(t.body)}`);
  const ws = liveSocket(base, t.body.data.ticket);
  ws.binaryType = 'nodebuffer';
  const client = new LiveClient((d) => {
    if (ws.readyState === ws.OPEN) ws.send(d);
  });
  const ed: WsEditor = {
    client,
    ws,
    closed: null,
    async close() {
      if (ws.readyState !== ws.CLOSED) {
        ws.close();
        await until('socket closed', () => ed.closed !== null);
      }
      client.destroy();
    },
  };
  ws.on('message', (data, isBinary) => {
    const buf = data as Buffer;
    client.receive(
      isBinary ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : buf.toString('utf8'),
    );
  });
  ws.on('close', (code, reason) => {
    ed.closed = { code, reason: reason.toString() };
  });
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('close', (code) => reject(new Error(`closed ${code}`)));
  });
  client.start();
  await until('synced', () => client.synced || ed.closed);
  if (!client.synced) throw new Error(`closed ${ed.closed?.code} ${ed.closed?.reason}`);
  return ed;
}
