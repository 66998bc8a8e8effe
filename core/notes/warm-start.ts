/**
 * The trusted warm start (issue 33): with a binary snapshot that holds the vault's folders, the
 * index is built from the snapshot alone and serves at once; the vault is walked and checked
 * against it afterwards, while the server answers (docs/note-index.md, "The warm start").
 *
 * The rule, for a note changed, added or removed while the server was down:
 * - a read (`GET /notes/:path`) is always right: it checks the file's size and mtime against the
 *   index and re-reads a note that differs (as for any outside edit the watcher has not reported);
 * - a write is always checked against the bytes on disk (`If-Match`, the version kept);
 * - the list, search, tree and backlinks show the snapshot's picture until the check reaches the
 *   note, then its new content and checksum (the check runs right after the start, in batches
 *   under the write lock, and reports each difference as an outside change event).
 */
import { sha256Hex } from '../crypto.ts';
import { dirname, validateNotePath } from '../paths.ts';
import type { FileInfo } from '../ports.ts';
import { decode, type NoteContext } from './context.ts';
import { createNoteIndex, type IndexEntry, type NoteIndex, toEntry } from './note-index.ts';
import { searchDocOf } from './search/fields.ts';
import type { LazySearch, SerializedSearch } from './search.ts';
import { sliced } from './slices.ts';
import type { BinaryCache } from './snapshot-cache.ts';
import { listForLoad } from './vault-listing.ts';

/** Notes read, hashed and parsed together by the check, each batch under the write lock. */
const BATCH = 128;

/**
 * A snapshot that can be served before the vault is walked: a binary one holding the folders,
 * taken of this very vault (`FileStore.vault`; a data folder pointed at another vault is checked
 * first, never shown).
 */
export type TrustedCache = BinaryCache & { folders: readonly string[] };

export const canServeFirst = (cache: unknown, vault: string | undefined): cache is TrustedCache =>
  !!cache &&
  typeof cache === 'object' &&
  'notePaths' in cache &&
  Array.isArray((cache as BinaryCache).folders) &&
  (cache as BinaryCache).vault === (vault ?? null);

/**
 * Builds the index from the snapshot (and its journal) alone and marks it ready; to be called
 * under the write lock. Returns the check of the vault against it, to run once the lock is free.
 */
export async function serveFromSnapshot(
  ctx: NoteContext,
  cache: TrustedCache,
  onProgress: ((done: number, total: number) => void) | undefined,
  opts: { watch?: boolean },
): Promise<() => Promise<number>> {
  const index = await indexFromCache(cache.search, ctx.pause);
  ctx.index = index;
  ctx.clearNoteCache();
  ctx.cache = { gen: cache.gen, journaled: cache.journaled };
  index.track(true);
  const total = cache.entries.size;
  ctx.status = { state: 'indexing', done: 0, total };
  ctx.indexingSince = ctx.clock.now();
  for (const folder of cache.folders) index.addFolder(folder);
  // The vault's other files first, so that links to them resolve in the one pass below.
  if (cache.files.length) index.files(cache.files, []);
  const loaded = [...cache.entries.values()];
  // The snapshot's link resolutions hold for the notes it was taken of: when the journal added or
  // removed a note since, every link resolves again (a resolution depends on the set of paths).
  let same = cache.entries.size === cache.notePaths.size;
  if (same) for (const p of cache.entries.keys()) if (!cache.notePaths.has(p)) same = false;
  const resolved = same ? (i: number) => cache.resolved(loaded[i]!) : undefined;
  for await (const _ of sliced(index.putManySteps(loaded, resolved), 8, ctx.pause));
  ctx.status = { state: 'ready', done: total, total };
  onProgress?.(total, total);
  return checkLater(ctx, index, opts);
}

/**
 * The note index over a cache's search: a snapshot's lazy search table is taken in slices
 * (`restoreSteps`), with a turn of the event loop before and after (10,000 notes were one turn of
 * 10 to 25 ms); a JSON search (the Worker's cache) at once.
 */
