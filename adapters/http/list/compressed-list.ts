import type { NoteSummary } from '../../../core/notes/note-index.ts';
import { sliced } from '../../../core/notes/slices.ts';
import { assembleGzip, crc32, type DeflatedPart, joinBytes } from './gzip-parts.ts';
import {
  type Crc32,
  chunkSha,
  type ListStore,
  type PersistedChunk,
  type PersistedList,
} from './persisted-list.ts';

type Zlib = typeof import('node:zlib');

const HEAD = '{"success":true,"data":[';
const TAIL = ']}';
/** A chunk ends after a note whose path hashes to 0 modulo this (about 32 notes a chunk). */
const SPREAD = 32;
const MAX_CHUNK = 512;
const encoder = new TextEncoder();
/** Where a chunk is encoded before it is copied at its size (`cut`; grows to the largest chunk). */
let scratch = new Uint8Array(0);

/** FNV-1a of a path: chunk boundaries depend on paths only, so a write touches one chunk. */
const isBoundary = (path: string): boolean => {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SPREAD === 0;
};
/**
 * Deflate level of a first build (on the thread pool, or in place) and of the polish; a chunk redone
 * after a write uses FAST_LEVEL until the polish. Measured on the 10,000-note vault (whole list,
 * one stream): level 2 18.5%, 4 16.6%, 6 15.0%, 9 14.7% of raw at 1x / 2.1x / 3.3x / 6.2x the CPU
 * of level 2 (bench/results/2026-11-27-list.md): 9 costs twice 6's CPU for 0.3 points.
 */
const LEVEL = 6;
const FAST_LEVEL = 2;
/** The persisted list is written at most this often (and first as soon as a whole build is done). */
const SAVE_EVERY_MS = 10_000;
/** Quiet time after the last rebuild before chunks deflated at FAST_LEVEL are deflated again at LEVEL. */
const POLISH_AFTER_MS = 2000;
/**
 * Brotli is redone for a new version only once the list has been quiet this long: under a stream of
 * writes each version would otherwise cost a whole-list compression (a second or more of CPU at
 * 100,000 notes); gzip answers meanwhile.
 */
const BROTLI_QUIET_MS = 1000;
/**
 * Brotli's quality for the whole list (on the thread pool, once per quiet version). 10,000 notes:
 * 5 12.8%, 6 12.0%, 7 11.3%, 8 10.7% of raw at about 1x / 1.1x / 1.4x / 2x the CPU of 5; a
 * window of 2^24 instead of the default 2^22 gained nothing there (bench/results/2026-11-27-list.md).
 */
const BROTLI_QUALITY = 7;
/** Chunks deflated on the thread pool at once (libuv's default pool has 4 threads). */
const DEFLATING = 4;
/** Up to this many chunks to deflate are done in place (a write's few); more go to the thread pool. */
const IN_PLACE = 24;
/**
 * After a warm start answered its first list from the persisted one (no summary built), the
 * summaries and chunks a write's re-encode needs are made this long after, in slices (off the
 * first answers' path; the first list after a write then costs what it costs later on).
 */
const MATERIALIZE_AFTER_MS = 2000;

