/**
 * One gzip member assembled from independently deflated parts, so that a large answer made of
 * many pieces (the note list) is recompressed only where a piece changed.
 *
 * Each middle part is raw deflate ended with a sync flush (byte aligned, not final, and no
 * back-reference crosses into another part); the last part ends the stream. The CRC-32 of the
 * whole is combined from the parts' CRCs (multiplication by x^(8n) modulo the polynomial),
 * so nothing is re-read either.
 */

/** The gzip header: magic, deflate, no flags, no mtime, no extra flags, OS unknown. */
export const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

let table: Uint32Array | null = null;

/** CRC-32 (IEEE) of `bytes`, continuing from `crc`. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const POLY = 0xedb88320;

/** a times b modulo the CRC polynomial (bit-reflected, as CRC-32 computes). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  let bb = b >>> 0;
  const aa = a >>> 0;
  for (;;) {
    if ((aa & m) >>> 0 !== 0) {
      p ^= bb;
      if ((aa & (m - 1)) >>> 0 === 0) break;
    }
    m >>>= 1;
    bb = bb & 1 ? (bb >>> 1) ^ POLY : bb >>> 1;
  }
  return p >>> 0;
}

/** X2N[k] is x^(2^k) modulo the polynomial. */
const X2N = (() => {
  const t = new Uint32Array(32);
  let p = 0x40000000; // x^1
  for (let k = 0; k < 32; k++) {
    t[k] = p;
    p = multModP(p, p);
  }
  return t;
})();

/** x^(n * 2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  let rest = n;
  let kk = k;
  while (rest > 0) {
    if (rest % 2 === 1) p = multModP(X2N[kk & 31]!, p);
    rest = Math.floor(rest / 2);
    kk++;
  }
  return p;
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and B's length (a few hundred operations). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  return (multModP(x2nModP(lengthB, 3), crcA) ^ crcB) >>> 0;
}

/** A deflated part and what the trailer needs of its input. */
export interface DeflatedPart {
  deflated: Uint8Array;
  crc: number;
  length: number;
  /** x^(8 * length) modulo the polynomial, kept once computed: joining again costs one product. */
  shift?: number;
}

/** `head`, then every piece of `middle`, then `tail`, in one new buffer. */
export function joinBytes(
  head: Uint8Array,
  middle: readonly Uint8Array[],
  tail: Uint8Array,
): Uint8Array<ArrayBuffer> {
  let size = head.length + tail.length;
  for (const m of middle) size += m.length;
  const out = new Uint8Array(size);
  out.set(head, 0);
  let at = head.length;
  for (const m of middle) {
    out.set(m, at);
    at += m.length;
  }
  out.set(tail, at);
  return out;
}

/** Joins the gzip header, the parts (the last one ended the deflate stream) and the trailer. */
export function assembleGzip(parts: readonly DeflatedPart[]): Uint8Array<ArrayBuffer> {
  let crc = 0;
  let length = 0;
  for (const p of parts) {
    if (p.length > 0) {
      p.shift ??= x2nModP(p.length, 3);
      crc = (multModP(p.shift, crc) ^ p.crc) >>> 0;
    }
    length += p.length;
  }
  const out = joinBytes(
    GZIP_HEADER,
    parts.map((p) => p.deflated),
    new Uint8Array(8),
  );
  const at = out.length - 8;
  const view = new DataView(out.buffer);
  view.setUint32(at, crc, true);
  view.setUint32(at + 4, length % 0x1_0000_0000, true);
  return out;
}
