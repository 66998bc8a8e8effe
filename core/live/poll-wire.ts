/**
 * The wire of live editing over plain requests (the relay carries requests and answers, not
 * WebSockets): what an editor sends is a run of messages, each `[length u32][bytes]`; what the
 * server answers a poll with is a run of frames, each `[kind u8][seq u32][length u32][bytes]`, all
 * big-endian. Kinds: a y-protocols message, a JSON notice, the end of the session (JSON
 * `{code, reason}` as a WebSocket close would carry). Shared by the server and the workspace.
 */

export const FRAME_MESSAGE = 0;
export const FRAME_NOTICE = 1;
export const FRAME_CLOSED = 2;
export type FrameKind = typeof FRAME_MESSAGE | typeof FRAME_NOTICE | typeof FRAME_CLOSED;

export interface PollFrame {
  kind: FrameKind;
  /** The session's count of frames sent, this one included: a poll names the last it holds. */
  seq: number;
  bytes: Uint8Array;
}

function concat(parts: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An editor's messages as one request body. */
export function encodeMessages(messages: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (const m of messages) {
    const head = new Uint8Array(4);
    new DataView(head.buffer).setUint32(0, m.length);
    parts.push(head, m);
    size += 4 + m.length;
  }
  return concat(parts, size);
}

/** The messages of a request body; null when the body is not a whole run of them. */
export function decodeMessages(body: Uint8Array): Uint8Array[] | null {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < body.length) {
    if (at + 4 > body.length) return null;
    const len = view.getUint32(at);
    at += 4;
    if (at + len > body.length) return null;
    out.push(body.subarray(at, at + len));
    at += len;
  }
  return out;
}

/** Frames as one answer body. */
export function encodeFrames(frames: readonly PollFrame[]): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (const f of frames) {
    const head = new Uint8Array(9);
    const v = new DataView(head.buffer);
    v.setUint8(0, f.kind);
    v.setUint32(1, f.seq);
    v.setUint32(5, f.bytes.length);
    parts.push(head, f.bytes);
    size += 9 + f.bytes.length;
  }
  return concat(parts, size);
}

/** The frames of an answer body; null when it is not a whole run of them. */
export function decodeFrames(body: Uint8Array): PollFrame[] | null {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: PollFrame[] = [];
  let at = 0;
  while (at < body.length) {
    if (at + 9 > body.length) return null;
    const kind = view.getUint8(at);
    const seq = view.getUint32(at + 1);
    const len = view.getUint32(at + 5);
    at += 9;
    if (kind > FRAME_CLOSED || at + len > body.length) return null;
    out.push({ kind: kind as FrameKind, seq, bytes: body.subarray(at, at + len) });
    at += len;
  }
  return out;
}