interface Chunk {
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

/** Deflate's window: a chunk is compressed with this much of the previous chunk as history. */
const WINDOW = 32 * 1024;
const EMPTY: Uint8Array = new Uint8Array(0);
/** The identity answer is dropped this long after its last use (a second copy of the list: 18 MB at 10,000 notes). */
const IDENTITY_KEEP_MS = 10_000;
const tailOf = (ch: Chunk | null): Uint8Array =>
  ch ? ch.json.subarray(Math.max(0, ch.json.length - WINDOW)) : EMPTY;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * The body of `GET /notes` in the spec's shape, kept in content-defined chunks of summaries.
 * After a write only the chunk holding the changed summaries (they are new objects; the index
 * keeps unchanged ones) is serialized and deflated again; the gzip answer is the chunks joined.
 * Built once per index generation and shared by every connection.
 */
export function createCompressedList(
  opts: {
    /** Where the deflated chunks are kept across restarts (adapters/http/persisted-list.ts). */
    store?: ListStore;
    /** A failed save of the persisted list (the answers are not affected). */
    onError?: (err: unknown) => void;
    /**
     * The list key (core/notes/list-key.ts) of the index while it is at `generation`, or null: a
     * persisted list with the same key is answered whole, without building a summary.
     */
    key?: (generation: number) => Promise<string | null>;
    /**
     * Builds the summaries of `generation` in slices, ahead of their use; false when the index is
     * no longer at it.
     */
    prepare?: (generation: number) => Promise<boolean>;
  } = {},
) {
  let generation = -1;
  let chunks: Chunk[] = [];
  let identity: Uint8Array<ArrayBuffer> | null = null;
  let gzip: Uint8Array<ArrayBuffer> | null = null;
  let brotli: { generation: number; body: Uint8Array<ArrayBuffer> } | null = null;
  let brotliRunning = -1;
  let changedAt = 0;
  let brotliTimer: ReturnType<typeof setTimeout> | null = null;
  let ends: { head: DeflatedPart; tail: DeflatedPart } | null = null;
  /** The gzip build in flight (`gzipAsync`), for the chunks and generation it was started on. */
  let building: { chunks: Chunk[]; generation: number; body: Promise<Uint8Array<ArrayBuffer>> } | null = null;
  /**
   * The items of `generation` not cut into chunks yet: a warm start's first list defers them, in
   * case the persisted list answers it whole.
   */
  let pending: (() => readonly NoteSummary[]) | null = null;
  /** Work done since creation (for tests): chunks serialized and chunks deflated. */
  const counts = { serialized: 0, summaries: 0, deflated: 0, restored: 0, saved: 0, whole: 0 };

  // A chunk's compressor is primed with the end of the chunk before it (the bytes that precede it
  // in the answer), so back-references reach across chunks as in one stream; a chunk is redone when
  // it changed or when those bytes did.
  // memLevel 9 (a larger hash) for the full level; a write's redo at FAST_LEVEL uses 8: its
  // setup per chunk costs less and the redo is polished anyway.
  const options = (z: Zlib, last: boolean, history: Uint8Array, level: number) => ({
    level,
    memLevel: level === FAST_LEVEL ? 8 : 9,
    finishFlush: last ? z.constants.Z_FINISH : z.constants.Z_SYNC_FLUSH,
    ...(history.length ? { dictionary: history } : {}),
  });
  const crcOf = (z: Zlib, bytes: Uint8Array) =>
    typeof z.crc32 === 'function' ? z.crc32(bytes) : crc32(bytes);
  const crcFn = (z: Zlib): Crc32 =>
    typeof z.crc32 === 'function' ? (b, v) => z.crc32(b, v ?? 0) : (b, v) => crc32(b, v ?? 0);
  const shaOf = (ch: Chunk): Promise<string> => {
    ch.sha ??= chunkSha(ch.json);
    return ch.sha;
  };
  /** Every chunk's SHA-256, yielding to the event loop every 8 ms (90 MB of JSON at 50,000 notes). */
  const shaAll = async (list: readonly Chunk[]): Promise<string[]> => {
    const out: string[] = [];
    let since = performance.now();
    for (const ch of list) {
      out.push(await shaOf(ch));
      if (performance.now() - since > 8) {
        await new Promise((r) => setTimeout(r, 0));
        since = performance.now();
      }
    }
    return out;
  };

  // The persisted list: read once, at the first build (a warm start), and written after a whole
  // build or a polish (at most every SAVE_EVERY_MS). `partsVersion` counts changes of any part.
  let restored = false;
  /** The persisted list as read (kept until its chunks were matched: `restore`). */
  let kept: Promise<PersistedList | null> | null = null;
  const loadKept = (z: Zlib): Promise<PersistedList | null> => {
    kept ??= opts.store ? opts.store.load(crcFn(z)) : Promise.resolve(null);
    return kept;
  };
  let partsVersion = 0;
  let savedVersion = -1;
  let savedAt = Number.NEGATIVE_INFINITY;
  let saveTimer: ReturnType<typeof setTimeout> | null = null;
  let saving = false;

  /**
   * Takes the parts of the persisted list for the chunks whose bytes are exactly those of a
   * persisted chunk (same SHA-256, CRC and length) that followed the same chunk as now (its
   * compressor was primed with that chunk's end); every other chunk is deflated as usual.
   */
  const restore = async (z: Zlib, sameKey = false): Promise<number> => {
    restored = true;
    const stored = (await loadKept(z))?.chunks;
    kept = Promise.resolve(null);
    if (!stored?.length) return 0;
    const mine = chunks;
    const shas = await shaAll(mine);
    if (chunks !== mine) return 0;
    const at = new Map<string, number>();
    for (const [i, s] of stored.entries()) at.set(s.sha, i);
    let used = 0;
    let before: Chunk | null = null;
    mine.forEach((ch, k) => {
      const i = at.get(shas[k]!);
      const s = i === undefined ? undefined : stored[i]!;
      const follows = i === 0 ? k === 0 : i !== undefined && k > 0 && stored[i - 1]!.sha === shas[k - 1];
      if (
        s &&
        follows &&
        !ch.part &&
        s.items === ch.items.length &&
        s.length === ch.json.length &&
        s.crc === crcOf(z, ch.json)
      ) {
        ch.part = { deflated: s.deflated, crc: s.crc, length: s.length };
        ch.primed = tailOf(before);
        ch.after = before;
        ch.fast = false;
        used++;
      }
      before = ch;
    });
    if (used) partsVersion++;
    // Every chunk as persisted: the file already holds this list (and, when it was answered whole,
    // this list's key; otherwise it is written again with the key, so the next start answers whole).
    if (used === mine.length && (sameKey || !opts.key)) savedVersion = partsVersion;
    counts.restored += used;
    return used;
  };

  /** Writes the current parts when every chunk has one at LEVEL, primed with the chunk before it. */
  const persist = async (z: Zlib): Promise<void> => {
    const store = opts.store;
    if (!store || saving || pending || savedVersion === partsVersion) return;
    const mine = chunks;
    const gen = generation;
    let before: Chunk | null = null;
    for (const ch of mine) {
      if (!ch.part || ch.fast || ch.after !== before) return;
      before = ch;
    }
    const version = partsVersion;
    const parts = mine.map((ch) => ch.part!);
    saving = true;
    savedAt = Date.now();
    try {
      // The key of the index these chunks were made from: null when it moved on since.
      const out = shaAll(mine).then(
        async (shas): Promise<PersistedList> => ({
          chunks: mine.map(
            (ch, k): PersistedChunk => ({
              items: ch.items.length,
              length: parts[k]!.length,
              crc: parts[k]!.crc,
              sha: shas[k]!,
              deflated: parts[k]!.deflated,
            }),
          ),
          key: (await opts.key?.(gen)) ?? null,
        }),
      );
      await store.save(LEVEL, out, crcFn(z));
      savedVersion = version;
      counts.saved++;
    } catch (err) {
      opts.onError?.(err);
    } finally {
      saving = false;
    }
    if (savedVersion !== partsVersion) persistSoon(z);
  };
  const persistSoon = (z: Zlib): void => {
    if (!opts.store || saveTimer) return;
    const wait = Math.max(0, savedAt + SAVE_EVERY_MS - Date.now());
    saveTimer = setTimeout(() => {
      saveTimer = null;
      void persist(z);
    }, wait);
    (saveTimer as { unref?: () => void }).unref?.();
  };
  const deflate = (
    z: Zlib,
    bytes: Uint8Array,
    last: boolean,
    history: Uint8Array = EMPTY,
    level = LEVEL,
  ): DeflatedPart => {
    counts.deflated++;
    return {
      deflated: z.deflateRawSync(bytes, options(z, last, history, level)),
      crc: crcOf(z, bytes),
      length: bytes.length,
    };
  };
  /**
   * `deflate` on the thread pool: the event loop only computes the CRC. At most DEFLATING run at
   * once, the rest wait their turn: each compressor holds zlib's state (about 400 KiB at memLevel
   * 9) while it lives, and a whole list at 100,000 notes is about 3,000 chunks.
   */
  let deflating = 0;
  const waiting: (() => void)[] = [];
  /** Ends a deflate's turn: its slot passes to the next one waiting. */
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else deflating--;
  };
  const deflateAsync = async (
    z: Zlib,
    bytes: Uint8Array,
    history: Uint8Array,
    level: number,
  ): Promise<DeflatedPart> => {
    if (deflating < DEFLATING) deflating++;
    else await new Promise<void>((go) => waiting.push(go));
    counts.deflated++;
    return new Promise<DeflatedPart>((resolve, reject) => {
      try {
        z.deflateRaw(bytes, options(z, false, history, level), (err, out) => {
          release();
          if (err) reject(err);
          else resolve({ deflated: out, crc: crcOf(z, bytes), length: bytes.length });
        });
      } catch (err) {
        release();
        reject(err);
      }
    });
  };

