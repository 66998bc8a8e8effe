import type { NoteSummary } from '../../../core/notes/note-index.ts';
import { sliced } from '../../../core/notes/slices.ts';
import { type Chunk, ChunkCutter, EMPTY, sameBytes, tailOf } from './chunks.ts';
import { crcFn, crcOf, Deflater, FAST_LEVEL, LEVEL } from './deflater.ts';
import { assembleGzip, type DeflatedPart, joinBytes } from './gzip-parts.ts';
import { chunkSha, type ListStore, type PersistedChunk, type PersistedList } from './persisted-list.ts';

type Zlib = typeof import('node:zlib');

const HEAD = '{"success":true,"data":[';
const TAIL = ']}';
const encoder = new TextEncoder();
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
/** Up to this many chunks to deflate are done in place (a write's few); more go to the thread pool. */
const IN_PLACE = 24;
/**
 * After a warm start answered its first list from the persisted one (no summary built), the
 * summaries and chunks a write's re-encode needs are made this long after, in slices (off the
 * first answers' path; the first list after a write then costs what it costs later on).
 */
const MATERIALIZE_AFTER_MS = 2000;
/** The identity answer is dropped this long after its last use (a second copy of the list: 18 MB at 10,000 notes). */
const IDENTITY_KEEP_MS = 10_000;

/** A timer that does not keep the process alive. */
const later = (fn: () => void, ms: number): ReturnType<typeof setTimeout> => {
  const t = setTimeout(fn, ms);
  (t as { unref?: () => void }).unref?.();
  return t;
};

/** Options of `createCompressedList`. */
export interface CompressedListOptions {
  /** Where the deflated chunks are kept across restarts (adapters/http/list/persisted-list.ts). */
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
}

/**
 * The body of `GET /notes` in the spec's shape, kept in content-defined chunks of summaries.
 * After a write only the chunk holding the changed summaries (they are new objects; the index
 * keeps unchanged ones) is serialized and deflated again; the gzip answer is the chunks joined.
 * Built once per index generation and shared by every connection. Its state, in three parts:
 * the chunks of the current generation and the answers made of them; the polish and brotli run
 * when writes pause; the persisted list (read once, at the first build, and written after a whole
 * build or a polish).
 */
export class CompressedList {
  private generation = -1;
  private chunks: Chunk[] = [];
  private identityBody: Uint8Array<ArrayBuffer> | null = null;
  private gzipBody: Uint8Array<ArrayBuffer> | null = null;
  private brotliBody: { generation: number; body: Uint8Array<ArrayBuffer> } | null = null;
  private brotliRunning = -1;
  private changedAt = 0;
  private brotliTimer: ReturnType<typeof setTimeout> | null = null;
  private ends: { head: DeflatedPart; tail: DeflatedPart } | null = null;
  /** The gzip build in flight (`gzipAsync`), for the chunks and generation it was started on. */
  private building: {
    chunks: Chunk[];
    generation: number;
    body: Promise<Uint8Array<ArrayBuffer>>;
  } | null = null;
  /**
   * The items of `generation` not cut into chunks yet: a warm start's first list defers them, in
   * case the persisted list answers it whole.
   */
  private pending: (() => readonly NoteSummary[]) | null = null;
  private readonly cutter = new ChunkCutter();
  private readonly deflater = new Deflater();
  private readonly counts = { restored: 0, saved: 0, whole: 0 };
  private polishTimer: ReturnType<typeof setTimeout> | null = null;
  private polishWith: Zlib | null = null;
  private materializeTimer: ReturnType<typeof setTimeout> | null = null;
  private identityTimer: ReturnType<typeof setTimeout> | null = null;
  // The persisted list; `partsVersion` counts changes of any part.
  private restored = false;
  /** The persisted list as read (kept until its chunks were matched: `restore`). */
  private kept: Promise<PersistedList | null> | null = null;
  private partsVersion = 0;
  private savedVersion = -1;
  private savedAt = Number.NEGATIVE_INFINITY;
  private saveTimer: ReturnType<typeof setTimeout> | null = null;
  private saving = false;