export async function indexFromCache(
  search: string | SerializedSearch | LazySearch | null | undefined,
  /** How to yield to the event loop (the context's `pause`). */
  pause: () => Promise<void>,
): Promise<NoteIndex> {
  if (!search || typeof search !== 'object' || !('lazy' in search)) return createNoteIndex(search);
  const index = createNoteIndex();
  await pause();
  for await (const _ of sliced(index.search.restoreSteps(search), 8, pause));
  await pause();
  return index;
}

/**
 * The check to run once the write lock is free, logged. A function of its own: a closure made in
 * `serveFromSnapshot` would share its scope and keep the snapshot (its read buffer, tables and
 * maps: tens of MB at 50,000 notes) alive until the check ends.
 */
function checkLater(ctx: NoteContext, index: NoteIndex, opts: { watch?: boolean }): () => Promise<number> {
  return async () => {
    await quietMoment(ctx);
    const started = performance.now();
    const changes = await checkAgainstVault(ctx, index, opts);
    ctx.logger?.info('vault checked against the index snapshot', {
      changes,
      ms: Math.round(performance.now() - started),
    });
    return changes;
  };
}

/** How long the host must have answered no request before background work starts, in ms. */
const QUIET_MS = 50;

/**
 * Work a cold load leaves for later (the link graph's key map) and the lifecycle's timed saves of
 * the index cache (`notes.settle()`) wait for a quiet spell this long at most: the first list of a
 * large vault is built for seconds after ready (about 8 s at 100,000 notes), and that work on the
 * same thread made it later and the process larger.
 */
export const SETTLE_WAIT_MS = 10_000;

/** A quiet spell, SETTLE_WAIT_MS at most: what a cold load's link map and the timed saves wait for. */
export const settled = (ctx: NoteContext): Promise<void> =>
  quietMoment(ctx, Math.max(ctx.busyWaitMs, SETTLE_WAIT_MS));

/**
 * Resolves once the host answered no request (`busy`) for QUIET_MS, or after `maxMs` (default
 * `busyWaitMs`): background work starts when the first answers after a start are out (checked
 * every 10 ms). A single idle moment was not enough: a client that polls until the index is ready
 * asks for its first list a few ms after it, and found the check (its walk and stats) started already.
 */
