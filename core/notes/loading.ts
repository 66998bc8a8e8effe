/** Index loading and refresh: the cold or warm start, the cache save, and outside changes. */
import { sha256Hex, sha256HexNow } from '../crypto.ts';
import type { History } from '../history/history.ts';
import { validateNotePath } from '../paths.ts';
import type { FileInfo, StoreChange } from '../ports.ts';
import { searchDocOf } from '../search/lexical/index.ts';
import { decode, type NoteContext } from './context.ts';
import {
  type IndexEntry,
  journalHeader,
  journalLine,
  parseIndexCache,
  snapshotParts,
  toEntry,
} from './note-index.ts';
import { sliced, yieldToEventLoop } from './slices.ts';
import { snapshotBytes } from './snapshot.ts';
import { type BinaryCache, canHoldBinary, readBinaryCache, SNAPSHOT_KEY } from './snapshot-cache.ts';
import { noteTitle } from './title.ts';
import { listForLoad, listForReconcile } from './vault-listing.ts';
import { indexFromCache, settled } from './warm-start.ts';

/**
 * The snapshot of the index as JSON (layout in note-index.ts): written on stores that cannot read
 * by byte range (Workers KV), and only there; elsewhere the binary snapshot (`SNAPSHOT_KEY`,
 * snapshot.ts) is the only cache.
 */
export const CACHE_KEY = 'index-cache.json';
export { SNAPSHOT_KEY };
/** The notes changed since the snapshot, one JSON line each (on stores that can append). */
export const JOURNAL_KEY = 'index-journal.log';
/** Notes read, hashed and parsed together: enough to keep the disk busy, small enough to yield often. */
const BATCH = 128;
/** Batches read and sent to the analyzer ahead of the one being joined to the index. */
const AHEAD = 2;
/** Longest run of a warm start's own work between two yields to the event loop, in ms. */
const LOAD_SLICE_MS = 8;

/**
 * One batch of a load: the notes the cache holds as they are, and the others read, hashed and
 * parsed. Batches are prepared AHEAD of the one being joined to the index: the main thread reads
 * and hashes the next notes while the analyzer threads parse these, instead of each waiting for
 * the other. Every batch is still joined in order, so the index is the same.
 */
async function prepareBatch(
  ctx: NoteContext,
  cache: Awaited<ReturnType<typeof readCache>>,
  index: NoteContext['index'],
  batch: FileInfo[],
) {
  const { store, clock } = ctx;
  const kept: IndexEntry[] = [];
  const toParse: { info: FileInfo; firstSeen: number }[] = [];
  for (const info of batch) {
    // Size and mtime are compared before anything of the entry is parsed (snapshot-cache.ts).
    const cached = cache && keptEntry(cache, info);
    if (cached && index.search.has(info.path)) {
      kept.push(cached);
    } else {
      const firstSeen = cache && firstSeenOf(cache, info.path);
      toParse.push({ info, firstSeen: firstSeen ?? Math.min(clock.now(), info.mtimeMs) });
    }
  }
  if (!toParse.length) return { kept, toParse, bytes: [], texts: [], sums: [], analyses: [] };
  const paths = toParse.map((t) => t.info.path);
  // A store that reads many files at once does (the fs store: small files synchronously).
  const read = store.readMany
    ? await store.readMany(paths)
    : await Promise.all(paths.map((p) => store.read(p)));
  const bytes = read.map((b) => b ?? new Uint8Array());
  const texts = bytes.map(decode);
  // With the paths, a threaded analyzer gives the search terms too. Sent first: the
  // hashes are made meanwhile (at once where the runtime can, else by crypto.subtle).
  const analyzing = ctx.analyzeBatch(texts, paths);
  // Awaited below; should the hashing throw first, its failure must not count as unhandled.
  analyzing.catch(() => {});
  const [sums, analyses] = await Promise.all([
    Promise.all(bytes.map((b) => sha256HexNow(b) ?? sha256Hex(b))),
    analyzing,
  ]);
  return { kept, toParse, bytes, texts, sums, analyses };
}

/**
 * Indexes the vault, reusing the cache for files whose size and mtime did not change. Reads and
 * hashes of a batch run together (no per-note await chain); entries join the link graph in one
 * pass at the end. `onProgress` is called after each batch.
 */