  constructor(private readonly opts: CompressedListOptions = {}) {}

  /**
   * Brings the chunks up to `gen` (a no-op when they are there already). `items` as a function
   * is called at once, except for the first build with a persisted list: then it waits for the
   * first answer, which the persisted list may give whole (its key matches: no summary built).
   */
  update(gen: number, items: readonly NoteSummary[] | (() => readonly NoteSummary[])): void {
    if (gen === this.generation) return;
    // The first version is compressed at once; later ones after BROTLI_QUIET_MS without writes.
    if (this.generation !== -1) this.changedAt = Date.now();
    this.generation = gen;
    if (typeof items === 'function' && this.opts.store && !this.restored && !this.chunks.length) {
      this.pending = items;
      this.identityBody = null;
      this.gzipBody = null;
      return;
    }
    this.pending = null;
    this.rebuild(typeof items === 'function' ? items() : items);
  }

  /** The uncompressed answer (kept for IDENTITY_KEEP_MS after its last use). */
  identity(): Uint8Array<ArrayBuffer> {
    if (!this.identityBody) {
      this.ensure();
      this.identityBody = joinBytes(
        encoder.encode(HEAD),
        this.chunks.map((ch) => ch.json),
        encoder.encode(TAIL),
      );
    }
    this.keepIdentity();
    return this.identityBody;
  }

  /**
   * The uncompressed answer, inflated from the gzip answer on the thread pool when there is one
   * (off the event loop; the copy is dropped IDENTITY_KEEP_MS after its last use).
   */
  async identityAsync(z: Zlib): Promise<Uint8Array<ArrayBuffer>> {
    if (this.identityBody) return this.identity();
    const mine = this.gzipBody;
    if (!mine) return this.identity();
    const out = await new Promise<Uint8Array>((resolve, reject) =>
      z.gunzip(mine, (err, res) => (err ? reject(err) : resolve(res))),
    );
    const body = new Uint8Array(out.buffer, out.byteOffset, out.byteLength) as Uint8Array<ArrayBuffer>;
    if (this.gzipBody === mine) {
      this.identityBody = body;
      this.keepIdentity();
    }
    return body;
  }

  /** Bytes of uncompressed JSON held now: chunks' JSON and the identity answer (for tests). */
  heldJsonBytes(): { chunks: number; identity: number } {
    let n = 0;
    for (const ch of this.chunks) n += ch.json.length;
    return { chunks: n, identity: this.identityBody?.length ?? 0 };
  }

