/** Web Crypto helpers; available on every runtime the core supports. */

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += HEX[b];
  return out;
}

/** SHA-256 of `data` as lowercase hex. */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return toHex(new Uint8Array(digest));
}

/** The runtime's own synchronous hashing (node:crypto, reached without importing it), where it has it. */
const syncCrypto = (
  globalThis as {
    process?: { getBuiltinModule?: (id: string) => unknown };
  }
).process?.getBuiltinModule?.('node:crypto') as
  | { createHash?: (alg: string) => { update(b: Uint8Array): { digest(enc: 'hex'): string } } }
  | undefined;
/**
 * A SHA-256 fed piece by piece: the runtime's own incremental hash where it has one (no copy of
 * the whole input is ever made; a piece may be reused once `update` returns), else the pieces
 * copied and joined once for `crypto.subtle`.
 */
export function sha256Pieces(): { update(piece: string | Uint8Array): void; digest(): Promise<string> } {
  const h = syncCrypto?.createHash?.('sha256') as
    | { update(b: Uint8Array | string): unknown; digest(enc: 'hex'): string }
    | undefined;
  if (h) return { update: (piece) => void h.update(piece), digest: async () => h.digest('hex') };
  const pieces: Uint8Array[] = [];
  const encoder = new TextEncoder();
  return {
    update: (piece) => void pieces.push(typeof piece === 'string' ? encoder.encode(piece) : piece.slice()),
    digest: () => {
      let size = 0;
      for (const p of pieces) size += p.length;
      const all = new Uint8Array(size);
      let at = 0;
      for (const p of pieces) {
        all.set(p, at);
        at += p.length;
      }
      return sha256Hex(all);
    },
  };
}

/** Bytes hashed synchronously at most (a larger input goes to `crypto.subtle`, off the event loop). */
const SYNC_HASH_MAX = 64 * 1024;

/**
 * SHA-256 of `bytes` as lowercase hex, computed at once where the runtime hashes synchronously and
 * the input is small (about 5 µs for a 4 kB note, where a `crypto.subtle` digest costs a promise
 * and a thread-pool trip); null otherwise (use `sha256Hex`). The same digest either way.
 */
export function sha256HexNow(bytes: Uint8Array): string | null {
  if (bytes.length > SYNC_HASH_MAX || typeof syncCrypto?.createHash !== 'function') return null;
  return syncCrypto.createHash('sha256').update(bytes).digest('hex');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The ASCII code of each base64 digit. */
const DIGIT = Uint8Array.from(B64, (ch) => ch.charCodeAt(0));
/** Each ASCII code's base64 value; -1 outside the alphabet. */
const VALUE = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) VALUE[DIGIT[i] as number] = i;
const EQ = 61; // '='
const ascii = new TextDecoder();
const asciiBytes = new TextEncoder();

/** The platform's own base64 (`Uint8Array.prototype.toBase64`, `Uint8Array.fromBase64`) where it has it. */
const native = Uint8Array as unknown as {
  fromBase64?: (text: string) => Uint8Array;
  prototype: { toBase64?: () => string };
};
const nativeTo = typeof native.prototype.toBase64 === 'function';
const nativeFrom = typeof native.fromBase64 === 'function';

/** A string that is not base64 (a peer's bad body, say): a clear error, never a crash. */
export class Base64Error extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'Base64Error';
  }
}

/**
 * Standard base64 of `bytes`, padded. Web-standard: the platform's `toBase64` where there is
 * one, else a table-based encoder writing ASCII into bytes (decoded once by TextDecoder), several
 * times faster than `btoa` over a binary string (bench/results/2026-11-26-relay.md).
 */
export function toBase64(bytes: Uint8Array): string {
  if (nativeTo) return (bytes as unknown as { toBase64(): string }).toBase64();
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  let j = 0;
  let i = 0;
  for (const whole = n - (n % 3); i < whole; i += 3) {
    const v = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out[j] = DIGIT[v >>> 18] as number;
    out[j + 1] = DIGIT[(v >>> 12) & 63] as number;
    out[j + 2] = DIGIT[(v >>> 6) & 63] as number;
    out[j + 3] = DIGIT[v & 63] as number;
    j += 4;
  }
  if (i < n) {
    const b1 = i + 1 < n ? (bytes[i + 1] as number) : 0;
    const v = ((bytes[i] as number) << 16) | (b1 << 8);
    out[j] = DIGIT[v >>> 18] as number;
    out[j + 1] = DIGIT[(v >>> 12) & 63] as number;
    out[j + 2] = i + 1 < n ? (DIGIT[(v >>> 6) & 63] as number) : EQ;
    out[j + 3] = EQ;
  }
  return ascii.decode(out);
}

/**
 * Bytes of standard base64 `text` (padded, or without its padding). Throws Base64Error on
 * anything else: a character outside the alphabet, padding in the middle, a length no base64
 * has. Web-standard: the platform's `Uint8Array.fromBase64` where there is one, else a
 * table-based decoder.
 */
export function fromBase64(text: string): Uint8Array {
  if (nativeFrom) {
    try {
      return (native.fromBase64 as (t: string) => Uint8Array)(text);
    } catch {
      throw new Base64Error('not base64: a character outside the alphabet, or a length no base64 has');
    }
  }
  const src = asciiBytes.encode(text);
  let end = src.length;
  if (end > 0 && src[end - 1] === EQ) {
    end -= 1;
    if (end > 0 && src[end - 1] === EQ) end -= 1;
    if (src.length % 4 !== 0) throw new Base64Error('not base64: padding on a length not a multiple of 4');
  }
  const rest = end % 4;
  if (rest === 1) throw new Base64Error('not base64: a length no base64 has');
  const out = new Uint8Array(((end - rest) / 4) * 3 + (rest === 0 ? 0 : rest - 1));
  let j = 0;
  let i = 0;
  let bad = 0;
  for (const whole = end - rest; i < whole; i += 4) {
    const a = VALUE[src[i] as number] as number;
    const b = VALUE[src[i + 1] as number] as number;
    const c = VALUE[src[i + 2] as number] as number;
    const d = VALUE[src[i + 3] as number] as number;
    bad |= a | b | c | d;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[j] = v >>> 16;
    out[j + 1] = (v >>> 8) & 255;
    out[j + 2] = v & 255;
    j += 3;
  }
  if (rest > 0) {
    const a = VALUE[src[i] as number] as number;
    const b = VALUE[src[i + 1] as number] as number;
    const c = rest === 3 ? (VALUE[src[i + 2] as number] as number) : 0;
    bad |= a | b | c;
    const v = (a << 18) | (b << 12) | (c << 6);
    out[j] = v >>> 16;
    if (rest === 3) out[j + 1] = (v >>> 8) & 255;
  }
  // A value of -1 (outside the alphabet, '=' in the middle, a non-ASCII character) sets the sign bit.
  if (bad < 0) throw new Base64Error('not base64: a character outside the alphabet');
  return out;
}

/** Base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Compares two strings in time that depends only on their lengths, not their contents. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** A source of random bytes; injected so tests can be deterministic. */
export type RandomBytes = (n: number) => Uint8Array;

/** Random bytes from the platform's CSPRNG. */
export const secureRandom: RandomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));
