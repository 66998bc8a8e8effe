import type { HistoryStore } from '../../core/ports.ts';
import type { R2BucketLike, R2ObjectLike } from './r2-note-store.ts';

/** The R2 bucket calls this store makes: the note store's, plus a ranged get. */
export type R2HistoryBucket = Omit<R2BucketLike, 'get'> & {
  get(
    key: string,
    options?: { range?: { offset: number; length: number } },
  ): Promise<(R2ObjectLike & { arrayBuffer(): Promise<ArrayBuffer> }) | null>;
};

/** Offsets and sequence numbers are zero-padded, so R2's key order is their numeric order. */
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const OFFSET_WIDTH = 16;
const SEQ_WIDTH = 12;
/** Pieces of a replace() are gathered into objects of about this size (fewer PUTs). */
const REPLACE_SEGMENT_BYTES = 4 * 1024 * 1024;
/** Past this many journal objects, reading the journal folds them into one (fewer GETs next start). */
const FOLD_AFTER = 32;
/** GETs in flight at once when reading the journal. */
const READ_CONCURRENCY = 8;
const emptyGeneration = (name: string): Generation => ({
  name,
  segments: [],
  packSize: 0,
  nextSeq: 0,
  journal: new Map(),
  base: null,
});

interface Segment {
  start: number;
  size: number;
}

interface Generation {
  name: string;
  /** Pack segments sorted by start (each `<gen>/pack/<start>`). */
  segments: Segment[];
  /** Running pack length: where the next blob starts. */
  packSize: number;
  nextSeq: number;
  /** Journal objects (`<gen>/journal/<seq>`) by sequence number: their sizes. */
  journal: Map<number, number>;
  /** The folded journal (`<gen>/jbase/<seq>`): every line of the sequence numbers up to `seq`. */
  base: { seq: number; size: number } | null;
}