export async function quietMoment(ctx: NoteContext, maxMs = ctx.busyWaitMs): Promise<void> {
  const { busy } = ctx;
  if (!busy) return;
  const until = performance.now() + maxMs;
  let quietSince = Number.POSITIVE_INFINITY;
  while (performance.now() < until) {
    const now = performance.now();
    if (busy()) quietSince = Number.POSITIVE_INFINITY;
    else if (quietSince === Number.POSITIVE_INFINITY) quietSince = now;
    if (now - quietSince >= QUIET_MS) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Walks the vault (arming the watch, as the load's walk does) and brings the index to what it
 * finds: notes added, changed (size or mtime) or without search words are read and parsed, notes
 * gone are dropped, the vault's other files and folders follow. Each batch runs under the write
 * lock and checks the note again there, so a write made meanwhile is never undone. A failure is
 * logged (the reconcile timer and the watcher catch up); it never fails the start.
 */
export async function checkAgainstVault(
  ctx: NoteContext,
  index: NoteIndex,
  opts: { watch?: boolean },
): Promise<number> {
  const { store, logger } = ctx;
  try {
    const listing = await listForLoad(store, ctx.files, logger, opts);
    if (ctx.index !== index) return 0;
    const toRead: FileInfo[] = [];
    const present = new Set<string>();
    for await (const f of sliced(listing.notes)) {
      present.add(f.path);
      const e = index.entries.get(f.path);
      if (e && e.size === f.size && e.mtimeMs === f.mtimeMs && index.search.has(f.path)) continue;
      if (!e) {
        try {
          validateNotePath(f.path);
        } catch {
          logger?.warn('skipping a file whose path is not a valid note path');
          continue;
        }
      }
      toRead.push(f);
    }
    const gone: string[] = [];
    for await (const p of sliced(index.entries.keys())) if (!present.has(p)) gone.push(p);
    let changes = 0;
    for (let i = 0; i < toRead.length; i += BATCH) {
      if (ctx.index !== index) return changes;
      changes += await ctx.mutex.run(() => readBatch(ctx, index, toRead.slice(i, i + BATCH)));
    }
    for (let i = 0; i < gone.length; i += BATCH) {
      if (ctx.index !== index) return changes;
      changes += await ctx.mutex.run(async () => {
        let n = 0;
        for (const p of gone.slice(i, i + BATCH)) {
          // Created again meanwhile (a write): kept.
          if (!index.entries.has(p) || (await store.stat(p))) continue;
          ctx.dropEntry(p);
          ctx.emit({ type: 'deleted', path: p, external: true });
          n++;
        }
        return n;
      });
    }
    if (ctx.index !== index) return changes;
    changes += await ctx.mutex.run(async () => {
      let n = 0;
      if (listing.files) {
        const listed = new Set(listing.files.map((f) => f.path));
        const added = listing.files.filter((f) => !index.graph.hasFile(f.path)).map((f) => f.path);
        const removed: string[] = [];
        for (const p of index.graph.filesUnder('')) {
          if (!listed.has(p) && !(await ctx.files?.stat(p))) removed.push(p);
        }
        if (added.length || removed.length) {
          const changed = index.files(added, removed);
          if (changed.size) ctx.invalidate(changed);
          n += added.length + removed.length;
        }
      }
      const listed = new Set(listing.folders);
      for (const f of listing.folders) {
        if (!index.folders.has(f)) {
          index.addFolder(f);
          n++;
        }
      }
      const stale = [...index.folders].filter((f) => !listed.has(f));
      if (stale.length) {
        // A folder holding a note is there whatever the walk saw (a write may have made it since).
        const held = new Set<string>();
        for (const p of index.entries.keys()) {
          for (let d = dirname(p); d !== '' && !held.has(d); d = dirname(d)) held.add(d);
        }
        for (const f of stale) {
          if (!held.has(f) && index.folders.has(f)) {
            index.removeFolder(f);
            n++;
          }
        }
      }
      if (n) ctx.dirty = true;
      return n;
    });
    return changes;
  } catch (err) {
    logger?.warn('could not check the vault against the index snapshot; the reconcile will', {
      error: err instanceof Error ? err.message : String(err),
    });
    return 0;
  }
}

/** Reads, hashes and parses the notes of one batch that still differ from the index. */
async function readBatch(ctx: NoteContext, index: NoteIndex, batch: FileInfo[]): Promise<number> {
  const { store, clock } = ctx;
  if (ctx.index !== index) return 0;
  const got = await Promise.all(
    batch.map(async (f) => {
      if (store.readWithInfo) return store.readWithInfo(f.path);
      const [info, bytes] = await Promise.all([store.stat(f.path), store.read(f.path)]);
      return info && bytes ? { info, bytes } : null;
    }),
  );
  const todo: { path: string; info: FileInfo; bytes: Uint8Array; before: IndexEntry | undefined }[] = [];
  for (const [i, g] of got.entries()) {
    const path = batch[i]!.path;
    const before = index.entries.get(path);
    // Gone since the walk: the removal pass (or the watcher) sees to it.
    if (!g) continue;
    const info = { ...g.info, size: g.bytes.length };
    if (before && before.size === info.size && before.mtimeMs === info.mtimeMs && index.search.has(path))
      continue;
    todo.push({ path, info, bytes: g.bytes, before });
  }
  if (!todo.length) return 0;
  const texts = todo.map((t) => decode(t.bytes));
  const [sums, analyses] = await Promise.all([
    Promise.all(todo.map((t) => sha256Hex(t.bytes))),
    ctx.analyzeBatch(
      texts,
      todo.map((t) => t.path),
    ),
  ]);
  let n = 0;
  for (const [j, t] of todo.entries()) {
    const a = analyses[j]!;
    const firstSeen = t.before?.firstSeen ?? Math.min(clock.now(), t.info.mtimeMs);
    const entry = toEntry(t.path, t.info, sums[j]!, a, firstSeen);
    ctx.invalidate(index.put(entry));
    if (a.terms) index.search.putTerms(t.path, a.terms);
    else index.search.put(searchDocOf(entry, index.titleOf(t.path), a.text, texts[j]));
    index.markChanged(t.path);
    if (!t.before) ctx.emit({ type: 'created', path: t.path, external: true });
    else if (t.before.checksum !== entry.checksum)
      ctx.emit({ type: 'updated', path: t.path, external: true });
    n++;
  }
  return n;
}
