/**
 * The tunnel's binary frames (docs/reference/relay.md, "Frame format"). One WebSocket binary message is
 * one frame:
 *
 *   byte 0      type
 *   bytes 1-4   stream id (uint32, big endian; 0 for connection-level frames)
 *   byte 5      flags (bit 0: END, the last frame of this stream's direction)
 *   bytes 6-    payload: UTF-8 JSON for HELLO, AUTH, READY, REQ, RES, RESET, PAIR; raw bytes for DATA
 *
 * A request is one REQ frame (method, path, headers, deadline) followed by DATA frames of at
 * most `WIRE_LIMITS.maxChunkBytes` each, the last one with END (or REQ itself carries END when
 * there is no body); an answer is a RES frame then DATA frames the same way. A head whose whole
 * body fits in one chunk carries it inline instead (flag INLINE, with END): the payload is then a
 * uint32 length of the JSON head, the head, and the body bytes, so a small request or answer is
 * one message each way. Bodies travel as raw bytes, never base64. Web-standard APIs only
 * (Uint8Array, DataView, TextEncoder).
 *
 * Line heads (flag LINES, REQ and RES only): an http request head or an answer head as UTF-8 lines
 * joined by `\n` instead of JSON: `http, method, path, ttlMs, name, value, …` for a request,
 * `status, name, value, …` for an answer (decoded with one TextDecoder call and one split, about
 * twice as fast both ways as JSON). A peer sends them only to a peer that said it reads them
 * (HELLO's and AUTH's `heads: ["lines"]`, `HEADS_LINES`); every decoder reads both forms, and a
 * head with a `\n` in any part (no HTTP head has one) or of another kind stays JSON.
 */
import type { ErrorCode } from '../../core/errors.ts';
import { WIRE_LIMITS } from './limits.ts';