  // Per summary object (the index makes a new one when a note, its links or its backlinks change):
  // the chunk whose bytes hold its JSON. A write serializes only the summaries it changed; the
  // others' bytes are copied from the chunk they were in (no second copy of the list as strings).
  const owner = new WeakMap<NoteSummary, Chunk>();
  /** A kept summary's bytes in the chunk that holds them, or its JSON to encode. */
  const jsonOf = (s: NoteSummary): Uint8Array | string => {
    const ch = owner.get(s);
    if (ch) {
      const k = ch.items.indexOf(s);
      if (k >= 0) return ch.json.subarray(ch.offsets[k]!, ch.offsets[k + 1]! - 1);
    }
    counts.summaries++;
    return JSON.stringify(s);
  };

  let polishTimer: ReturnType<typeof setTimeout> | null = null;
  let polishWith: Zlib | null = null;
  /**
   * Deflates the chunks made at FAST_LEVEL (a write's redo) again at LEVEL,
   * on the thread pool; a result is kept only when its chunk still has the same history (same
   * bytes once inflated, smaller).
   */
  const polish = async (): Promise<void> => {
    polishTimer = null;
    const z = polishWith;
    if (!z) return;
    const todo = chunks.filter((ch) => ch.fast && ch.part);
    let any = false;
    await Promise.all(
      todo.map(async (ch) => {
        const primed = ch.primed ?? EMPTY;
        const part = await deflateAsync(z, ch.json, primed, LEVEL);
        if (ch.fast && (ch.primed ?? EMPTY) === primed) {
          ch.part = part;
          ch.fast = false;
          any = true;
        }
      }),
    );
    if (any) {
      gzip = null;
      partsVersion++;
      persistSoon(z);
    }
  };

