/**
 * The tunnel's binary frames (docs/reference/relay.md, "Frame format"), wire version
 * `WIRE_VERSION`. One WebSocket binary message is one frame:
 *
 *   byte 0      type
 *   bytes 1-4   stream id (uint32, big endian; 0 for connection-level frames)
 *   byte 5      flags (bit 0: END, the last frame of this stream's direction; bit 1: INLINE)
 *   bytes 6-    payload: a line head for REQ and RES; UTF-8 JSON for HELLO, AUTH, READY, RESET,
 *               PAIR, GOAWAY; raw bytes for DATA
 *
 * A request is one REQ frame (its head) followed by DATA frames of at most
 * `WIRE_LIMITS.maxChunkBytes` each, the last one with END (or REQ itself carries END when there is
 * no body); an answer is a RES frame then DATA frames the same way. A head whose whole body fits
 * in one chunk carries it inline instead (flag INLINE, with END): the payload is then a uint32
 * length of the head, the head, and the body bytes, so a small request or answer is one message
 * each way. Bodies travel as raw bytes, never base64. Web-standard APIs only (Uint8Array,
 * TextEncoder).
 *
 * Heads are UTF-8 lines joined by `\n` (decoded with one TextDecoder call and one split; about
 * twice as fast both ways as JSON, which heads were once sent as too): `http, method, path, ttlMs,
 * name, value, …` or `pair, code, ttlMs` for a request, `status, name, value, …` for an answer. No
 * part may hold a `\n` (no HTTP head does): such a head is not encoded (FrameError).
 */
import type { ErrorCode } from '../../core/errors.ts';
import { WIRE_LIMITS } from './limits.ts';

/**
 * The one wire version of the tunnel. The relay names it in HELLO, the server in AUTH; each end
 * closes a tunnel whose peer names another (or none) with `CLOSE_WIRE_VERSION` and a reason that
 * says both versions. A change to the frames, their heads or their JSON bodies is a new version.
 */
export const WIRE_VERSION = 1;
/** WebSocket close code for a peer of another wire version (the reason names both). */
export const CLOSE_WIRE_VERSION = 4010;

/** Why a peer naming `theirs` in its greeting is refused; null when it speaks this version. */
export function wireVersionMismatch(theirs: unknown): string | null {
  if (theirs === WIRE_VERSION) return null;
  // Plain and short: the reason travels in a WebSocket close frame (at most 123 bytes).
  const named =
    typeof theirs === 'number' || typeof theirs === 'string'
      ? String(theirs)
          .replace(/[^\w.-]/g, '?')
          .slice(0, 16)
      : 'none';
  return `tunnel wire version ${named} is not supported (this end speaks ${WIRE_VERSION}); update the older end`;
}

export const FrameType = {
  /** relay → server: `{challenge, version}` on connect. */
  HELLO: 1,
  /** server → relay: `{version, serverId, publicKey, signature, pairCodeHash?}`. */
  AUTH: 2,
  /** relay → server: `{publicUrl, now, limits}` once the key is proven. */
  READY: 3,
  /** relay → server: a request head (lines). */
  REQ: 4,
  /** server → relay: an answer head (lines). */
  RES: 5,
  /** either way: body bytes of the stream. */
  DATA: 6,
  /** either way: `{code, status, message}`: the stream failed (alone). */
  RESET: 7,
  /** server → relay: `{pairCodeHash}` (null clears) whenever the pairing code changes. */
  PAIR: 8,
  /** server → relay: it is stopping: send nothing new (the relay answers 503 SERVER_OFFLINE); answers in flight still come. */
  GOAWAY: 9,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export const END = 1;
/** REQ/RES only: the payload is `uint32 headLength, head, body bytes` (always sent with END). */
export const INLINE = 2;
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
  const type = bytes[0] as FrameType;
  const stream = uint32At(bytes, 1);
  if (type < FrameType.HELLO || type > FrameType.GOAWAY)
    throw new FrameError(`unknown frame type ${type}`, stream);
  const flags = bytes[5] as number;
  if (flags & ~(END | INLINE)) throw new FrameError(`unknown frame flags ${flags}`, stream);
  if (flags & INLINE && (!(flags & END) || (type !== FrameType.REQ && type !== FrameType.RES)))
    throw new FrameError('INLINE is for a whole request or answer head (REQ or RES, with END)', stream);
  return { type, stream, flags, payload: bytes.subarray(HEADER) };
}

