import type { NoteSummary } from '../../../core/notes/note-index.ts';
import type { DeflatedPart } from './gzip-parts.ts';

/**
 * The list's content-defined chunks: where a chunk ends depends on the paths only, so a write
 * touches one chunk (and a fresh build makes the same cuts as a rebuild after writes: tested).
 */

/** A chunk ends after a note whose path hashes to 0 modulo this (about 32 notes a chunk). */
const SPREAD = 32;
const MAX_CHUNK = 512;
/** Deflate's window: a chunk is compressed with this much of the previous chunk as history. */
const WINDOW = 32 * 1024;
export const EMPTY: Uint8Array = new Uint8Array(0);
const encoder = new TextEncoder();
/** Where a chunk is encoded before it is copied at its size (`cut`; grows to the largest chunk). */
let scratch = new Uint8Array(0);

export interface Chunk {
  items: readonly NoteSummary[];
  first: boolean;
  /** The chunk ends where a fresh build would end it whatever follows (a boundary or MAX_CHUNK). */
  closed: boolean;
  json: Uint8Array;
  /** Where each item's JSON starts in `json` (after its comma), and the end: a kept summary's bytes are copied from here. */
  offsets: Uint32Array;
  part?: DeflatedPart;
  /** The bytes that primed the compressor when `part` was made (the end of the chunk before). */
  primed?: Uint8Array;
  /** The chunk before this one when `part` was made (when it still is, `primed` is still right). */
  after?: Chunk | null;
  /** `part` was made at FAST_LEVEL (a write's redo), to be polished at LEVEL when writes pause. */
  fast?: boolean;
  /** The SHA-256 (first 16 bytes, hex) of `json`: the name of the chunk in the persisted list. */
  sha?: Promise<string>;
}

/** FNV-1a of a path: chunk boundaries depend on paths only, so a write touches one chunk. */
const isBoundary = (path: string): boolean => {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SPREAD === 0;
};

/** The end of `ch` that primes the compressor of the chunk after it. */
export const tailOf = (ch: Chunk | null): Uint8Array =>
  ch ? ch.json.subarray(Math.max(0, ch.json.length - WINDOW)) : EMPTY;

export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * Cuts summaries into chunks and remembers, per summary object (the index makes a new one when a
 * note, its links or its backlinks change), the chunk whose bytes hold its JSON: a write serializes
 * only the summaries it changed; the others' bytes are copied from the chunk they were in (no
 * second copy of the list as strings).
 */
export class ChunkCutter {
  private readonly owner = new WeakMap<NoteSummary, Chunk>();
  /** Chunks cut and summaries serialized since creation (for tests). */
  readonly counts = { serialized: 0, summaries: 0 };

  /** A kept summary's bytes in the chunk that holds them, or its JSON to encode. */
  private jsonOf(s: NoteSummary): Uint8Array | string {
    const ch = this.owner.get(s);
    if (ch) {
      const k = ch.items.indexOf(s);
      if (k >= 0) return ch.json.subarray(ch.offsets[k]!, ch.offsets[k + 1]! - 1);
    }
    this.counts.summaries++;
    return JSON.stringify(s);
  }

  /** A new chunk from `items[start]` to the next boundary, as a fresh build cuts it. */
  cut(items: readonly NoteSummary[], start: number): Chunk {
    let end = start;
    let closed = false;
    for (; end < items.length; end++) {
      if (end + 1 - start >= MAX_CHUNK || isBoundary(items[end]!.path)) {
        closed = true;
        break;
      }
    }
    if (!closed) end = items.length - 1;
    const slice = items.slice(start, end + 1);
    const first = start === 0;
    this.counts.serialized++;
    // Encoded straight into one scratch buffer, then copied once at its size: a Uint8Array per
    // summary (10,000 small allocations freed at once at 10,000 notes) left the heap and malloc
    // larger after a cold start's first list.
    const parts = slice.map((s) => this.jsonOf(s));
    let most = 1;
    for (const p of parts) most += (typeof p === 'string' ? p.length * 3 : p.length) + 1;
    if (scratch.length < most) scratch = new Uint8Array(Math.max(most, scratch.length * 2));
    const buf = scratch;
    const offsets = new Uint32Array(parts.length + 1);
    let at = 0;
    if (!first) buf[at++] = 0x2c;
    parts.forEach((p, k) => {
      if (k > 0) buf[at++] = 0x2c;
      offsets[k] = at;
      if (typeof p !== 'string') {
        buf.set(p, at);
        at += p.length;
      } else at += encoder.encodeInto(p, buf.subarray(at)).written;
    });
    offsets[parts.length] = at + 1;
    const json = buf.slice(0, at);
    const ch: Chunk = { items: slice, first, closed, json, offsets };
    for (const s of slice) this.owner.set(s, ch);
    return ch;
  }

  /**
   * Chunks for `items`: an old chunk of `chunks` is kept when the same summary objects start at the
   * same place (the index hands out the same object until the note, its links or backlinks
   * change); only the rest is cut and serialized anew, with the same cuts a fresh build makes.
   */
  *next(chunks: readonly Chunk[], items: readonly NoteSummary[]): Generator<Chunk> {
    const byFirst = new Map<NoteSummary, Chunk>();
    for (const ch of chunks) byFirst.set(ch.items[0]!, ch);
    let at = 0;
    while (at < items.length) {
      const old = byFirst.get(items[at]!);
      let keep =
        old !== undefined &&
        old.first === (at === 0) &&
        at + old.items.length <= items.length &&
        (old.closed || at + old.items.length === items.length);
      for (let k = 0; keep && k < old!.items.length; k++) keep = old!.items[k] === items[at + k];
      const ch = keep ? old! : this.cut(items, at);
      yield ch;
      at += ch.items.length;
    }
  }
}
