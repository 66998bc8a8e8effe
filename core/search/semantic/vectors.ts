/**
 * Compact vectors: each embedding normalized to unit length and quantized to int8 with one scale
 * (4 + dims bytes instead of 8 x dims as JS numbers). Cosine similarity against a float query is
 * then one integer-by-float dot product times the scale.
 */
import { fromBase64, toBase64 } from '../../crypto.ts';

/** One stored vector: int8 components and the factor that turns them back into a unit vector. */
export interface QVector {
  q: Int8Array;
  scale: number;
}

/** `v` scaled to unit length (a zero vector stays zero). */
export function normalize(v: readonly number[]): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/** Normalizes and quantizes `v` to int8. */
export function quantize(v: readonly number[]): QVector {
  const u = normalize(v);
  let max = 0;
  for (const x of u) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? max / 127 : 0;
  const q = new Int8Array(u.length);
  if (scale > 0) for (let i = 0; i < u.length; i++) q[i] = Math.round(u[i]! / scale);
  return { q, scale };
}

/** Cosine similarity of a stored vector and a unit-length query (0 when the lengths differ). */
export function cosine(a: QVector, query: Float32Array): number {
  if (a.q.length !== query.length) return 0;
  let s = 0;
  for (let i = 0; i < query.length; i++) s += a.q[i]! * query[i]!;
  return s * a.scale;
}

/** The vector back as floats (for averaging a note's passages). */
export function dequantize(a: QVector): Float32Array {
  const out = new Float32Array(a.q.length);
  for (let i = 0; i < a.q.length; i++) out[i] = a.q[i]! * a.scale;
  return out;
}

/** `[scale as float32][int8 components]` as base64, for the state file. */
export function encodeVector(a: QVector): string {
  const bytes = new Uint8Array(4 + a.q.length);
  new DataView(bytes.buffer).setFloat32(0, a.scale, true);
  bytes.set(new Uint8Array(a.q.buffer, a.q.byteOffset, a.q.length), 4);
  return toBase64(bytes);
}

/** The inverse of `encodeVector`; null for text that is not one. */
export function decodeVector(s: string): QVector | null {
  try {
    const bytes = fromBase64(s);
    if (bytes.length < 5) return null;
    const scale = new DataView(bytes.buffer, bytes.byteOffset, bytes.length).getFloat32(0, true);
    if (!Number.isFinite(scale)) return null;
    return { scale, q: new Int8Array(bytes.slice(4).buffer) };
  } catch {
    return null;
  }
}