/**
 * A REQ or RES frame carrying `head` and, when it fits in one frame, the whole `body` (INLINE);
 * null when the body must follow in DATA frames. Throws FrameError when the head has no line form.
 */
export function encodeInline(
  type: FrameType,
  stream: number,
  head: RequestHead | AnswerHead,
  body: Uint8Array,
): Uint8Array | null {
  if (body.byteLength > WIRE_LIMITS.maxChunkBytes) return null;
  const text = headLines(type, head, stream);
  const flags = END | INLINE;
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
  const bytes = enc.encode(text);
  const size = HEADER + 4 + bytes.byteLength + body.byteLength;
  if (size > WIRE_LIMITS.maxFrameBytes) return null;
  const out = new Uint8Array(size);
  putHeader(out, type, stream >>> 0, flags);
  putUint32(out, HEADER, bytes.byteLength);
  out.set(bytes, HEADER + 4);
  out.set(body, HEADER + 4 + bytes.byteLength);
  return out;
}

/**
 * A REQ or RES head frame (its body, if any, follows in DATA frames). Throws FrameError when the
 * head has no line form.
 */
export function encodeHead(
  type: FrameType,
  stream: number,
  flags: number,
  head: RequestHead | AnswerHead,
): Uint8Array {
  const text = headLines(type, head, stream);
  const room = poolRoom(HEADER + text.length * 3);
  if (room) {
    const { written } = enc.encodeInto(text, room.subarray(HEADER));
    putHeader(room, type, stream >>> 0, flags);
    return commit(room, HEADER + written);
  }
  return withHeader(type, stream, flags, enc.encode(text));
}

/** True when `s` can be one line of a head. */
const oneLine = (s: unknown): s is string => typeof s === 'string' && s.indexOf('\n') === -1;

/**
 * `head` as its lines: a request head for REQ (http or pair), an answer head for RES. Throws
 * FrameError (for `stream`) when it is neither or a part holds a `\n`.
 */
export function headLines(type: FrameType, head: RequestHead | AnswerHead, stream = 0): string {
  const h = head as Partial<RequestHead & AnswerHead>;
  let text: string;
  if (type === FrameType.REQ && h.kind === 'pair') {
    if (!oneLine(h.code) || !Number.isFinite(h.ttlMs))
      throw new FrameError('a pairing head without a line form', stream);
    return `pair\n${h.code}\n${h.ttlMs}`;
  }
  if (type === FrameType.REQ && h.kind === 'http') {
    if (!oneLine(h.method) || !oneLine(h.path) || !Number.isFinite(h.ttlMs))
      throw new FrameError('a request head without a line form', stream);
    text = `http\n${h.method}\n${h.path}\n${h.ttlMs}`;
  } else if (type === FrameType.RES && Number.isInteger(h.status)) {
    text = String(h.status);
  } else throw new FrameError('not a request or answer head', stream);
  const headers = h.headers ?? [];
  if (!Array.isArray(headers)) throw new FrameError('head headers are not a list', stream);
  for (let i = 0; i < headers.length; i++) {
    const pair = headers[i] as [unknown, unknown];
    const k = pair[0];
    const v = pair[1];
    if (!oneLine(k) || !oneLine(v)) throw new FrameError('a header without a line form', stream);
    text += `\n${k}\n${v}`;
  }
  return text;
}

