import { DomainError } from '../errors.ts';
import { validateNotePath } from '../paths.ts';
import type { StoreChange } from '../ports.ts';
import { runSearch, type SearchHit, type Visibility } from '../search/lexical/index.ts';
import {
  createNoteContext,
  decode,
  type Note,
  type NoteContext,
  type NoteEvent,
  type NoteServiceDeps,
} from './context.ts';
import { createIndexViews } from './index-views.ts';
import type { See } from './link-graph.ts';
import { applyExternalChanges, loadVault, reconcile, saveCache, searchReady } from './loading.ts';
import { withoutHidden } from './markdown/parts.ts';
import type { NoteSummary } from './note-index.ts';
import { type FolderNode, folderTree } from './tree.ts';
import { settled } from './warm-start.ts';
import { createWrites } from './writes.ts';

export type { BatchAnalyzer, Note, NoteEvent, NoteServiceDeps } from './context.ts';
export { ifMatchHolds } from './if-match.ts';
export type { FolderNode } from './tree.ts';

/**
 * One note with its body and frontmatter. On a cache miss the file is read once; when its size
 * and mtime match the index, nothing is re-hashed or re-parsed.
 */
async function readNote(ctx: NoteContext, pathInput: unknown): Promise<Note> {
  const { store, mutex } = ctx;
  ctx.requireReady();
  const path = validateNotePath(pathInput);
  const cached = ctx.cachedNote(path);
  if (cached) return cached;
  const got = store.readWithInfo
    ? await store.readWithInfo(path)
    : await Promise.all([store.stat(path), store.read(path)]).then(([i, b]) =>
        i && b ? { info: i, bytes: b } : null,
      );
  const info = got?.info ?? null;
  const bytes = got?.bytes ?? null;
  const entry = ctx.index.entries.get(path);
  if (info && bytes && entry && entry.size === info.size && entry.mtimeMs === info.mtimeMs) {
    if (bytes.length === entry.size) {
      const note = ctx.buildNote(entry, decode(bytes));
      ctx.cacheNote(note);
      return note;
    }
  }
  // Unknown, gone, or edited outside the server and not yet seen by the watcher.
  const fresh = await mutex.run(async () => {
    const before = ctx.index.entries.get(path);
    const beforeSum = before?.checksum;
    const after = await ctx.refresh(
      path,
      true,
      info && bytes ? { info: { ...info, size: bytes.length }, bytes } : undefined,
    );
    // An outside change read here first: the watcher will then find the index current and
    // say nothing, so it is kept and told here as the watcher would have.
    if ((before || after) && (after !== before || after?.checksum !== beforeSum)) {
      if (ctx.history && after && bytes) await ctx.history.record(path, bytes, 'outside', 'outside');
      else if (ctx.history && !after) await ctx.history.goneOutside(path, 'note');
      ctx.emit({ type: !after ? 'deleted' : before ? 'updated' : 'created', path, external: true });
    }
    return after;
  });
  if (!fresh || !bytes) throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
  return ctx.buildNote(fresh, decode(bytes));
}

/**
 * The note service: every read and write of notes, their index, link graph and search.
 * Writes are serialized; reads never wait for the disk when the note is cached. The parts live
 * beside this file: `context.ts` (shared state, index refresh), `loading.ts` (cold and warm
 * start, cache, outside changes), `writes.ts`, `tree.ts`.
 */
