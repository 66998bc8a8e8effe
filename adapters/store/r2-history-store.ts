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
export function r2HistoryStore(opts: {
  bucket: R2HistoryBucket;
  /** Keys start with it (default `history/`). */
  prefix?: string;
  /** Objects per list call (R2's maximum, 1,000, by default). */
  listPageSize?: number;
}): HistoryStore {
  const { bucket } = opts;
  const prefix = opts.prefix ?? 'history/';
  const pointerKey = `${prefix}current`;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  const listAll = async (under: string): Promise<R2ObjectLike[]> => {
    const out: R2ObjectLike[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix: under, cursor, limit: opts.listPageSize });
      out.push(...page.objects);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out;
  };
  const deleteAll = async (keys: string[]) => {
    // R2 deletes up to 1,000 keys per call.
    for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
  };

  const packKey = (gen: string, start: number) => `${prefix}${gen}/pack/${pad(start, OFFSET_WIDTH)}`;
  const journalKey = (gen: string, seq: number) => `${prefix}${gen}/journal/${pad(seq, SEQ_WIDTH)}`;
  const baseKey = (gen: string, seq: number) => `${prefix}${gen}/jbase/${pad(seq, SEQ_WIDTH)}`;
  const getText = async (key: string) => {
    const o = await bucket.get(key);
    return o ? decoder.decode(await o.arrayBuffer()) : '';
  };

  const load = async (): Promise<Generation> => {
    const pointer = await bucket.get(pointerKey);
    const name = pointer ? decoder.decode(await pointer.arrayBuffer()).trim() : '0';
    const gen = emptyGeneration(name);
    const stale: string[] = [];
    const bases: { seq: number; size: number; key: string }[] = [];
    for (const o of await listAll(prefix)) {
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
    await deleteAll(stale);
    return gen;
  };
  let loading: Promise<Generation> | null = null;
  let appending = 0;
  const current = () => {
    loading ??= load().catch((err) => {
      loading = null; // the next call tries again
      throw err;
    });
    return loading;
  };

  /** Index of the last segment starting at or before `offset` (-1: none). */
  const segmentAt = (segments: Segment[], offset: number) => {
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
  };

  return {
    async appendBlob(bytes) {
      const gen = await current();
      const at = gen.packSize;
      // Nothing to keep (and its key would be the next blob's).
      if (bytes.length === 0) return at;
      gen.packSize += bytes.length;
      // A copy: the caller may reuse its buffer once this resolves.
      await bucket.put(packKey(gen.name, at), bytes.slice());
      // Listed only once durable: a failed PUT leaves a hole that reads answer null for.
      const i = segmentAt(gen.segments, at);
      gen.segments.splice(i + 1, 0, { start: at, size: bytes.length });
      return at;
    },
    async readBlob(offset, length) {
      const gen = await current();
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
        const o = await bucket.get(
          packKey(gen.name, seg.start),
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
    },
    async appendJournal(text) {
      const gen = await current();
      const bytes = encoder.encode(text);
      const seq = gen.nextSeq++;
      appending++;
      try {
        await bucket.put(journalKey(gen.name, seq), bytes);
        gen.journal.set(seq, bytes.length);
      } finally {
        appending--;
      }
    },
    async readJournal() {
      const gen = await current();
      const base = gen.base;
      const seqs = [...gen.journal.keys()].sort((x, y) => x - y);
      const parts: string[] = new Array(seqs.length);
      for (let i = 0; i < seqs.length; i += READ_CONCURRENCY) {
        const batch = seqs.slice(i, i + READ_CONCURRENCY);
        const texts = await Promise.all(batch.map((seq) => getText(journalKey(gen.name, seq))));
        texts.forEach((t, j) => {
          parts[i + j] = t;
        });
      }
      const text = (base ? await getText(baseKey(gen.name, base.seq)) : '') + parts.join('');
      // Not while an append is in flight: its number may be below the fold's and would be lost.
      if (seqs.length > FOLD_AFTER && appending === 0 && gen === (await current())) {
        // Fold: one object with every line so far, then the ones it replaces go. A stop between
        // the two leaves both; the next start keeps the fold and deletes the rest.
        const last = seqs[seqs.length - 1]!;
        const bytes = encoder.encode(text);
        await bucket.put(baseKey(gen.name, last), bytes);
        gen.base = { seq: last, size: bytes.length };
        for (const seq of seqs) gen.journal.delete(seq);
        await deleteAll([
          ...(base ? [baseKey(gen.name, base.seq)] : []),
          ...seqs.map((seq) => journalKey(gen.name, seq)),
        ]);
      }
      return text;
    },
    async replace(pieces, journal) {
      const old = await current();
      const name = String((Number(old.name) || 0) + 1);
      const next = emptyGeneration(name);
      // Leftovers of an earlier attempt that failed midway (this process kept running) go first.
      await deleteAll((await listAll(`${prefix}${name}/`)).map((o) => o.key));
      let buffered: Uint8Array[] = [];
      let bufferedBytes = 0;
      const flush = async () => {
        if (bufferedBytes === 0) return;
        const seg = new Uint8Array(bufferedBytes);
        let o = 0;
        for (const p of buffered) {
          seg.set(p, o);
          o += p.length;
        }
        await bucket.put(packKey(name, next.packSize), seg);
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
        await bucket.put(journalKey(name, 0), text);
        next.nextSeq = 1;
        next.journal.set(0, text.length);
      }
      // The switch: before this PUT a restart finds the old pair, after it the new one.
      await bucket.put(pointerKey, encoder.encode(name));
      loading = Promise.resolve(next);
      await deleteAll((await listAll(`${prefix}${old.name}/`)).map((o) => o.key));
    },
    async size() {
      const gen = await current();
      let journalBytes = gen.base?.size ?? 0;
      for (const n of gen.journal.values()) journalBytes += n;
      return gen.segments.reduce((n, s) => n + s.size, 0) + journalBytes;
    },
  };
}