  /** A new chunk from `items[start]` to the next boundary, as a fresh build cuts it. */
  const cut = (items: readonly NoteSummary[], start: number): Chunk => {
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
    counts.serialized++;
    // Encoded straight into one scratch buffer, then copied once at its size: a Uint8Array per
    // summary (10,000 small allocations freed at once at 10,000 notes) left the heap and malloc
    // larger after a cold start's first list.
    const parts = slice.map(jsonOf);
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
    for (const s of slice) owner.set(s, ch);
    return ch;
  };

  /**
   * Chunks for `items`: an old chunk is kept when the same summary objects start at the same
   * place (the index hands out the same object until the note, its links or backlinks change);
   * only the rest is cut and serialized anew, with the same cuts a fresh build makes (tested).
   */
  function* nextChunks(items: readonly NoteSummary[]): Generator<Chunk> {
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
      const ch = keep ? old! : cut(items, at);
      yield ch;
      at += ch.items.length;
    }
  }
  const rebuild = (items: readonly NoteSummary[]) => {
    chunks = [...nextChunks(items)];
    identity = null;
    gzip = null;
  };
  /** Cuts the deferred items now (a caller that needs the chunks). */
  const ensure = () => {
    if (!pending) return;
    const items = pending;
    pending = null;
    rebuild(items());
  };

  /**
   * Cuts the deferred items in slices (the summaries first, through `prepare`, then the chunks),
   * yielding to the event loop between them: the first list of a start serializes the whole vault
   * (about 1 s of one block at 10,000 notes on a loaded machine when done at once). False when the
   * list moved on meanwhile (`ensure` then cuts what is current). The gzip answer, if any, stays:
   * it is of the same generation.
   */
  const cutPending = async (z?: Zlib): Promise<boolean> => {
    const gen = generation;
    const items = pending;
    if (!items) return false;
    if (opts.prepare && !(await opts.prepare(gen))) return false;
    if (pending !== items || generation !== gen) return false;
    const next: Chunk[] = [];
    // With `z` (a first build with nothing persisted to take parts from), each chunk is deflated
    // on the thread pool as soon as it is cut, primed with the end of the one cut before it: the
    // pool deflates while the event loop cuts the rest (at 100,000 notes the two took about 3 s
    // each, one after the other).
    const deflates: Promise<unknown>[] = [];
    let before: Chunk | null = null;
    for await (const ch of sliced(nextChunks(items()))) {
      next.push(ch);
      if (pending !== items || generation !== gen) return false;
      if (z && !ch.part) deflates.push(deflateEarly(z, ch, before));
      before = ch;
    }
    await Promise.all(deflates);
    if (pending !== items || generation !== gen) return false;
    pending = null;
    chunks = next;
    identity = null;
    return true;
  };
  /** Deflates `ch` at LEVEL primed with the end of `before`, the chunk before it (see cutPending). */
  const deflateEarly = (z: Zlib, ch: Chunk, before: Chunk | null): Promise<void> => {
    const history = tailOf(before);
    return deflateAsync(z, ch.json, history, LEVEL).then(
      (part) => {
        if (ch.part) return;
        ch.part = part;
        ch.primed = history;
        ch.after = before;
        ch.fast = false;
      },
      // The chunk stays without a part: the build deflates it as any other.
      () => {},
    );
  };

  let materializeTimer: ReturnType<typeof setTimeout> | null = null;
  /**
   * After a warm start's whole answer: builds the summaries and chunks of the same generation in
   * slices and takes their parts from the persisted list (by their bytes), so that a write's
   * re-encode finds them. Gives up when the list moved on meanwhile (the next answer builds).
   */
  const materialize = async (z: Zlib): Promise<void> => {
    materializeTimer = null;
    if (await cutPending()) await restore(z, true);
  };

  /** The chunks whose part is missing or was primed with bytes no longer before them. */
  const stale = (): { ch: Chunk; history: Uint8Array }[] => {
    const out: { ch: Chunk; history: Uint8Array }[] = [];
    let before: Chunk | null = null;
    for (const ch of chunks) {
      if (!ch.part || ch.after !== before) {
        const history = tailOf(before);
        if (!ch.part || !ch.primed || !sameBytes(ch.primed, history)) out.push({ ch, history });
        else ch.after = before;
      }
      before = ch;
    }
    return out;
  };

  /** The persisted list's whole gzip answer. */
  const wholeOf = (z: Zlib, stored: PersistedList): Uint8Array<ArrayBuffer> => {
    ends ??= {
      head: deflate(z, encoder.encode(HEAD), false),
      tail: deflate(z, encoder.encode(TAIL), true),
    };
    return assembleGzip([ends.head, ...stored.chunks, ends.tail]);
  };
  /**
   * The whole gzip answer from the persisted list, when it was made from an index with this very
   * list key (no summary built, nothing serialized or deflated); null otherwise. The chunks are
   * made MATERIALIZE_AFTER_MS later.
   */
  const wholeFromStore = async (z: Zlib): Promise<Uint8Array<ArrayBuffer> | null> => {
    if (!opts.key) return null;
    const gen = generation;
    const items = pending;
    const stored = await loadKept(z);
    if (!stored?.key || !stored.chunks.length) return null;
    const key = await opts.key(gen);
    if (key !== stored.key || pending !== items || generation !== gen || gzip) return gzip;
    gzip = wholeOf(z, stored);
    counts.whole++;
    if (!materializeTimer) {
      materializeTimer = setTimeout(
        () => void materialize(z).catch((err) => opts.onError?.(err)),
        MATERIALIZE_AFTER_MS,
      );
      (materializeTimer as { unref?: () => void }).unref?.();
    }
    return gzip;
  };

  let identityTimer: ReturnType<typeof setTimeout> | null = null;
  const dropIdentity = () => {
    if (identityTimer) clearTimeout(identityTimer);
    identityTimer = null;
  };
  const keepIdentity = () => {
    dropIdentity();
    identityTimer = setTimeout(() => {
      identityTimer = null;
      identity = null;
    }, IDENTITY_KEEP_MS);
    (identityTimer as { unref?: () => void }).unref?.();
  };

  const schedulePolish = (z: Zlib) => {
    polishWith = z;
    if (polishTimer) clearTimeout(polishTimer);
    polishTimer = setTimeout(() => void polish(), POLISH_AFTER_MS);
    (polishTimer as { unref?: () => void }).unref?.();
  };

  return {
    /**
     * Brings the chunks up to `gen` (a no-op when they are there already). `items` as a function
     * is called at once, except for the first build with a persisted list: then it waits for the
     * first answer, which the persisted list may give whole (its key matches: no summary built).
     */
    update(gen: number, items: readonly NoteSummary[] | (() => readonly NoteSummary[])): void {
      if (gen === generation) return;
      // The first version is compressed at once; later ones after BROTLI_QUIET_MS without writes.
      if (generation !== -1) changedAt = Date.now();
      generation = gen;
      if (typeof items === 'function' && opts.store && !restored && !chunks.length) {
        pending = items;
        identity = null;
        gzip = null;
        return;
      }
      pending = null;
      rebuild(typeof items === 'function' ? items() : items);
    },

    /** The uncompressed answer (kept for IDENTITY_KEEP_MS after its last use). */
    identity(): Uint8Array<ArrayBuffer> {
      if (!identity) {
        ensure();
        identity = joinBytes(
          encoder.encode(HEAD),
          chunks.map((ch) => ch.json),
          encoder.encode(TAIL),
        );
      }
      keepIdentity();
      return identity;
    },

    /**
     * The uncompressed answer, inflated from the gzip answer on the thread pool when there is one
     * (off the event loop; the copy is dropped IDENTITY_KEEP_MS after its last use).
     */
    async identityAsync(z: Zlib): Promise<Uint8Array<ArrayBuffer>> {
      if (identity) return this.identity();
      const mine = gzip;
      if (!mine) return this.identity();
      const out = await new Promise<Uint8Array>((resolve, reject) =>
        z.gunzip(mine, (err, res) => (err ? reject(err) : resolve(res))),
      );
      const body = new Uint8Array(out.buffer, out.byteOffset, out.byteLength) as Uint8Array<ArrayBuffer>;
      if (gzip === mine) {
        identity = body;
        keepIdentity();
      }
      return body;
    },

    /** Bytes of uncompressed JSON held now: chunks' JSON and the identity answer (for tests). */
    heldJsonBytes(): { chunks: number; identity: number } {
      let n = 0;
      for (const ch of chunks) n += ch.json.length;
      return { chunks: n, identity: identity?.length ?? 0 };
    },

    /** The gzip answer: only chunks not deflated yet are deflated. */
    gzip(z: Zlib): Uint8Array<ArrayBuffer> {
      if (!gzip) {
        ensure();
        ends ??= {
          head: deflate(z, encoder.encode(HEAD), false),
          tail: deflate(z, encoder.encode(TAIL), true),
        };
        // The first build deflates every chunk at LEVEL; after that, the chunks a write changed (and
        // the chunk after each when the bytes before it changed) are deflated at FAST_LEVEL and
        // polished at LEVEL once writes pause: the first list after a write costs a few ms, not tens.
        const fresh = chunks.every((ch) => !ch.part);
        const todo = stale();
        for (const { ch, history } of todo) {
          ch.part = deflate(z, ch.json, false, history, fresh ? LEVEL : FAST_LEVEL);
          ch.primed = history;
          ch.after = null;
          ch.fast = !fresh;
        }
        if (todo.length) partsVersion++;
        let before: Chunk | null = null;
        for (const ch of chunks) {
          ch.after = before;
          before = ch;
        }
        gzip = assembleGzip([ends.head, ...chunks.map((ch) => ch.part!), ends.tail]);
        if (!fresh && todo.length) schedulePolish(z);
        else persistSoon(z);
      }
      return gzip;
    },

    /**
     * The same gzip answer. The first build takes what it can of the persisted list (a warm start:
     * the chunks whose bytes did not change); after a start without one (every chunk to deflate) the
     * chunks are deflated on the thread pool, in parallel (10,000 notes took 0.3 to 0.6 s of the
     * event loop when deflated in place), at LEVEL (FAST_LEVEL here made the first answers about a
     * fifth larger until the polish); after a write the few chunks it changed are deflated in
     * place at FAST_LEVEL (a thread-pool round trip costs more than that) and polished at LEVEL on
     * the thread pool once no write came for 2 s. A write meanwhile does not change this answer
     * (it is the version the caller's ETag names); it is kept only when it is still the current one.
     * Requests that come while a build of the same version runs share that build: each used to
     * deflate the whole list again (N times the CPU; 32 connections on one core got no answer for
     * seconds after a start).
     */
    gzipAsync(z: Zlib): Promise<Uint8Array<ArrayBuffer>> {
      if (gzip) return Promise.resolve(gzip);
      if (building?.chunks === chunks && building.generation === generation) return building.body;
      const build = { chunks, generation, body: Promise.resolve(new Uint8Array()) };
      const run = async (): Promise<Uint8Array<ArrayBuffer>> => {
        if (gzip) return gzip;
        if (pending) {
          const whole = await wholeFromStore(z);
          if (whole) return whole;
          // Nothing persisted to take parts from: the chunks are deflated as they are cut.
          const stored = opts.store && !restored ? await loadKept(z) : null;
          if (!stored?.chunks.length) {
            if (await cutPending(z)) {
              restored = true;
              kept = Promise.resolve(null);
            }
          } else await cutPending();
        }
        ensure();
        // The chunks this build cut are the ones it builds: a request meanwhile shares it.
        if (build.generation === generation) build.chunks = chunks;
        if (opts.store && !restored && chunks.every((ch) => !ch.part)) {
          await restore(z);
          if (gzip) return gzip;
        }
        const fresh = chunks.every((ch) => !ch.part);
        const level = fresh ? LEVEL : FAST_LEVEL;
        const todo = stale();
        if (todo.length <= IN_PLACE && chunks.some((ch) => ch.part)) return this.gzip(z);
        ends ??= {
          head: deflate(z, encoder.encode(HEAD), false),
          tail: deflate(z, encoder.encode(TAIL), true),
        };
        const mine = chunks;
        const redo = new Map(todo.map((t) => [t.ch, t.history]));
        const parts = mine.map((ch) => {
          const history = redo.get(ch);
          if (history === undefined) return ch.part!;
          return deflateAsync(z, ch.json, history, level).then((part) => {
            ch.part = part;
            ch.primed = history;
            ch.fast = level !== LEVEL;
            return part;
          });
        });
        const done = await Promise.all(parts);
        if (redo.size) partsVersion++;
        if (redo.size && level !== LEVEL) schedulePolish(z);
        if (chunks === mine) {
          let before: Chunk | null = null;
          for (const ch of mine) {
            ch.after = before;
            before = ch;
          }
        }
        const body = assembleGzip([ends.head, ...done, ends.tail]);
        if (chunks === mine) {
          gzip = body;
          persistSoon(z);
        }
        return body;
      };
      build.body = run();
      building = build;
      const clear = () => {
        if (building === build) building = null;
      };
      build.body.then(clear, clear);
      return build.body;
    },

    /**
     * The brotli answer for the current generation, or null while it is being compressed in the
     * background (off the event loop); the caller answers gzip meanwhile.
     */
    brotli(z: Zlib): Uint8Array<ArrayBuffer> | null {
      if (brotli?.generation === generation) return brotli.body;
      // A warm start's whole answer from the persisted gzip list: brotli once the chunks are made.
      if (pending) return null;
      const wait = changedAt + BROTLI_QUIET_MS - Date.now();
      if (wait > 0) {
        if (!brotliTimer) {
          brotliTimer = setTimeout(() => {
            brotliTimer = null;
            this.brotli(z);
          }, wait);
          (brotliTimer as { unref?: () => void }).unref?.();
        }
        return null;
      }
      // One compression at a time: under a stream of writes only the latest version is done next.
      if (brotliRunning === -1) {
        const gen = generation;
        brotliRunning = gen;
        // The whole answer for brotli, not kept afterwards (a second copy of the list otherwise).
        const kept = identity;
        const whole = this.identity();
        identity = kept;
        if (!kept) dropIdentity();
        const params = {
          [z.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [z.constants.BROTLI_PARAM_SIZE_HINT]: whole.length,
        };
        z.brotliCompress(whole, { params }, (err, out) => {
          if (brotliRunning === gen) brotliRunning = -1;
          if (!err && gen === generation) brotli = { generation: gen, body: new Uint8Array(out) };
        });
      }
      return null;
    },

    /** Deflates the chunks a write redid at the full level now (for tests; otherwise after a pause). */
    polishNow(): Promise<void> {
      if (polishTimer) clearTimeout(polishTimer);
      return polish();
    },

    /** How many chunks deflated at the fast level wait for the polish (for tests). */
    fastChunks(): number {
      return chunks.filter((ch) => ch.fast).length;
    },

    /** How many chunks the list has now (for tests). */
    chunkCount(): number {
      return chunks.length;
    },

    /** Each chunk's number of notes, in order (for tests: the cuts of a fresh build). */
    chunkSizes(): number[] {
      return chunks.map((ch) => ch.items.length);
    },

    /**
     * Chunks cut, summaries serialized, chunks deflated, chunks taken from the persisted list and
     * saves of it since creation (for tests).
     */
    work(): {
      serialized: number;
      summaries: number;
      deflated: number;
      restored: number;
      saved: number;
      whole: number;
    } {
      return { ...counts };
    },

    /** Makes the chunks after a whole answer from the persisted list now (for tests; otherwise later). */
    materializeNow(z: Zlib): Promise<void> {
      if (materializeTimer) clearTimeout(materializeTimer);
      return materialize(z);
    },

    /** Writes the persisted list now when it is behind (for tests; otherwise after a build or a polish). */
    async persistNow(z: Zlib): Promise<void> {
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = null;
      while (saving) await new Promise((r) => setTimeout(r, 5));
      await persist(z);
    },
  };
}

export type CompressedList = ReturnType<typeof createCompressedList>;
