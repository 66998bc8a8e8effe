import { crc32, type DeflatedPart } from './gzip-parts.ts';
import type { Crc32 } from './persisted-list.ts';

type Zlib = typeof import('node:zlib');

/**
 * Deflate level of a first build (on the thread pool, or in place) and of the polish; a chunk redone
 * after a write uses FAST_LEVEL until the polish. Measured on the 10,000-note vault (whole list,
 * one stream): level 2 18.5%, 4 16.6%, 6 15.0%, 9 14.7% of raw at 1x / 2.1x / 3.3x / 6.2x the CPU
 * of level 2 (bench/results/2026-11-27-list.md): 9 costs twice 6's CPU for 0.3 points.
 */
export const LEVEL = 6;
export const FAST_LEVEL = 2;
/** Chunks deflated on the thread pool at once (libuv's default pool has 4 threads). */
const DEFLATING = 4;
const EMPTY: Uint8Array = new Uint8Array(0);

/** The CRC-32 of `bytes`: zlib's where the runtime has it. */
export const crcOf = (z: Zlib, bytes: Uint8Array) =>
  typeof z.crc32 === 'function' ? z.crc32(bytes) : crc32(bytes);
/** The CRC-32 function the persisted list checks with. */
export const crcFn = (z: Zlib): Crc32 =>
  typeof z.crc32 === 'function' ? (b, v) => z.crc32(b, v ?? 0) : (b, v) => crc32(b, v ?? 0);

/**
 * Raw deflate of a list's parts, in place or on the thread pool. A chunk's compressor is primed
 * with the end of the chunk before it (the bytes that precede it in the answer), so back-references
 * reach across chunks as in one stream; the last part is finished, the others sync-flushed.
 */
export class Deflater {
  /** Chunks deflated since creation (for tests). */
  deflated = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  // memLevel 9 (a larger hash) for the full level; a write's redo at FAST_LEVEL uses 8: its
  // setup per chunk costs less and the redo is polished anyway.
  private static options(z: Zlib, last: boolean, history: Uint8Array, level: number) {
    return {
      level,
      memLevel: level === FAST_LEVEL ? 8 : 9,
      finishFlush: last ? z.constants.Z_FINISH : z.constants.Z_SYNC_FLUSH,
      ...(history.length ? { dictionary: history } : {}),
    };
  }

  /** `bytes` deflated here, on the event loop (a write's few chunks, the list's two ends). */
  deflate(
    z: Zlib,
    bytes: Uint8Array,
    last: boolean,
    history: Uint8Array = EMPTY,
    level = LEVEL,
  ): DeflatedPart {
    this.deflated++;
    return {
      deflated: z.deflateRawSync(bytes, Deflater.options(z, last, history, level)),
      crc: crcOf(z, bytes),
      length: bytes.length,
    };
  }

  /**
   * `deflate` on the thread pool: the event loop only computes the CRC. At most DEFLATING run at
   * once, the rest wait their turn: each compressor holds zlib's state (about 400 KiB at memLevel
   * 9) while it lives, and a whole list at 100,000 notes is about 3,000 chunks.
   */
  async deflateAsync(z: Zlib, bytes: Uint8Array, history: Uint8Array, level: number): Promise<DeflatedPart> {
    if (this.running < DEFLATING) this.running++;
    else await new Promise<void>((go) => this.waiting.push(go));
    this.deflated++;
    return new Promise<DeflatedPart>((resolve, reject) => {
      try {
        z.deflateRaw(bytes, Deflater.options(z, false, history, level), (err, out) => {
          this.release();
          if (err) reject(err);
          else resolve({ deflated: out, crc: crcOf(z, bytes), length: bytes.length });
        });
      } catch (err) {
        this.release();
        reject(err);
      }
    });
  }

  /** Ends a deflate's turn: its slot passes to the next one waiting. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