export async function loadVault(
  ctx: NoteContext,
  onProgress?: (done: number, total: number) => void,
  opts: { watch?: boolean } = {},
): Promise<void> {
  const { store, logger, clock } = ctx;
  await ctx.mutex.run(async () => {
    await ctx.saving;
    // The snapshot (and its journal) is what the index was at the last save, not the vault: it only
    // spares reading and parsing the notes whose size and mtime the walk below finds unchanged.
    // Nothing is answered from it before the walk (docs/reference/note-index.md, "The warm start").
    // Read beside the walk (one walk for notes, folders and the vault's other files where the store
    // can): the walk's stats and the snapshot's reads overlap.
    const [cache, listing] = await Promise.all([readCache(ctx), listForLoad(store, ctx.files, logger, opts)]);
    const { notes: listed, folders, files: attachments } = listing;
    const files = listed.filter((f) => {
      try {
        // A path the snapshot holds was checked when it was indexed.
        if (!cache?.entries.has(f.path)) validateNotePath(f.path);
        return true;
      } catch {
        logger?.warn('skipping a file whose path is not a valid note path');
        return false;
      }
    });
    const index = await indexFromCache(cache?.search, ctx.pause);
    ctx.index = index;
    ctx.clearNoteCache();
    // With a snapshot to journal against, the notes this load re-parses or drops are journaled;
    // without one (a cold index), the first save writes a whole snapshot.
    ctx.cache = cache ? { gen: cache.gen, journaled: cache.journaled } : null;
    index.track(cache !== null);
    ctx.status = { state: 'indexing', done: 0, total: files.length };
    ctx.indexingSince = clock.now();
    const present = new Set(files.map((f) => f.path));
    let removed = 0;
    for (const p of cache?.entries.keys() ?? []) {
      if (!present.has(p)) {
        index.search.remove(p);
        index.markChanged(p);
        // Removed while the server was down: kept in the trash as the watcher would have.
        await ctx.history?.goneOutside(p, 'note');
        removed++;
      }
    }
    for (const folder of folders) index.addFolder(folder);
    // The vault's other files first, so that links to them resolve in the one pass below.
    const filePaths = attachments ? attachments.map((f) => f.path) : [];
    if (attachments) index.files(filePaths, []);
    const loaded: IndexEntry[] = [];
    let reused = 0;
    const prepare = (i: number) => prepareBatch(ctx, cache, index, files.slice(i, i + BATCH));
    const ahead: ReturnType<typeof prepare>[] = [];
    const queue = (i: number) => {
      if (i >= files.length) return;
      const p = prepare(i);
      // Awaited in its turn; until then a failure must not count as unhandled.
      p.catch(() => {});
      ahead.push(p);
    };
    for (let k = 0; k < AHEAD; k++) queue(k * BATCH);
    let slice = performance.now();
    for (let i = 0; i < files.length; i += BATCH) {
      // A warm start parses few notes: the loop itself yields to the event loop every few ms.
      if (performance.now() - slice > LOAD_SLICE_MS) {
        await yieldToEventLoop();
        slice = performance.now();
      }
      const { kept, toParse, bytes, texts, sums, analyses } = await ahead.shift()!;
      queue(i + AHEAD * BATCH);
      for (const entry of kept) loaded.push(entry);
      reused += kept.length;
      if (toParse.length) {
        for (const [j, t] of toParse.entries()) {
          const a = analyses[j]!;
          const entry = toEntry(t.info.path, t.info, sums[j]!, a, t.firstSeen);
          // Written or changed while the server was down: its bytes are kept in the history now, as
          // the watcher keeps an outside edit, or a later removal would trash an older version.
          // A no-op when the history's newest version has this checksum.
          if (cache && ctx.history) await ctx.history.keepBefore(entry.path, bytes[j]!, sums[j]!);
          if (a.terms) index.search.putTerms(entry.path, a.terms);
          else
            index.search.put(
              searchDocOf(entry, noteTitle(entry.path, entry.titleExplicit), a.text, texts[j]),
            );
          index.markChanged(entry.path);
          loaded.push(entry);
        }
        ctx.dirty = true;
      }
      ctx.status.done = Math.min(files.length, i + BATCH);
      onProgress?.(ctx.status.done, files.length);
    }
    // The vault is parsed: an analyzer's threads are not needed for the rest.
    ctx.analyzeBatch.loadDone?.();
    // Joined to the index a few hundred notes a step, yielding every few ms (`sliced`).
    for await (const _ of sliced(index.putManySteps(loaded, resolvedFor(cache, files, filePaths, loaded))));
    if (cache && cache.entries.size !== files.length) ctx.dirty = true;
    // What the warm path spared: the operator's (and the stop tests') sign that the snapshot was used.
    if (cache)
      logger?.info('vault checked against the index snapshot', {
        notes: files.length,
        reused,
        parsed: files.length - reused,
        removed,
      });
    ctx.status = { state: 'ready', done: files.length, total: files.length };
  });
  // What the bulk load left for later (the link graph's notes by link key: link-graph.ts), in
  // slices while the index serves: the first answers (the first list: every summary built and cut)
  // come first, so the map is built once no request is in flight, SETTLE_WAIT_MS after ready at the
  // latest (at 100,000 notes the first list is built for about 8 s after ready; the map beside it
  // made it later and the process larger); a write meanwhile builds it at once. `load()` and the
  // lifecycle's `ready` (the watcher's adoption with them: it reports every change since the walk,
  // none is lost) resolve after it. A change feed's open request does not count as one in flight
  // (deploy/node/server.ts).
  await settled(ctx);
  for await (const _ of sliced(ctx.index.graph.refsSteps()));
}