  /** The gzip answer: only chunks not deflated yet are deflated. */
  gzip(z: Zlib): Uint8Array<ArrayBuffer> {
    if (this.gzipBody) return this.gzipBody;
    this.ensure();
    const ends = this.endsOf(z);
    // The first build deflates every chunk at LEVEL; after that, the chunks a write changed (and
    // the chunk after each when the bytes before it changed) are deflated at FAST_LEVEL and
    // polished at LEVEL once writes pause: the first list after a write costs a few ms, not tens.
    const fresh = this.chunks.every((ch) => !ch.part);
    const todo = this.stale();
    for (const { ch, history } of todo) {
      ch.part = this.deflater.deflate(z, ch.json, false, history, fresh ? LEVEL : FAST_LEVEL);
      ch.primed = history;
      ch.after = null;
      ch.fast = !fresh;
    }
    if (todo.length) this.partsVersion++;
    this.linkChunks(this.chunks);
    this.gzipBody = assembleGzip([ends.head, ...this.chunks.map((ch) => ch.part!), ends.tail]);
    if (!fresh && todo.length) this.schedulePolish(z);
    else this.persistSoon(z);
    return this.gzipBody;
  }

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
    if (this.gzipBody) return Promise.resolve(this.gzipBody);
    const now = this.building;
    if (now?.chunks === this.chunks && now.generation === this.generation) return now.body;
    const build = {
      chunks: this.chunks,
      generation: this.generation,
      body: Promise.resolve(new Uint8Array()),
    };
    build.body = this.buildGzip(z, build);
    this.building = build;
    const clear = () => {
      if (this.building === build) this.building = null;
    };
    build.body.then(clear, clear);
    return build.body;
  }

  /** `gzipAsync`'s build; `build.chunks` follows the chunks it cuts, so a request meanwhile shares it. */
  private async buildGzip(
    z: Zlib,
    build: { chunks: Chunk[]; generation: number },
  ): Promise<Uint8Array<ArrayBuffer>> {
    if (this.gzipBody) return this.gzipBody;
    if (this.pending) {
      const whole = await this.cutFirst(z);
      if (whole) return whole;
    }
    this.ensure();
    if (build.generation === this.generation) build.chunks = this.chunks;
    if (this.opts.store && !this.restored && this.chunks.every((ch) => !ch.part)) {
      await this.restore(z);
      if (this.gzipBody) return this.gzipBody;
    }
    const fresh = this.chunks.every((ch) => !ch.part);
    const level = fresh ? LEVEL : FAST_LEVEL;
    const todo = this.stale();
    if (todo.length <= IN_PLACE && this.chunks.some((ch) => ch.part)) return this.gzip(z);
    const ends = this.endsOf(z);
    const mine = this.chunks;
    const redo = new Map(todo.map((t) => [t.ch, t.history]));
    const parts = mine.map((ch) => {
      const history = redo.get(ch);
      if (history === undefined) return ch.part!;
      return this.deflater.deflateAsync(z, ch.json, history, level).then((part) => {
        ch.part = part;
        ch.primed = history;
        ch.fast = level !== LEVEL;
        return part;
      });
    });
    const done = await Promise.all(parts);
    if (redo.size) this.partsVersion++;
    if (redo.size && level !== LEVEL) this.schedulePolish(z);
    if (this.chunks === mine) this.linkChunks(mine);
    const body = assembleGzip([ends.head, ...done, ends.tail]);
    if (this.chunks === mine) {
      this.gzipBody = body;
      this.persistSoon(z);
    }
    return body;
  }

  /**
   * The first build's deferred items: the persisted list's whole answer when its key matches;
   * else the chunks cut, deflated as they are cut when nothing is persisted to take parts from.
   */
  private async cutFirst(z: Zlib): Promise<Uint8Array<ArrayBuffer> | null> {
    const whole = await this.wholeFromStore(z);
    if (whole) return whole;
    const stored = this.opts.store && !this.restored ? await this.loadKept(z) : null;
    if (!stored?.chunks.length) {
      if (await this.cutPending(z)) {
        this.restored = true;
        this.kept = Promise.resolve(null);
      }
    } else await this.cutPending();
    return null;
  }

  /**
   * The brotli answer for the current generation, or null while it is being compressed in the
   * background (off the event loop); the caller answers gzip meanwhile.
   */
  brotli(z: Zlib): Uint8Array<ArrayBuffer> | null {
    if (this.brotliBody?.generation === this.generation) return this.brotliBody.body;
    // A warm start's whole answer from the persisted gzip list: brotli once the chunks are made.
    if (this.pending) return null;
    const wait = this.changedAt + BROTLI_QUIET_MS - Date.now();
    if (wait > 0) {
      this.brotliTimer ??= later(() => {
        this.brotliTimer = null;
        this.brotli(z);
      }, wait);
      return null;
    }
    // One compression at a time: under a stream of writes only the latest version is done next.
    if (this.brotliRunning === -1) {
      const gen = this.generation;
      this.brotliRunning = gen;
      // The whole answer for brotli, not kept afterwards (a second copy of the list otherwise).
      const kept = this.identityBody;
      const whole = this.identity();
      this.identityBody = kept;
      if (!kept) this.dropIdentity();
      const params = {
        [z.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [z.constants.BROTLI_PARAM_SIZE_HINT]: whole.length,
      };
      z.brotliCompress(whole, { params }, (err, out) => {
        if (this.brotliRunning === gen) this.brotliRunning = -1;
        if (!err && gen === this.generation) this.brotliBody = { generation: gen, body: new Uint8Array(out) };
      });
    }
    return null;
  }

  /** Deflates the chunks a write redid at the full level now (for tests; otherwise after a pause). */
  polishNow(): Promise<void> {
    if (this.polishTimer) clearTimeout(this.polishTimer);
    return this.polish();
  }

  /** How many chunks deflated at the fast level wait for the polish (for tests). */
  fastChunks(): number {
    return this.chunks.filter((ch) => ch.fast).length;
  }

  /** How many chunks the list has now (for tests). */
  chunkCount(): number {
    return this.chunks.length;
  }

  /** Each chunk's number of notes, in order (for tests: the cuts of a fresh build). */
  chunkSizes(): number[] {
    return this.chunks.map((ch) => ch.items.length);
  }

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
    return { ...this.cutter.counts, deflated: this.deflater.deflated, ...this.counts };
  }

  /** Makes the chunks after a whole answer from the persisted list now (for tests; otherwise later). */
  materializeNow(z: Zlib): Promise<void> {
    if (this.materializeTimer) clearTimeout(this.materializeTimer);
    return this.materialize(z);
  }

  /** Writes the persisted list now when it is behind (for tests; otherwise after a build or a polish). */
  async persistNow(z: Zlib): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    while (this.saving) await new Promise((r) => setTimeout(r, 5));
    await this.persist(z);
  }

  // The chunks of the current generation.

  private rebuild(items: readonly NoteSummary[]): void {
    this.chunks = [...this.cutter.next(this.chunks, items)];
    this.identityBody = null;
    this.gzipBody = null;
  }

  /** Cuts the deferred items now (a caller that needs the chunks). */
  private ensure(): void {
    if (!this.pending) return;
    const items = this.pending;
    this.pending = null;
    this.rebuild(items());
  }

  /** Each chunk's `after` set to the chunk now before it (their parts were primed with its end). */
  private linkChunks(chunks: readonly Chunk[]): void {
    let before: Chunk | null = null;
    for (const ch of chunks) {
      ch.after = before;
      before = ch;
    }
  }

  /** The deflated head and tail of the answer around the chunks, made once. */
  private endsOf(z: Zlib): { head: DeflatedPart; tail: DeflatedPart } {
    this.ends ??= {
      head: this.deflater.deflate(z, encoder.encode(HEAD), false),
      tail: this.deflater.deflate(z, encoder.encode(TAIL), true),
    };
    return this.ends;
  }

  /**
   * Cuts the deferred items in slices (the summaries first, through `prepare`, then the chunks),
   * yielding to the event loop between them: the first list of a start serializes the whole vault
   * (about 1 s of one block at 10,000 notes on a loaded machine when done at once). False when the
   * list moved on meanwhile (`ensure` then cuts what is current). The gzip answer, if any, stays:
   * it is of the same generation.
   */
  private async cutPending(z?: Zlib): Promise<boolean> {
    const gen = this.generation;
    const items = this.pending;
    if (!items) return false;
    if (this.opts.prepare && !(await this.opts.prepare(gen))) return false;
    const moved = () => this.pending !== items || this.generation !== gen;
    if (moved()) return false;
    const next: Chunk[] = [];
    // With `z` (a first build with nothing persisted to take parts from), each chunk is deflated
    // on the thread pool as soon as it is cut, primed with the end of the one cut before it: the
    // pool deflates while the event loop cuts the rest (at 100,000 notes the two took about 3 s
    // each, one after the other).
    const deflates: Promise<unknown>[] = [];
    let before: Chunk | null = null;
    for await (const ch of sliced(this.cutter.next(this.chunks, items()))) {
      next.push(ch);
      if (moved()) return false;
      if (z && !ch.part) deflates.push(this.deflateEarly(z, ch, before));
      before = ch;
    }
    await Promise.all(deflates);
    if (moved()) return false;
    this.pending = null;
    this.chunks = next;
    this.identityBody = null;
    return true;
  }

  /** Deflates `ch` at LEVEL primed with the end of `before`, the chunk before it (see cutPending). */
  private deflateEarly(z: Zlib, ch: Chunk, before: Chunk | null): Promise<void> {
    const history = tailOf(before);
    return this.deflater.deflateAsync(z, ch.json, history, LEVEL).then(
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
  }

  /** The chunks whose part is missing or was primed with bytes no longer before them. */
  private stale(): { ch: Chunk; history: Uint8Array }[] {
    const out: { ch: Chunk; history: Uint8Array }[] = [];
    let before: Chunk | null = null;
    for (const ch of this.chunks) {
      if (!ch.part || ch.after !== before) {
        const history = tailOf(before);
        if (!ch.part || !ch.primed || !sameBytes(ch.primed, history)) out.push({ ch, history });
        else ch.after = before;
      }
      before = ch;
    }
    return out;
  }

  // When writes pause: the polish, and the identity answer dropped.

  /**
   * Deflates the chunks made at FAST_LEVEL (a write's redo) again at LEVEL, on the thread pool; a
   * result is kept only when its chunk still has the same history (same bytes once inflated,
   * smaller).
   */
  private async polish(): Promise<void> {
    this.polishTimer = null;
    const z = this.polishWith;
    if (!z) return;
    const todo = this.chunks.filter((ch) => ch.fast && ch.part);
    let any = false;
    await Promise.all(
      todo.map(async (ch) => {
        const primed = ch.primed ?? EMPTY;
        const part = await this.deflater.deflateAsync(z, ch.json, primed, LEVEL);
        if (ch.fast && (ch.primed ?? EMPTY) === primed) {
          ch.part = part;
          ch.fast = false;
          any = true;
        }
      }),
    );
    if (any) {
      this.gzipBody = null;
      this.partsVersion++;
      this.persistSoon(z);
    }
  }

  private schedulePolish(z: Zlib): void {
    this.polishWith = z;
    if (this.polishTimer) clearTimeout(this.polishTimer);
    this.polishTimer = later(() => void this.polish(), POLISH_AFTER_MS);
  }

  private dropIdentity(): void {
    if (this.identityTimer) clearTimeout(this.identityTimer);
    this.identityTimer = null;
  }

  private keepIdentity(): void {
    this.dropIdentity();
    this.identityTimer = later(() => {
      this.identityTimer = null;
      this.identityBody = null;
    }, IDENTITY_KEEP_MS);
  }

  // The persisted list.

  private shaOf(ch: Chunk): Promise<string> {
    ch.sha ??= chunkSha(ch.json);
    return ch.sha;
  }

  /** Every chunk's SHA-256, yielding to the event loop every 8 ms (90 MB of JSON at 50,000 notes). */
  private async shaAll(list: readonly Chunk[]): Promise<string[]> {
    const out: string[] = [];
    let since = performance.now();
    for (const ch of list) {
      out.push(await this.shaOf(ch));
      if (performance.now() - since > 8) {
        await new Promise((r) => setTimeout(r, 0));
        since = performance.now();
      }
    }
    return out;
  }

  private loadKept(z: Zlib): Promise<PersistedList | null> {
    this.kept ??= this.opts.store ? this.opts.store.load(crcFn(z)) : Promise.resolve(null);
    return this.kept;
  }

  /**
   * Takes the parts of the persisted list for the chunks whose bytes are exactly those of a
   * persisted chunk (same SHA-256, CRC and length) that followed the same chunk as now (its
   * compressor was primed with that chunk's end); every other chunk is deflated as usual.
   */
  private async restore(z: Zlib, sameKey = false): Promise<number> {
    this.restored = true;
    const stored = (await this.loadKept(z))?.chunks;
    this.kept = Promise.resolve(null);
    if (!stored?.length) return 0;
    const mine = this.chunks;
    const shas = await this.shaAll(mine);
    if (this.chunks !== mine) return 0;
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
    if (used) this.partsVersion++;
    // Every chunk as persisted: the file already holds this list (and, when it was answered whole,
    // this list's key; otherwise it is written again with the key, so the next start answers whole).
    if (used === mine.length && (sameKey || !this.opts.key)) this.savedVersion = this.partsVersion;
    this.counts.restored += used;
    return used;
  }

  /** Writes the current parts when every chunk has one at LEVEL, primed with the chunk before it. */
  private async persist(z: Zlib): Promise<void> {
    const store = this.opts.store;
    if (!store || this.saving || this.pending || this.savedVersion === this.partsVersion) return;
    const mine = this.chunks;
    const gen = this.generation;
    let before: Chunk | null = null;
    for (const ch of mine) {
      if (!ch.part || ch.fast || ch.after !== before) return;
      before = ch;
    }
    const version = this.partsVersion;
    const parts = mine.map((ch) => ch.part!);
    this.saving = true;
    this.savedAt = Date.now();
    try {
      // The key of the index these chunks were made from: null when it moved on since.
      const out = this.shaAll(mine).then(
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
          key: (await this.opts.key?.(gen)) ?? null,
        }),
      );
      await store.save(LEVEL, out, crcFn(z));
      this.savedVersion = version;
      this.counts.saved++;
    } catch (err) {
      this.opts.onError?.(err);
    } finally {
      this.saving = false;
    }
    if (this.savedVersion !== this.partsVersion) this.persistSoon(z);
  }

  private persistSoon(z: Zlib): void {
    if (!this.opts.store || this.saveTimer) return;
    const wait = Math.max(0, this.savedAt + SAVE_EVERY_MS - Date.now());
    this.saveTimer = later(() => {
      this.saveTimer = null;
      void this.persist(z);
    }, wait);
  }

  /**
   * The whole gzip answer from the persisted list, when it was made from an index with this very
   * list key (no summary built, nothing serialized or deflated); null otherwise. The chunks are
   * made MATERIALIZE_AFTER_MS later.
   */
  private async wholeFromStore(z: Zlib): Promise<Uint8Array<ArrayBuffer> | null> {
    if (!this.opts.key) return null;
    const gen = this.generation;
    const items = this.pending;
    const stored = await this.loadKept(z);
    if (!stored?.key || !stored.chunks.length) return null;
    const key = await this.opts.key(gen);
    if (key !== stored.key || this.pending !== items || this.generation !== gen || this.gzipBody)
      return this.gzipBody;
    const ends = this.endsOf(z);
    this.gzipBody = assembleGzip([ends.head, ...stored.chunks, ends.tail]);
    this.counts.whole++;
    this.materializeTimer ??= later(
      () => void this.materialize(z).catch((err) => this.opts.onError?.(err)),
      MATERIALIZE_AFTER_MS,
    );
    return this.gzipBody;
  }

  /**
   * After a warm start's whole answer: builds the summaries and chunks of the same generation in
   * slices and takes their parts from the persisted list (by their bytes), so that a write's
   * re-encode finds them. Gives up when the list moved on meanwhile (the next answer builds).
   */
  private async materialize(z: Zlib): Promise<void> {
    this.materializeTimer = null;
    if (await this.cutPending()) await this.restore(z, true);
  }
}

/** The whole list's chunked answers (see CompressedList). */
export function createCompressedList(opts: CompressedListOptions = {}): CompressedList {
  return new CompressedList(opts);
}