export const FrameType = {
  /** relay → server: `{challenge}` on connect. */
  HELLO: 1,
  /** server → relay: `{serverId, publicKey, signature, pairCodeHash?}`. */
  AUTH: 2,
  /** relay → server: `{publicUrl, now, limits}` once the key is proven. */
  READY: 3,
  /** relay → server: a request head. */
  REQ: 4,
  /** server → relay: an answer head. */
  RES: 5,
  /** either way: body bytes of the stream. */
  DATA: 6,
  /** either way: `{code, status, message}`: the stream failed (alone). Older peers send no `code`. */
  RESET: 7,
  /** server → relay: `{pairCodeHash}` (null clears) whenever the pairing code changes. */
  PAIR: 8,
  /** server → relay: it is stopping: send nothing new (the relay answers 503 SERVER_OFFLINE); answers in flight still come. */
  GOAWAY: 9,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export const END = 1;
/** REQ/RES only: the payload is `uint32 headLength, JSON head, body bytes` (always sent with END). */
export const INLINE = 2;
/** REQ/RES only: the head is lines (`http\nmethod\npath\nttlMs\nname\nvalue…` or `status\nname\nvalue…`), not JSON. */
export const LINES = 4;
/** The head form a peer names in HELLO (relay) and AUTH (server) `heads` when it reads line heads. */
export const HEADS_LINES = 'lines';
const HEADER = 6;

/** One decoded frame. `payload` is a view into the message; copy it to keep it. */
export interface Frame {
  type: FrameType;
  stream: number;
  flags: number;
  payload: Uint8Array;
}

/** A frame that does not decode; `stream` is set when the header was readable (it fails alone). */
export class FrameError extends Error {
  constructor(
    message: string,
    readonly stream: number | null,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/**
 * Small frames are cut from shared chunks, as node's Buffer.allocUnsafe cuts from its pool: a head
 * of a few hundred bytes then costs no ArrayBuffer of its own (two per frame before: the encoded
 * JSON and the frame), and its JSON is encoded once, straight into place. A frame is a view that
 * keeps its chunk alive until it is dropped (sent), so only frames up to `POOLED_MAX` are cut.
 */
const POOL_BYTES = 64 * 1024;
const POOLED_MAX = 8 * 1024;
let pool = new Uint8Array(POOL_BYTES);
let poolAt = 0;

/** A view of `max` bytes at the pool's free end (or null when that is more than `POOLED_MAX`); `commit` takes what was used. */
function poolRoom(max: number): Uint8Array | null {
  if (max > POOLED_MAX) return null;
  if (poolAt + max > POOL_BYTES) {
    pool = new Uint8Array(POOL_BYTES);
    poolAt = 0;
  }
  return pool.subarray(poolAt, poolAt + max);
}

/** Takes the first `used` bytes of the last `poolRoom` view as a frame (kept 8-aligned). */
function commit(room: Uint8Array, used: number): Uint8Array {
  poolAt += (used + 7) & ~7;
  return room.subarray(0, used);
}

/** Writes the 6-byte frame header at the start of `out`. */
function putHeader(out: Uint8Array, type: FrameType, stream: number, flags: number): void {
  out[0] = type;
  out[1] = stream >>> 24;
  out[2] = (stream >>> 16) & 0xff;
  out[3] = (stream >>> 8) & 0xff;
  out[4] = stream & 0xff;
  out[5] = flags;
}

/** Encodes a frame; `body` is JSON-encoded unless it is already bytes. */
export function encodeFrame(type: FrameType, stream: number, flags: number, body: unknown): Uint8Array {
  if (!(body instanceof Uint8Array)) {
    const json = JSON.stringify(body ?? null);
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = poolRoom(HEADER + json.length * 3);
    if (room) {
      const { written } = enc.encodeInto(json, room.subarray(HEADER));
      putHeader(room, type, stream >>> 0, flags);
      return commit(room, HEADER + written);
    }
    return withHeader(type, stream, flags, enc.encode(json));
  }
  return withHeader(type, stream, flags, body);
}

function withHeader(type: FrameType, stream: number, flags: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + payload.byteLength);
  putHeader(out, type, stream >>> 0, flags);
  out.set(payload, HEADER);
  return out;
}

/** Decodes one message into a frame; throws FrameError (with the stream when known). */
export function decodeFrame(bytes: Uint8Array): Frame {
  if (bytes.byteLength < HEADER) throw new FrameError('frame shorter than its header', null);
  if (bytes.byteLength > WIRE_LIMITS.maxFrameBytes)
    throw new FrameError(`frame larger than ${WIRE_LIMITS.maxFrameBytes} bytes`, null);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = bytes[0] as FrameType;
  const stream = view.getUint32(1);
  if (type < FrameType.HELLO || type > FrameType.GOAWAY)
    throw new FrameError(`unknown frame type ${type}`, stream);
  const flags = bytes[5] as number;
  if (flags & INLINE && (!(flags & END) || (type !== FrameType.REQ && type !== FrameType.RES)))
    throw new FrameError('INLINE is for a whole request or answer head (REQ or RES, with END)', stream);
  if (flags & LINES && type !== FrameType.REQ && type !== FrameType.RES)
    throw new FrameError('LINES is for a request or answer head (REQ or RES)', stream);
  return { type, stream, flags, payload: bytes.subarray(HEADER) };
}

/**
 * A REQ or RES frame carrying `head` and, when it fits in one frame, the whole `body` (INLINE);
 * null when the body must follow in DATA frames. `lines`: the peer reads line heads (the head is
 * sent as lines when it can be).
 */
export function encodeInline(
  type: FrameType,
  stream: number,
  head: unknown,
  body: Uint8Array,
  lines = false,
): Uint8Array | null {
  if (body.byteLength > WIRE_LIMITS.maxChunkBytes) return null;
  const asLines = lines ? headLines(type, head) : null;
  const text = asLines ?? JSON.stringify(head);
  const flags = asLines === null ? END | INLINE : END | INLINE | LINES;
  const room = poolRoom(HEADER + 4 + text.length * 3 + body.byteLength);
  if (room) {
    const { written } = enc.encodeInto(text, room.subarray(HEADER + 4));
    const size = HEADER + 4 + written + body.byteLength;
    if (size > WIRE_LIMITS.maxFrameBytes) return null;
    putHeader(room, type, stream >>> 0, flags);
    putUint32(room, HEADER, written);
    room.set(body, HEADER + 4 + written);
    return commit(room, size);
  }
  const json = enc.encode(text);
  const size = HEADER + 4 + json.byteLength + body.byteLength;
  if (size > WIRE_LIMITS.maxFrameBytes) return null;
  const out = new Uint8Array(size);
  putHeader(out, type, stream >>> 0, flags);
  putUint32(out, HEADER, json.byteLength);
  out.set(json, HEADER + 4);
  out.set(body, HEADER + 4 + json.byteLength);
  return out;
}

/**
 * A REQ or RES head frame (its body, if any, follows in DATA frames): as lines when `lines` (the
 * peer reads them) and the head can be, else JSON.
 */
export function encodeHead(
  type: FrameType,
  stream: number,
  flags: number,
  head: unknown,
  lines = false,
): Uint8Array {
  const text = lines ? headLines(type, head) : null;
  if (text === null) return encodeFrame(type, stream, flags, head);
  const room = poolRoom(HEADER + text.length * 3);
  if (room) {
    const { written } = enc.encodeInto(text, room.subarray(HEADER));
    putHeader(room, type, stream >>> 0, flags | LINES);
    return commit(room, HEADER + written);
  }
  return withHeader(type, stream, flags | LINES, enc.encode(text));
}

/** True when `s` can be one line of a line head. */
const oneLine = (s: unknown): s is string => typeof s === 'string' && s.indexOf('\n') === -1;

/**
 * `head` as line text: an http request head for REQ, an answer head with a status for RES; null
 * when it is neither (a pairing head, a pairing answer) or a part holds a `\n` (then it goes as JSON).
 */
export function headLines(type: FrameType, head: unknown): string | null {
  if (typeof head !== 'object' || head === null) return null;
  const h = head as RequestHead & AnswerHead;
  let text: string;
  if (type === FrameType.REQ) {
    if (h.kind !== 'http' || !oneLine(h.method) || !oneLine(h.path) || !Number.isFinite(h.ttlMs)) return null;
    text = `http\n${h.method}\n${h.path}\n${h.ttlMs}`;
  } else if (type === FrameType.RES) {
    if (typeof h.status !== 'number' || 'apiKey' in h) return null;
    text = String(h.status);
  } else return null;
  const headers = h.headers ?? [];
  if (!Array.isArray(headers)) return null;
  for (let i = 0; i < headers.length; i++) {
    const pair = headers[i] as [unknown, unknown];
    const k = pair[0];
    const v = pair[1];
    if (!oneLine(k) || !oneLine(v)) return null;
    text += `\n${k}\n${v}`;
  }
  return text;
}

function putUint32(out: Uint8Array, at: number, n: number): void {
  out[at] = n >>> 24;
  out[at + 1] = (n >>> 16) & 0xff;
  out[at + 2] = (n >>> 8) & 0xff;
  out[at + 3] = n & 0xff;
}

/** The head part of a frame's payload (JSON or lines; the head of an INLINE frame); throws FrameError for its stream. */
function headPart(frame: Frame): Uint8Array {
  if (!(frame.flags & INLINE)) return frame.payload;
  const p = frame.payload;
  if (p.byteLength < 4) throw new FrameError('inline frame shorter than its head length', frame.stream);
  const len = new DataView(p.buffer, p.byteOffset, p.byteLength).getUint32(0);
  if (len > p.byteLength - 4) throw new FrameError('inline head longer than its frame', frame.stream);
  return p.subarray(4, 4 + len);
}

/** The body bytes of an INLINE frame (a view: copy it to keep it); null for other frames. */
export function inlineBody(frame: Frame): Uint8Array | null {
  if (!(frame.flags & INLINE)) return null;
  return frame.payload.subarray(4 + headPart(frame).byteLength);
}

/** The JSON payload of a frame; throws FrameError (for its stream) when it is not JSON. */
export function frameJson<T>(frame: Frame): T {
  const part = headPart(frame);
  try {
    return JSON.parse(dec.decode(part)) as T;
  } catch {
    throw new FrameError('frame payload is not JSON', frame.stream);
  }
}

/**
 * The head of a REQ or RES frame, JSON or lines (flag LINES) alike; throws FrameError (for its
 * stream) when it does not decode.
 */
export function frameHead<T extends RequestHead | AnswerHead>(frame: Frame): T {
  if (!(frame.flags & LINES)) return frameJson<T>(frame);
  let parts: string[];
  try {
    parts = dec.decode(headPart(frame)).split('\n');
  } catch {
    throw new FrameError('frame head is not UTF-8', frame.stream);
  }
  // A request: kind, method, path, ttlMs; an answer: status; then name and value pairs.
  const at = frame.type === FrameType.REQ ? 4 : 1;
  if (parts.length < at || (parts.length - at) % 2 !== 0)
    throw new FrameError('line head with a missing line', frame.stream);
  const headers: [string, string][] = [];
  for (let i = at; i < parts.length; i += 2) headers.push([parts[i] as string, parts[i + 1] as string]);
  if (frame.type === FrameType.REQ) {
    if (parts[0] !== 'http') throw new FrameError('line head of an unknown request kind', frame.stream);
    const head: RequestHead = {
      kind: 'http',
      method: parts[1] as string,
      path: parts[2] as string,
      headers,
      ttlMs: Number(parts[3]),
    };
    return head as T;
  }
  const head: AnswerHead = { status: Number(parts[0]), headers };
  return head as T;
}

/** `bytes` cut into DATA-sized chunks (at least one, possibly empty). */
export function chunks(bytes: Uint8Array, size: number = WIRE_LIMITS.maxChunkBytes): Uint8Array[] {
  if (bytes.byteLength <= size) return [bytes];
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.byteLength; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** Joins chunks into one array. */
export function concat(parts: Uint8Array[], total?: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total ?? parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** A request head as REQ carries it. */
export interface RequestHead {
  kind: 'http' | 'pair';
  method?: string;
  path?: string;
  headers?: [string, string][];
  code?: string;
  /** Milliseconds the server has to answer, from when it received the frame. */
  ttlMs: number;
}

/** An answer head as RES carries it. */
export interface AnswerHead {
  status?: number;
  headers?: [string, string][];
  apiKey?: string | null;
}

/** A request head as REQ carries it, from a proxied request or a queued item (the one place it is built). */
export function requestHead(
  item:
    | { kind: 'http'; method: string; path: string; headers: [string, string][] }
    | { kind: 'pair'; code: string },
  ttlMs = 0,
): RequestHead {
  return item.kind === 'pair'
    ? { kind: 'pair', code: item.code, ttlMs }
    : { kind: 'http', method: item.method, path: item.path, headers: item.headers, ttlMs };
}

/**
 * RESET's payload: the error `code` the stream failed with travels as it is (since the coded
 * RESET); `status` is its HTTP status, still sent so an older peer (which reads only the
 * status) understands it.
 */
export interface ResetBody {
  code: ErrorCode;
  status: number;
  message: string;
}

/** A RESET frame for `stream`. */
export function encodeReset(stream: number, body: ResetBody): Uint8Array {
  return encodeFrame(FrameType.RESET, stream, END, body);
}

/**
 * What an older peer's RESET (a status, no code) stands for: the codes its senders meant by
 * those statuses; any other status is an INTERNAL_ERROR.
 */
const LEGACY_RESET_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'VALIDATION_ERROR',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  503: 'SERVER_OFFLINE',
  504: 'RELAY_TIMEOUT',
};

const CODE = /^[A-Z][A-Z_]{0,63}$/;

/**
 * Reads a RESET: its code, status and message. `statusOf` names the known codes (the HTTP kit's
 * one table); an unknown or missing code (an older peer sends none) becomes the code its status
 * stands for. The status is the one sent (400-599), else the code's. Throws FrameError when it
 * is not JSON.
 */
export function decodeReset(frame: Frame, statusOf: (code: string) => number | undefined): ResetBody {
  const r = frameJson<{ code?: unknown; status?: unknown; message?: unknown } | null>(frame) ?? {};
  const sent =
    typeof r.status === 'number' && Number.isInteger(r.status) && r.status >= 400 && r.status <= 599
      ? r.status
      : null;
  const known = typeof r.code === 'string' && CODE.test(r.code) ? statusOf(r.code) : undefined;
  const code =
    known !== undefined ? (r.code as ErrorCode) : (LEGACY_RESET_CODES[sent ?? 502] ?? 'INTERNAL_ERROR');
  const status = sent ?? known ?? 502;
  return { code, status, message: typeof r.message === 'string' ? r.message : 'the server could not answer' };
}