type WarmCache = ReturnType<typeof parseIndexCache> | BinaryCache;

/** The cached entry of `info.path` when its size and mtime are the file's (a snapshot row is parsed only then). */
function keptEntry(cache: NonNullable<WarmCache>, info: FileInfo): IndexEntry | undefined {
  if ('notePaths' in cache) return cache.entries.kept(info.path, info.size, info.mtimeMs);
  const e = cache.entries.get(info.path);
  return e && e.size === info.size && e.mtimeMs === info.mtimeMs ? e : undefined;
}

/** When the cache first saw `path` (undefined: it does not hold it). */
const firstSeenOf = (cache: NonNullable<WarmCache>, path: string): number | undefined =>
  'notePaths' in cache ? cache.entries.firstSeen(path) : cache.entries.get(path)?.firstSeen;

/**
 * The index cache: the binary snapshot where the store reads byte ranges, else the JSON one (Workers
 * KV); null when there is none, or it is damaged (the vault is indexed cold; nothing damaged is
 * ever trusted). A store that reads byte ranges never reads a JSON cache (none was ever released).
 */
async function readCache(ctx: NoteContext): Promise<WarmCache> {
  const { state, logger } = ctx;
  if (!state) return null;
  if (canHoldBinary(state)) {
    const size = await state.byteSize(SNAPSHOT_KEY);
    if (size === null) return null;
    try {
      return await readBinaryCache(state, size, JOURNAL_KEY, ctx.pause);
    } catch (err) {
      logger?.warn('ignoring a damaged index snapshot: the vault is indexed again', {
        error: err instanceof Error ? err.message : String(err),
      });
      return null;
    }
  }
  const [snapshot, journal] = await Promise.all([
    state.get(CACHE_KEY),
    state.append ? state.get(JOURNAL_KEY) : null,
  ]);
  return parseIndexCache(snapshot, journal);
}

/**
 * The snapshot's link resolutions, when the vault's notes and files are exactly those it was taken
 * of (a resolution depends on nothing else): each entry as the snapshot holds it keeps them; an
 * entry re-read or journaled since resolves again. Otherwise every link resolves again.
 */
function resolvedFor(
  cache: WarmCache,
  files: readonly FileInfo[],
  filePaths: readonly string[],
  loaded: readonly IndexEntry[],
): ((i: number) => (string | null)[] | null) | undefined {
  if (!cache || !('notePaths' in cache)) return undefined;
  if (files.length !== cache.notePaths.size || filePaths.length !== cache.files.length) return undefined;
  for (const f of files) if (!cache.notePaths.has(f.path)) return undefined;
  const known = new Set(cache.files);
  for (const f of filePaths) if (!known.has(f)) return undefined;
  return (i) => cache.resolved(loaded[i]!);
}

/**
 * Resolves once the search index's lists are in memory (a binary snapshot's are read on first
 * use). When they cannot be read or fail their check, the snapshot is dropped and the vault
 * indexed again (never a crash, never a wrong answer).
 */
export async function searchReady(ctx: NoteContext): Promise<void> {
  const index = ctx.index;
  if (index.search.loaded) return;
  try {
    await index.search.ready();
  } catch (err) {
    let again = rebuilding.get(ctx);
    if (!again) {
      ctx.logger?.warn("the index snapshot's search lists are damaged: the vault is indexed again", {
        error: err instanceof Error ? err.message : String(err),
      });
      again = (async () => {
        await ctx.state?.remove(SNAPSHOT_KEY);
        if (ctx.index === index) await loadVault(ctx);
      })().finally(() => rebuilding.delete(ctx));
      rebuilding.set(ctx, again);
    }
    await again;
    await ctx.index.search.ready();
  }
}
const rebuilding = new WeakMap<NoteContext, Promise<void>>();