/** Index of the last segment starting at or before `offset` (-1: none). */
function segmentAt(segments: Segment[], offset: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.start <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** `parts` as one array. */
function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * The generation `name` as a listing of the bucket shows it, and the keys to delete: objects of
 * other generations, unknown ones, and what the newest fold of the journal covers.
 */
function generationFromListing(
  prefix: string,
  name: string,
  objects: R2ObjectLike[],
  journalKey: (gen: string, seq: number) => string,
): { gen: Generation; stale: string[] } {
  const gen = emptyGeneration(name);
  const stale: string[] = [];
  const bases: { seq: number; size: number; key: string }[] = [];
  for (const o of objects) {
    const rest = o.key.slice(prefix.length);
    if (rest === 'current') continue;
    const [g, kind, n] = rest.split('/');
    const num = Number(n);
    if (g !== name || !Number.isSafeInteger(num)) {
      stale.push(o.key);
    } else if (kind === 'pack') {
      gen.segments.push({ start: num, size: o.size });
      gen.packSize = Math.max(gen.packSize, num + o.size);
    } else if (kind === 'journal') {
      gen.journal.set(num, o.size);
    } else if (kind === 'jbase') {
      bases.push({ seq: num, size: o.size, key: o.key });
    } else {
      stale.push(o.key);
    }
  }
  gen.segments.sort((a, b) => a.start - b.start);
  // The newest fold holds every line up to its number: older folds and the objects it covers go
  // (left behind by a stop between writing the fold and deleting what it replaces).
  bases.sort((a, b) => a.seq - b.seq);
  const base = bases.pop();
  for (const b of bases) stale.push(b.key);
  if (base) {
    gen.base = { seq: base.seq, size: base.size };
    for (const seq of [...gen.journal.keys()]) {
      if (seq <= base.seq) {
        gen.journal.delete(seq);
        stale.push(journalKey(name, seq));
      }
    }
  }
  gen.nextSeq = Math.max(base ? base.seq + 1 : 0, ...[...gen.journal.keys()].map((n) => n + 1));
  return { gen, stale };
}

interface R2HistoryOptions {
  bucket: R2HistoryBucket;
  /** Keys start with it (default `history/`). */
  prefix?: string;
  /** Objects per list call (R2's maximum, 1,000, by default). */
  listPageSize?: number;
}

/**
 * The history in an R2 bucket (Cloudflare Workers). R2 has no append, so the pack is a series of
 * objects `<prefix><gen>/pack/<start offset>` (one PUT per appendBlob; the offset is the running
 * pack length) and the journal a series `<prefix><gen>/journal/<seq>` (one PUT per appendJournal),
 * read back in order; reading it (once, at start) folds more than 32 of them into one object
 * `<gen>/jbase/<last seq>`, so a start reads few objects however many writes came before. A PUT is durable when it resolves, so `syncBlobs` has nothing to do.
 * `replace` writes a new generation (pack pieces gathered into ~4 MiB objects, then the journal as
 * one object), then the small pointer `<prefix>current` naming it, then deletes the old one: a
 * crash before the pointer leaves the old pair, after it the new one; objects of any generation the
 * pointer does not name (a crash mid-replace) are deleted at first use. The segment list is kept
 * in memory, loaded by one listing (pages of 1,000) at first use. One writer at a time: the
 * Worker serializes writes through one Durable Object.
 */
export function r2HistoryStore(opts: R2HistoryOptions): HistoryStore {
  return new R2History(opts);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The store's state: the generation in use (loaded once) and the journal appends in flight. */
class R2History implements HistoryStore {
  private readonly bucket: R2HistoryBucket;
  private readonly prefix: string;
  private readonly pointerKey: string;
  private loading: Promise<Generation> | null = null;
  private appending = 0;

  constructor(private readonly opts: R2HistoryOptions) {
    this.bucket = opts.bucket;
    this.prefix = opts.prefix ?? 'history/';
    this.pointerKey = `${this.prefix}current`;
  }

  private async listAll(under: string): Promise<R2ObjectLike[]> {
    const out: R2ObjectLike[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.bucket.list({ prefix: under, cursor, limit: this.opts.listPageSize });
      out.push(...page.objects);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out;
  }

  private async deleteAll(keys: string[]): Promise<void> {
    // R2 deletes up to 1,000 keys per call.
    for (let i = 0; i < keys.length; i += 1000) await this.bucket.delete(keys.slice(i, i + 1000));
  }

  private packKey(gen: string, start: number): string {
    return `${this.prefix}${gen}/pack/${pad(start, OFFSET_WIDTH)}`;
  }
  private journalKey = (gen: string, seq: number): string =>
    `${this.prefix}${gen}/journal/${pad(seq, SEQ_WIDTH)}`;
  private baseKey(gen: string, seq: number): string {
    return `${this.prefix}${gen}/jbase/${pad(seq, SEQ_WIDTH)}`;
  }

  private async getText(key: string): Promise<string> {
    const o = await this.bucket.get(key);
    return o ? decoder.decode(await o.arrayBuffer()) : '';
  }

  private async load(): Promise<Generation> {
    const pointer = await this.bucket.get(this.pointerKey);
    const name = pointer ? decoder.decode(await pointer.arrayBuffer()).trim() : '0';
    const { gen, stale } = generationFromListing(
      this.prefix,
      name,
      await this.listAll(this.prefix),
      this.journalKey,
    );
    await this.deleteAll(stale);
    return gen;
  }

  private current(): Promise<Generation> {
    this.loading ??= this.load().catch((err) => {
      this.loading = null; // the next call tries again
      throw err;
    });
    return this.loading;
  }

  async appendBlob(bytes: Uint8Array): Promise<number> {
    const gen = await this.current();
    const at = gen.packSize;
    // Nothing to keep (and its key would be the next blob's).
    if (bytes.length === 0) return at;
    gen.packSize += bytes.length;
    // A copy: the caller may reuse its buffer once this resolves.
    await this.bucket.put(this.packKey(gen.name, at), bytes.slice());
    // Listed only once durable: a failed PUT leaves a hole that reads answer null for.
    const i = segmentAt(gen.segments, at);
    gen.segments.splice(i + 1, 0, { start: at, size: bytes.length });
    return at;
  }

  async readBlob(offset: number, length: number): Promise<Uint8Array | null> {
    const gen = await this.current();
    if (offset < 0 || length < 0 || offset + length > gen.packSize) return null;
    const out = new Uint8Array(length);
    let i = segmentAt(gen.segments, offset);
    let pos = offset;
    while (pos < offset + length) {
      const seg = gen.segments[i];
      if (!seg || seg.start > pos || seg.start + seg.size <= pos) return null; // a hole
      const from = pos - seg.start;
      const take = Math.min(seg.size - from, offset + length - pos);
      const whole = from === 0 && take === seg.size;
      const o = await this.bucket.get(
        this.packKey(gen.name, seg.start),
        whole ? undefined : { range: { offset: from, length: take } },
      );
      if (!o) return null;
      const got = new Uint8Array(await o.arrayBuffer());
      if (got.length !== take) return null;
      out.set(got, pos - offset);
      pos += take;
      i++;
    }
    return out;
  }

  async appendJournal(text: string): Promise<void> {
    const gen = await this.current();
    const bytes = encoder.encode(text);
    const seq = gen.nextSeq++;
    this.appending++;
    try {
      await this.bucket.put(this.journalKey(gen.name, seq), bytes);
      gen.journal.set(seq, bytes.length);
    } finally {
      this.appending--;
    }
  }

  async readJournal(): Promise<string> {
    const gen = await this.current();
    const base = gen.base;
    const seqs = [...gen.journal.keys()].sort((x, y) => x - y);
    const parts: string[] = new Array(seqs.length);
    for (let i = 0; i < seqs.length; i += READ_CONCURRENCY) {
      const batch = seqs.slice(i, i + READ_CONCURRENCY);
      const texts = await Promise.all(batch.map((seq) => this.getText(this.journalKey(gen.name, seq))));
      texts.forEach((t, j) => {
        parts[i + j] = t;
      });
    }
    const text = (base ? await this.getText(this.baseKey(gen.name, base.seq)) : '') + parts.join('');
    // Not while an append is in flight: its number may be below the fold's and would be lost.
    if (seqs.length > FOLD_AFTER && this.appending === 0 && gen === (await this.current())) {
      await this.fold(gen, seqs, text);
    }
    return text;
  }

  /**
   * One object with every line so far, then the ones it replaces go. A stop between the two
   * leaves both; the next start keeps the fold and deletes the rest.
   */
  private async fold(gen: Generation, seqs: number[], text: string): Promise<void> {
    const base = gen.base;
    const last = seqs[seqs.length - 1]!;
    const bytes = encoder.encode(text);
    await this.bucket.put(this.baseKey(gen.name, last), bytes);
    gen.base = { seq: last, size: bytes.length };
    for (const seq of seqs) gen.journal.delete(seq);
    await this.deleteAll([
      ...(base ? [this.baseKey(gen.name, base.seq)] : []),
      ...seqs.map((seq) => this.journalKey(gen.name, seq)),
    ]);
  }

  async replace(pieces: AsyncIterable<Uint8Array>, journal: () => string): Promise<void> {
    const old = await this.current();
    const name = String((Number(old.name) || 0) + 1);
    const next = emptyGeneration(name);
    // Leftovers of an earlier attempt that failed midway (this process kept running) go first.
    await this.deleteAll((await this.listAll(`${this.prefix}${name}/`)).map((o) => o.key));
    let buffered: Uint8Array[] = [];
    let bufferedBytes = 0;
    const flush = async () => {
      if (bufferedBytes === 0) return;
      const seg = concat(buffered, bufferedBytes);
      await this.bucket.put(this.packKey(name, next.packSize), seg);
      next.segments.push({ start: next.packSize, size: seg.length });
      next.packSize += seg.length;
      buffered = [];
      bufferedBytes = 0;
    };
    for await (const p of pieces) {
      buffered.push(p.slice());
      bufferedBytes += p.length;
      if (bufferedBytes >= REPLACE_SEGMENT_BYTES) await flush();
    }
    await flush();
    const text = encoder.encode(journal());
    if (text.length > 0) {
      await this.bucket.put(this.journalKey(name, 0), text);
      next.nextSeq = 1;
      next.journal.set(0, text.length);
    }
    // The switch: before this PUT a restart finds the old pair, after it the new one.
    await this.bucket.put(this.pointerKey, encoder.encode(name));
    this.loading = Promise.resolve(next);
    await this.deleteAll((await this.listAll(`${this.prefix}${old.name}/`)).map((o) => o.key));
  }

  async size(): Promise<number> {
    const gen = await this.current();
    let journalBytes = gen.base?.size ?? 0;
    for (const n of gen.journal.values()) journalBytes += n;
    return gen.segments.reduce((n, s) => n + s.size, 0) + journalBytes;
  }
}
