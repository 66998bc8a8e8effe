/** Index loading and refresh: the cold or warm start, the cache save, and outside changes. */
import { sha256Hex } from '../crypto.ts';
import { validateNotePath } from '../paths.ts';
import type { FileInfo, StoreChange } from '../ports.ts';
import { decode, type NoteContext } from './context.ts';
import { createNoteIndex, type IndexEntry, parseIndexCache, toEntry } from './note-index.ts';
import { noteTitle } from './title.ts';

export const CACHE_KEY = 'index-cache.json';
/** Notes read, hashed and parsed together: enough to keep the disk busy, small enough to yield often. */
const BATCH = 128;

/**
 * Indexes the vault, reusing the cache for files whose size and mtime did not change. Reads and
 * hashes of a batch run together (no per-note await chain); entries join the link graph in one
 * pass at the end. `onProgress` is called after each batch.
 */
export function loadVault(
  ctx: NoteContext,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const { store, state, logger, clock } = ctx;
  return ctx.mutex.run(async () => {
    // The vault's other files are listed alongside the notes (a second walk, in parallel).
    const attachments = ctx.files?.list().catch((err: unknown) => {
      logger?.warn('could not list the vault files; links to them stay unresolved until the reconcile', {
        error: err instanceof Error ? err.message : String(err),
      });
      return [];
    });
    const cache = parseIndexCache(state ? await state.get(CACHE_KEY) : null);
    const files = (await store.list()).filter((f) => {
      try {
        validateNotePath(f.path);
        return true;
      } catch {
        logger?.warn('skipping a file whose path is not a valid note path');
        return false;
      }
    });
    const index = createNoteIndex(cache?.search);
    ctx.index = index;
    ctx.clearNoteCache();
    ctx.status = { state: 'indexing', done: 0, total: files.length };
    ctx.indexingSince = clock.now();
    const present = new Set(files.map((f) => f.path));
    for (const p of cache?.entries.keys() ?? []) if (!present.has(p)) index.search.remove(p);
    for (const folder of await store.listFolders()) index.addFolder(folder);
    // The vault's other files first, so that links to them resolve in the one pass below.
    if (attachments)
      index.files(
        (await attachments).map((f) => f.path),
        [],
      );
    const loaded: IndexEntry[] = [];
    for (let i = 0; i < files.length; i += BATCH) {
      const toParse: { info: FileInfo; firstSeen: number }[] = [];
      for (const info of files.slice(i, i + BATCH)) {
        const cached = cache?.entries.get(info.path);
        if (
          cached &&
          cached.size === info.size &&
          cached.mtimeMs === info.mtimeMs &&
          index.search.has(info.path)
        ) {
          loaded.push(cached);
        } else {
          toParse.push({ info, firstSeen: cached?.firstSeen ?? Math.min(clock.now(), info.mtimeMs) });
        }
      }
      if (toParse.length) {
        const bytes = await Promise.all(
          toParse.map(async (t) => (await store.read(t.info.path)) ?? new Uint8Array()),
        );
        const [sums, analyses] = await Promise.all([
          Promise.all(bytes.map((b) => sha256Hex(b))),
          ctx.analyzeBatch(bytes.map(decode)),
        ]);
        for (const [j, t] of toParse.entries()) {
          const a = analyses[j]!;
          const entry = toEntry(t.info.path, t.info, sums[j]!, a, t.firstSeen);
          index.search.put({
            path: entry.path,
            title: noteTitle(entry.path, entry.titleExplicit),
            tags: entry.tags.join(' '),
            text: a.text,
          });
          loaded.push(entry);
        }
        ctx.dirty = true;
      }
      ctx.status.done = Math.min(files.length, i + BATCH);
      onProgress?.(ctx.status.done, files.length);
    }
    index.putMany(loaded);
    if (cache && cache.entries.size !== files.length) ctx.dirty = true;
    ctx.status = { state: 'ready', done: files.length, total: files.length };
  });
}

/** Longest run of serialization between two yields to the event loop, in ms. */
const SAVE_SLICE_MS = 8;

/**
 * Writes the index cache when anything changed since the last save. The JSON is built in pieces
 * with a yield to the event loop every few ms, so reads keep being answered; writes wait (the
 * save holds the write lock, so the cache is one consistent picture of the index).
 */
export function saveCache(ctx: NoteContext): Promise<boolean> {
  const state = ctx.state;
  if (!state || !ctx.dirty || ctx.status.state !== 'ready') return Promise.resolve(false);
  return ctx.mutex.run(async () => {
    if (!ctx.dirty || ctx.status.state !== 'ready') return false;
    ctx.dirty = false;
    const parts: string[] = [];
    let slice = performance.now();
    for (const part of ctx.index.serializeParts()) {
      parts.push(part);
      if (performance.now() - slice > SAVE_SLICE_MS) {
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        slice = performance.now();
      }
    }
    try {
      await state.put(CACHE_KEY, parts.join(''));
    } catch (err) {
      ctx.dirty = true;
      throw err;
    }
    return true;
  });
}

/** Applies changes made outside the server (from the store's watcher). */
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
  const files = await ctx.store.list();
  const seen = new Set<string>();
  const changes: StoreChange[] = [];
  for (const f of files) {
    seen.add(f.path);
    const e = ctx.index.entries.get(f.path);
    if (!e || e.size !== f.size || e.mtimeMs !== f.mtimeMs) changes.push({ path: f.path, kind: 'changed' });
  }
  for (const p of ctx.index.entries.keys()) if (!seen.has(p)) changes.push({ path: p, kind: 'removed' });
  if (ctx.files) {
    const present = new Set<string>();
    for (const f of await ctx.files.list()) {
      present.add(f.path);
      if (!ctx.index.graph.hasFile(f.path)) changes.push({ path: f.path, kind: 'changed' });
    }
    for (const p of ctx.index.graph.filesUnder(''))
      if (!present.has(p)) changes.push({ path: p, kind: 'removed' });
  }
  if (changes.length) await applyExternalChanges(ctx, changes);
  return changes.length;
}