/**
 * Writes the index cache when anything changed since the last save, never under the write lock
 * and never in a step longer than a few ms: writes go on meanwhile.
 *
 * - Usually it appends the notes changed since the last save to the journal (work proportional
 *   to them).
 * - When there is no snapshot yet, the journal has grown past half the vault, or the store cannot
 *   append, it writes a new snapshot: a picture of the index taken at once (no entry or posting
 *   list is copied; they are never changed in place), serialized in slices with a yield between
 *   them, written piece by piece to a temporary file and renamed; then the journal restarts under
 *   the snapshot's generation. Changes made meanwhile are journaled by the next save.
 * - First, with or without a cache, the search index's upkeep when it asks for it: removed notes'
 *   postings swept out once their bytes are many, the vocabulary rebuilt once stale, in steps.
 * A failed save makes the next one write a whole snapshot.
 */
export function saveCache(ctx: NoteContext): Promise<boolean> {
  const run = ctx.saving.then(() => saveNow(ctx));
  ctx.saving = run.catch(() => {});
  return run;
}

async function saveNow(ctx: NoteContext): Promise<boolean> {
  // Dead postings swept out by their bytes and the vocabulary rebuilt, a step at a time; with or
  // without a cache to save (docs/reference/search.md, Memory).
  if (ctx.status.state === 'ready' && ctx.index.search.needsUpkeep) {
    for await (const _ of sliced(ctx.index.search.upkeep()));
  }
  const state = ctx.state;
  if (!state || !ctx.dirty || ctx.status.state !== 'ready') return false;
  const index = ctx.index;
  ctx.dirty = false;
  const cache = ctx.cache;
  const journalMax = Math.max(1000, index.entries.size / 2);
  const journalOnly =
    !!state.append && !!cache && !ctx.snapshotNeeded && cache.journaled + index.changes <= journalMax;
  // A binary snapshot's search lists are read on first use: a new snapshot needs them.
  if (!journalOnly && !index.search.loaded) {
    try {
      await index.search.ready();
    } catch {
      ctx.dirty = true;
      // Dropped and rebuilt once this save is over (the load waits for it).
      void searchReady(ctx).catch(() => {});
      return false;
    }
  }
  if (journalOnly && state.append && cache) {
    const records = index.takeChanges();
    if (!records.length) return false;
    try {
      // Turned into text a slice at a time and written in pieces of about 1 MB, so no step, string
      // or write is vault-sized even after a burst of changes.
      let piece: string[] = [];
      let size = 0;
      for await (const record of sliced(records)) {
        const line = journalLine(record);
        piece.push(line);
        size += line.length;
        if (size > 1 << 20) {
          await state.append(JOURNAL_KEY, piece.join(''));
          piece = [];
          size = 0;
        }
      }
      if (piece.length) await state.append(JOURNAL_KEY, piece.join(''));
      cache.journaled += records.length;
    } catch (err) {
      ctx.dirty = true;
      ctx.snapshotNeeded = true;
      throw err;
    }
    return true;
  }
  // A generation never used before, even by a cache written elsewhere (e.g. `quire index`): a
  // leftover journal can never match a new snapshot by chance.
  // Before a snapshot: removed notes' postings out, or the lists' unused buffer space given back.
  for await (const _ of sliced(index.search.sweep()));
  const gen = Math.max((cache?.gen ?? 0) + 1, ctx.clock.now());
  const binary = canHoldBinary(state);
  const capture = binary ? index.captureSnapshot(gen) : index.capture(gen);
  // Changes from here on are journaled under the new generation (by the next save).
  index.track(true);
  try {
    if (binary) {
      await state.putBytes(
        SNAPSHOT_KEY,
        sliced(snapshotBytes(capture as ReturnType<typeof index.captureSnapshot>)),
      );
    } else {
      const pieces = sliced(snapshotParts(capture));
      if (state.putPieces) await state.putPieces(CACHE_KEY, pieces);
      else {
        const all: string[] = [];
        for await (const p of pieces) all.push(p);
        await state.put(CACHE_KEY, all.join(''));
      }
    }
    if (state.append) await state.put(JOURNAL_KEY, journalHeader(gen));
    if (ctx.index === index) {
      ctx.cache = { gen, journaled: 0 };
      ctx.snapshotNeeded = false;
    }
  } catch (err) {
    ctx.dirty = true;
    ctx.snapshotNeeded = true;
    throw err;
  }
  return true;
}

