/**
 * The relay's end of one tunnel, by hand: a WebSocket server that greets a connector (HELLO,
 * READY; the proof of key is not checked), sends it REQ frames and hands back each answer as the
 * connector wrote it (status, header pairs, body bytes), before any relay transforms it. For
 * tests that compare the server's end of the tunnel with the app itself. `version`: the wire
 * version its HELLO names (default this code's).
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import {
  type AnswerHead,
  concat,
  decodeFrame,
  decodeReset,
  END,
  encodeFrame,
  encodeHead,
  FrameType,
  frameHead,
  inlineBody,
  WIRE_VERSION,
} from '../../relay/protocol/frames.ts';

export interface PeerAnswer {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

export async function framePeer(opts: { version?: unknown } = {}) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', path: '/api/v1/relay/tunnel' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const pending = new Map<
    number,
    {
      head?: AnswerHead;
      parts: Uint8Array[];
      resolve: (a: PeerAnswer) => void;
      reject: (e: Error) => void;
    }
  >();
  let next = 1;
  let ready: (send: (bytes: Uint8Array) => void) => void = () => {};
  const online = new Promise<(bytes: Uint8Array) => void>((resolve) => {
    ready = resolve;
  });
  /** How the first connection closed: its code and reason. */
  let closedWith: (c: { code: number; reason: string }) => void = () => {};
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    closedWith = resolve;
  });
  /** The type of each frame the connector sent, in order. */
  const received: FrameType[] = [];
  wss.on('connection', (ws) => {
    ws.once('close', (code, reason) => closedWith({ code, reason: reason.toString() }));
    const send = (bytes: Uint8Array) => ws.send(bytes, { binary: true });
    send(encodeFrame(FrameType.HELLO, 0, 0, { challenge: 'c', version: opts.version ?? WIRE_VERSION }));
    ws.on('message', (data) => {
      const buf = data as Buffer;
      const frame = decodeFrame(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
      received.push(frame.type);
      if (frame.type === FrameType.AUTH) {
        send(encodeFrame(FrameType.READY, 0, 0, { publicUrl: `${url}/r/x`, now: Date.now(), limits: {} }));
        ready(send);
        return;
      }
      const p = pending.get(frame.stream);
      if (!p) return;
      if (frame.type === FrameType.RESET) {
        pending.delete(frame.stream);
        p.reject(new Error(`RESET ${JSON.stringify(decodeReset(frame, () => undefined))}`));
        return;
      }
      if (frame.type === FrameType.RES) {
        p.head = frameHead<AnswerHead>(frame);
        const inline = inlineBody(frame);
        if (inline) p.parts.push(inline.slice());
      } else if (frame.type === FrameType.DATA) p.parts.push(frame.payload.slice());
      if (frame.flags & END) {
        pending.delete(frame.stream);
        p.resolve({
          status: p.head?.status ?? 0,
          headers: p.head?.headers ?? [],
          body: p.parts.length ? concat(p.parts) : new Uint8Array(0),
        });
      }
    });
  });
  return {
    url,
    closed,
    received,
    /** Sends one bodiless request down the tunnel (headers as the relay forwards them) and waits for its answer. */
    async ask(method: string, path: string, headers: [string, string][]): Promise<PeerAnswer> {
      const send = await online;
      const stream = next++;
      const answer = new Promise<PeerAnswer>((resolve, reject) =>
        pending.set(stream, { parts: [], resolve, reject }),
      );
      send(encodeHead(FrameType.REQ, stream, END, { kind: 'http', method, path, headers, ttlMs: 10_000 }));
      return answer;
    },
    close: () => new Promise<void>((resolve) => wss.close(() => resolve())),
  };
}