export function createNoteService(deps: NoteServiceDeps) {
  const ctx = createNoteContext(deps);
  const { store, mutex } = ctx;

  return {
    /** Indexing state, for health. O(1): the byte total is kept up to date by every change. */
    status: () => ({ ...ctx.status, notes: ctx.index.entries.size, bytes: ctx.index.bytes }),
    /** The index's own bytes, estimated: kept for 30 s while the index changes. */
    memory: () => ctx.index.memory(ctx.clock.now()),

    /**
     * The indexed summary of the note at `path`, without touching the disk (an invalid path is
     * simply not indexed); null when it is not indexed or the vault is being indexed. The same
     * object until the note, its links or its backlinks change: callers may key caches on it.
     */
    indexedSummary(path: string): NoteSummary | null {
      return ctx.status.state === 'ready' ? ctx.index.summary(path) : null;
    },

    /**
     * `s` as a key that sees only `see` reads it: links resolved among the paths it sees (a hidden
     * note neither wins nor shows), backlinks from the notes it sees. The view of core/auth/scoped.ts.
     */
    seenAs<T extends NoteSummary>(s: T, see: See): T {
      return ctx.index.seenAs(s, see);
    },

    /** The checksum the index holds for `path`, or null. */
    checksumOf(path: string): string | null {
      return ctx.index.entries.get(path)?.checksum ?? null;
    },

    /** Listens to note events; returns an unsubscribe function. */
    subscribe(fn: (e: NoteEvent) => void): () => void {
      ctx.listeners.add(fn);
      return () => ctx.listeners.delete(fn);
    },

    /**
     * Indexes the vault, reusing the cache for files whose size and mtime did not change.
     * `onProgress` is called after each batch.
     */
    // The history's index first: every runtime loads the vault through here (the
    // lifecycle calls this, not the core's load), and a write must find the versions kept before.
    // `watch`: the caller watches the store next (the lifecycle), so the load's walk arms it.
    load: async (
      onProgress?: (done: number, total: number) => void,
      opts?: { watch?: boolean },
    ): Promise<void> => {
      await ctx.history?.load();
      await loadVault(ctx, onProgress, opts);
    },

    /** Waits for every write already started to finish. */
    drain(): Promise<void> {
      // Then the history's lines still gathering (a lazy version) reach the disk.
      return mutex.run(async () => {}).then(() => ctx.history?.flush());
    },

    /** Writes the index cache when anything changed since the last save. */
    saveCache: (): Promise<boolean> => saveCache(ctx),

    /**
     * Resolves once the host answered no request for a short spell, SETTLE_WAIT_MS at most (at
     * once where the host tells nothing): the timed saves wait for it, so that a save does not
     * share the thread with an answer being built (a large vault's first list takes seconds).
     */
    settle: (): Promise<void> => settled(ctx),

    /**
     * One note with its body and frontmatter. On a cache miss the file is read once; when its size
     * and mtime match the index, nothing is re-hashed or re-parsed.
     */
    get: (pathInput: unknown): Promise<Note> => readNote(ctx, pathInput),

    ...createIndexViews(ctx),

    ...createWrites(ctx),

    /**
     * The bytes of the note at `pathInput` as the file holds them (frontmatter included), read now;
     * null when there is none. For live editing, whose document is the whole file.
     */
    raw: async (pathInput: unknown): Promise<Uint8Array | null> => {
      ctx.requireReady();
      return store.read(validateNotePath(pathInput));
    },

    /** The history (versions and trash) when the service keeps one; null otherwise. */
    history: ctx.history ?? null,

    /**
     * Runs `fn` with the writes it starts credited to `by` (`key:<name>`, `mcp:<client>`, `agent`,
     * `plugin:<id>`): a write reads the actor when it is called, so `fn` must call it directly.
     */
    withActor<T>(by: string, fn: () => T): T {
      const prev = ctx.actor;
      ctx.actor = by;
      try {
        return fn();
      } finally {
        ctx.actor = prev;
      }
    },

    /** The subtree of a folder ('' is the vault root). */
    tree(folderInput: unknown): FolderNode {
      ctx.requireReady();
      return folderTree(ctx.index, folderInput);
    },

    /**
     * Ranked search over notes (title, aliases, headings, folder and file names, tags, body) and
     * attachments' file names, in the query syntax of docs/reference/search.md; bad syntax reads as words.
     * `opts.see`: only the paths it accepts exist for this search (a folder-limited key's view),
     * ranked as a vault holding only them would rank them. `q` and `limit` (1 to 100) are checked
     * where they come in (core/search/schemas.ts).
     */
    async search(q: string, limit = 20, opts: { see?: Visibility } = {}): Promise<SearchHit[]> {
      ctx.requireReady();
      // A binary snapshot's search lists are read on the first search.
      if (!ctx.index.search.loaded) await searchReady(ctx);
      const index = ctx.index;
      return runSearch(
        index,
        async (path) => {
          const bytes = await store.read(path);
          const entry = index.entries.get(path);
          // Comments and block ids are not words of the note: never in a snippet either.
          return bytes && entry ? withoutHidden(decode(bytes), entry.bodyStart) : '';
        },
        q,
        limit,
        opts.see,
      );
    },

    /**
     * Compares the whole store with the index (size and mtime) and applies every difference.
     * Catches changes a watcher missed (e.g. made while it was starting). Returns how many.
     */
    reconcile: (): Promise<number> => reconcile(ctx),

    /** Applies changes made outside the server (from the store's watcher). */
    applyExternalChanges: (changes: StoreChange[]): Promise<void> => applyExternalChanges(ctx, changes),
  };
}

export type NoteService = ReturnType<typeof createNoteService>;