/** The big-endian uint32 at `at` (read by hand: no DataView made per frame). */
function uint32At(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function putUint32(out: Uint8Array, at: number, n: number): void {
  out[at] = n >>> 24;
  out[at + 1] = (n >>> 16) & 0xff;
  out[at + 2] = (n >>> 8) & 0xff;
  out[at + 3] = n & 0xff;
}

/** The head part of a REQ or RES frame's payload (the head of an INLINE frame); throws FrameError for its stream. */
function headPart(frame: Frame): Uint8Array {
  if (!(frame.flags & INLINE)) return frame.payload;
  const p = frame.payload;
  if (p.byteLength < 4) throw new FrameError('inline frame shorter than its head length', frame.stream);
  const len = uint32At(p, 0);
  if (len > p.byteLength - 4) throw new FrameError('inline head longer than its frame', frame.stream);
  return p.subarray(4, 4 + len);
}

/** The body bytes of an INLINE frame (a view: copy it to keep it); null for other frames. */
export function inlineBody(frame: Frame): Uint8Array | null {
  if (!(frame.flags & INLINE)) return null;
  return frame.payload.subarray(4 + headPart(frame).byteLength);
}

/** The JSON payload of a connection or RESET frame; throws FrameError (for its stream) when it is not JSON. */
export function frameJson<T>(frame: Frame): T {
  try {
    return JSON.parse(dec.decode(frame.payload)) as T;
  } catch {
    throw new FrameError('frame payload is not JSON', frame.stream);
  }
}

/** The head of a REQ or RES frame; throws FrameError (for its stream) when it does not decode. */
export function frameHead<T extends RequestHead | AnswerHead>(frame: Frame): T {
  let parts: string[];
  try {
    parts = dec.decode(headPart(frame)).split('\n');
  } catch {
    throw new FrameError('frame head is not UTF-8', frame.stream);
  }
  if (frame.type === FrameType.REQ && parts[0] === 'pair') {
    if (parts.length !== 3) throw new FrameError('pairing head with a missing line', frame.stream);
    const head: RequestHead = { kind: 'pair', code: parts[1] as string, ttlMs: Number(parts[2]) };
    return head as T;
  }
  // A request: kind, method, path, ttlMs; an answer: status; then name and value pairs.
  const at = frame.type === FrameType.REQ ? 4 : 1;
  if (parts.length < at || (parts.length - at) % 2 !== 0)
    throw new FrameError('head with a missing line', frame.stream);
  const headers: [string, string][] = [];
  for (let i = at; i < parts.length; i += 2) headers.push([parts[i] as string, parts[i + 1] as string]);
  if (frame.type === FrameType.REQ) {
    if (parts[0] !== 'http') throw new FrameError('head of an unknown request kind', frame.stream);
    const head: RequestHead = {
      kind: 'http',
      method: parts[1] as string,
      path: parts[2] as string,
      headers,
      ttlMs: Number(parts[3]),
    };
    return head as T;
  }
  if (frame.type !== FrameType.RES) throw new FrameError('not a head frame', frame.stream);
  const status = Number(parts[0]);
  if (!Number.isInteger(status) || status < 200 || status > 599)
    throw new FrameError('answer head with a status outside 200-599', frame.stream);
  const head: AnswerHead = { status, headers };
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

/** An answer head as RES carries it (a pairing answer too: `pairAnswerHead`). */
export interface AnswerHead {
  status: number;
  headers: [string, string][];
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

/** The header of a pairing answer that carries the minted key. */
const API_KEY = 'api-key';

/** The answer to a pairing request: 200 with the minted key, or 401 when the code is refused. */
export function pairAnswerHead(apiKey: string | null): AnswerHead {
  return apiKey ? { status: 200, headers: [[API_KEY, apiKey]] } : { status: 401, headers: [] };
}

/** The key a pairing answer carries (`pairAnswerHead`); null when it refused the code. */
export function pairAnswerKey(head: AnswerHead): string | null {
  if (head.status !== 200) return null;
  const found = head.headers.find(([k]) => k === API_KEY);
  return found?.[1] || null;
}

/** RESET's payload: the error `code` the stream failed with and the HTTP status its client gets. */
export interface ResetBody {
  code: ErrorCode;
  status: number;
  message: string;
}

/** A RESET frame for `stream`. */
export function encodeReset(stream: number, body: ResetBody): Uint8Array {
  return encodeFrame(FrameType.RESET, stream, END, body);
}

const CODE = /^[A-Z][A-Z_]{0,63}$/;

/**
 * Reads a RESET: its code, status and message. `statusOf` names the known codes (the HTTP kit's
 * one table). Throws FrameError (for its stream) when it is not JSON, its code is not a known
 * one, or its status is not 400-599: the stream then fails as an undecodable answer.
 */
export function decodeReset(frame: Frame, statusOf: (code: string) => number | undefined): ResetBody {
  const r = frameJson<{ code?: unknown; status?: unknown; message?: unknown } | null>(frame) ?? {};
  if (typeof r.code !== 'string' || !CODE.test(r.code) || statusOf(r.code) === undefined)
    throw new FrameError('RESET without a known error code', frame.stream);
  const status = r.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)
    throw new FrameError('RESET without a status of 400-599', frame.stream);
  return {
    code: r.code as ErrorCode,
    status,
    message: typeof r.message === 'string' ? r.message : 'the server could not answer',
  };
}