/** Applies changes made outside the server (from the store's watcher). */
/** An outside edit of a note keeps its new bytes as a version; an outside delete trashes the last one. */
async function keepOutsideChange(history: History, ctx: NoteContext, path: string, there: boolean) {
  if (!there) {
    await history.goneOutside(path, 'note');
    return;
  }
  const bytes = await ctx.store.read(path);
  if (bytes) await history.record(path, bytes, 'outside', 'outside');
}

/** The same for an attachment (within the history's size limit), through the file store. */
async function keepOutsideFile(history: History, ctx: NoteContext, path: string, removed: boolean) {
  const info = removed ? null : await ctx.files?.stat(path);
  if (!info) {
    if (removed) await history.goneOutside(path, 'file');
    return;
  }
  const stream = history.keepsFile(info.size) ? await ctx.files?.read?.(path) : null;
  // Kept only when the history does not have these bytes as the newest version already: the
  // watcher also sees the server's own uploads and deletes (the files service takes no note lock,
  // so its version may be recorded before or after this), and they must not come back as "outside".
  if (stream) await history.keepBefore(path, new Uint8Array(await new Response(stream).arrayBuffer()));
}

export function applyExternalChanges(ctx: NoteContext, changes: StoreChange[]): Promise<void> {
  const { store, logger } = ctx;
  return ctx.mutex.run(async () => {
    if (ctx.status.state !== 'ready') return;
    for (const ch of changes) {
      try {
        if (ch.kind === 'folder-removed') {
          const prefix = `${ch.path}/`;
          for (const p of [...ctx.index.entries.keys()]) {
            if (p.startsWith(prefix) && !(await store.stat(p))) {
              ctx.dropEntry(p);
              ctx.emit({ type: 'deleted', path: p, external: true });
            }
          }
          ctx.index.removeFolder(ch.path);
          const gone: string[] = [];
          for (const f of ctx.index.graph.filesUnder(ch.path)) if (!(await ctx.files?.stat(f))) gone.push(f);
          const changed = ctx.index.files([], gone);
          if (changed.size) ctx.invalidate(changed);
          continue;
        }
        if (!ch.path.toLowerCase().endsWith('.md')) {
          if (ctx.history) await keepOutsideFile(ctx.history, ctx, ch.path, ch.kind === 'removed');
          // Another file of the vault: links to it re-resolve.
          const there = ch.kind !== 'removed' && ctx.files ? await ctx.files.stat(ch.path) : null;
          const changed = ctx.index.files(there ? [ch.path] : [], there ? [] : [ch.path]);
          if (changed.size) ctx.invalidate(changed);
          continue;
        }
        const path = validateNotePath(ch.path);
        const before = ctx.index.entries.get(path);
        const beforeSum = before?.checksum;
        const after = await ctx.refresh(path, true);
        if (after === before && after?.checksum === beforeSum) continue;
        // Gone before and after (e.g. the watcher reporting the old path of our own move).
        if (!before && !after) continue;
        if (ctx.history) await keepOutsideChange(ctx.history, ctx, path, after !== null);
        if (!after) ctx.emit({ type: 'deleted', path, external: true });
        else ctx.emit({ type: before ? 'updated' : 'created', path, external: true });
      } catch (err) {
        logger?.warn('could not apply an outside change', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  });
}

/**
 * Compares the whole store with the index (size and mtime) and applies every difference.
 * Catches changes a watcher missed (e.g. made while it was starting). Returns how many.
 */
export async function reconcile(ctx: NoteContext): Promise<number> {
  if (ctx.status.state !== 'ready') return 0;
  // One walk for notes and other files where the store can.
  const listed = await listForReconcile(ctx.store, ctx.files);
  const files = listed.notes;
  const seen = new Set<string>();
  const changes: StoreChange[] = [];
  for (const f of files) {
    seen.add(f.path);
    const e = ctx.index.entries.get(f.path);
    if (!e || e.size !== f.size || e.mtimeMs !== f.mtimeMs) changes.push({ path: f.path, kind: 'changed' });
  }
  for (const p of ctx.index.entries.keys()) if (!seen.has(p)) changes.push({ path: p, kind: 'removed' });
  if (listed.files) {
    const present = new Set<string>();
    for (const f of listed.files) {
      present.add(f.path);
      if (!ctx.index.graph.hasFile(f.path)) changes.push({ path: f.path, kind: 'changed' });
    }
    for (const p of ctx.index.graph.filesUnder(''))
      if (!present.has(p)) changes.push({ path: p, kind: 'removed' });
  }
  if (changes.length) await applyExternalChanges(ctx, changes);
  return changes.length;
}
