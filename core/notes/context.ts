/**
 * The state the note service's parts share (store, index, note cache, listeners) and the index
 * refresh: putting one note's bytes into the index, and checking the index against the store.
 */
import { sha256Hex } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import type { History } from '../history/history.ts';
import { createMutex } from '../mutex.ts';
import type { Clock, FileInfo, FileStore, Logger, NoteStore, StateStore } from '../ports.ts';
import { type DocTerms, type PackedTerms, searchDocOf } from '../search/lexical/index.ts';
import { analyzeNote } from './markdown/analyzer.ts';
import type { MarkdownAnalysis } from './markdown/types.ts';
import type { Note } from './note.ts';
import { NoteCache } from './note-cache.ts';
import { createNoteIndex, type IndexEntry, toEntry } from './note-index.ts';
import { sliced, yieldToEventLoop } from './slices.ts';

export type { Note } from './note.ts';

/**
 * What happened to a note; plugins and channels subscribe to these. `by`: who wrote it (the actor
 * of a write through the service; absent for an outside change, which is `external`).
 */
export type NoteEvent =
  | { type: 'created' | 'updated' | 'deleted' | 'restored'; path: string; external: boolean; by?: string }
  | { type: 'moved'; path: string; from: string; external: boolean; by?: string };

/**
 * Parses many notes at once; lets a runtime spread the work over threads. With `paths` (one per
 * text: a load), an analyzer may also give each note's search terms (`noteTerms`, computed beside
 * the parse) and then leave `text` empty: the load's main thread neither tokenizes the vault nor
 * receives its plain text back.
 */
export type BatchAnalyzer = ((
  texts: string[],
  paths?: string[],
) => Promise<(MarkdownAnalysis & { terms?: DocTerms | PackedTerms })[]>) & {
  /**
   * Called when a load has parsed the whole vault: an analyzer with threads may stop them now
   * instead of after its idle time (their heaps are most of a cold start's memory beside the
   * index). The next batch starts them again.
   */
  loadDone?: () => void;
};

export interface NoteServiceDeps {
  store: NoteStore;
  clock: Clock;
  /** Where the index cache lives; without it every start re-parses the vault. */
  state?: StateStore;
  logger?: Logger;
  /** Parses the cold index, and single notes of 128 Ki characters or more (ordinary writes parse in place). */
  analyze?: BatchAnalyzer;
  /** Most notes kept parsed in memory for fast reads (default 2,000). */
  noteCacheSize?: number;
  /** Most bytes of note text kept in the note cache (default 32 MiB). */
  noteCacheBytes?: number;
  /**
   * The vault's other files (attachments): listed at load (and by `reconcile`) so that links and
   * embeds to them resolve. Without it, links to files stay unresolved until `filesChanged`.
   */
  files?: Pick<FileStore, 'list' | 'stat'> & Partial<Pick<FileStore, 'read' | 'vault'>>;
  /** Where every change keeps the version before it, and deleted notes go. */
  history?: History;
  /**
   * True while the host is answering requests: what a load leaves for later (the link map) and the
   * timed saves wait for a quiet spell, so the first answers after a start come first
   * (core/notes/warm-start.ts).
   */
  busy?: () => boolean;
  /** The longest such wait, in ms (default 1,000). */
  busyWaitMs?: number;
}

const decoder = new TextDecoder();
/** Notes at least this long are parsed through the batch analyzer (a thread, where the runtime has one). */
const LARGE_NOTE_CHARS = 128 * 1024;

/** UTF-8 bytes to text, without a leading byte-order mark. */
export const decode = (bytes: Uint8Array): string => {
  const s = decoder.decode(bytes);
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
};

/**
 * Where the index is: `starting` from the service's creation until its load begins, `indexing`
 * while the vault is walked and checked against the snapshot (or read whole), `ready` once the
 * index is the vault's (reads answer from it; before, they answer 503 NOT_READY).
 */
export type IndexStatus = { state: 'starting' | 'indexing' | 'ready'; done: number; total: number };

/** Seconds a client should wait for the index, from the progress so far (1 to 30). */
function retryAfterSeconds(status: IndexStatus, elapsedMs: number): number {
  // A warm start is ready within a second; a cold one has shown progress by the next ask.
  if (status.done <= 0 || elapsedMs <= 0) return 1;
  const perMs = status.done / elapsedMs;
  return Math.min(30, Math.max(1, Math.ceil((status.total - status.done) / perMs / 1000)));
}

/** Longest run of in-place parsing between two yields to the event loop, in ms. */
const PARSE_SLICE_MS = 8;

/**
 * Parses on the caller's thread (no search terms: the load makes them from the plain text), a
 * few ms at a time with a yield between: a load prepares batches ahead, and a batch
 * parsed whole in one turn would hold the event loop for the batch's time, two of them for twice.
 */
const inPlace: BatchAnalyzer = async (texts) => {
  const out: MarkdownAnalysis[] = [];
  let slice = performance.now();
  for (const t of texts) {
    out.push(analyzeNote(t));
    if (performance.now() - slice > PARSE_SLICE_MS) {
      await yieldToEventLoop();
      slice = performance.now();
    }
  }
  return out;
};

/** Builds the shared state of one note service. */
export function createNoteContext(deps: NoteServiceDeps) {
  const { store, clock, logger } = deps;
  const noteCache = new NoteCache(deps.noteCacheSize ?? 2000, deps.noteCacheBytes ?? 32 * 1024 * 1024);
  const listeners = new Set<(e: NoteEvent) => void>();

  const ctx = {
    store,
    clock,
    logger,
    state: deps.state,
    files: deps.files,
    history: deps.history,
    busy: deps.busy,
    busyWaitMs: deps.busyWaitMs ?? 1000,
    /** Who the write being started is for (set around the call by `withActor`, read at its entry). */
    actor: 'api',
    analyzeBatch: deps.analyze ?? inPlace,
    mutex: createMutex(),
    index: createNoteIndex(),
    status: { state: 'starting', done: 0, total: 0 } as IndexStatus,
    /** When the current indexing started (clock ms), for the Retry-After estimate. */
    indexingSince: 0,
    /** True when the index changed since the cache was last saved. */
    dirty: false,
    /** The snapshot on disk this index journals against, and how many lines its journal holds. */
    cache: null as { gen: number; journaled: number } | null,
    /** True after a failed save: the next one writes a whole snapshot. */
    snapshotNeeded: false,
    /** How a load yields between its slices. */
    pause: yieldToEventLoop,
    /** The save in progress (saves run one at a time, beside writes, never under the write lock). */
    saving: Promise.resolve() as Promise<unknown>,
    listeners,

    emit(e: NoteEvent): void {
      for (const fn of listeners) {
        try {
          fn(e);
        } catch (err) {
          logger?.warn('note event listener failed', { error: String(err) });
        }
      }
    },

    invalidate(paths: Iterable<string>): void {
      for (const p of paths) noteCache.drop(p);
      ctx.dirty = true;
    },

    clearNoteCache(): void {
      noteCache.clear();
    },

    cachedNote(path: string): Note | undefined {
      return noteCache.get(path);
    },

    /** Keeps a note for fast reads; the cache is bounded in notes and in bytes of text. */
    cacheNote(note: Note): void {
      noteCache.put(note);
    },

    /**
     * One note's analysis: in place for an ordinary note (work proportional to it, no hop), through
     * the batch analyzer for a large one, so a runtime with threads keeps the event loop free.
     * With `path`, a thread also makes the note's search terms (and sends no plain text back).
     */
    async analyzeOne(
      text: string,
      path?: string,
    ): Promise<MarkdownAnalysis & { terms?: DocTerms | PackedTerms }> {
      if (text.length < LARGE_NOTE_CHARS || !deps.analyze) return analyzeNote(text);
      const [a] = await deps.analyze([text], path === undefined ? undefined : [path]);
      return a ?? analyzeNote(text);
    },

    requireReady(): void {
      if (ctx.status.state !== 'ready') {
        // Notes routes answer 503 until the whole index is built (partial lists would show wrong
        // backlinks); health shows the progress, and Retry-After estimates the wait from it.
        throw new DomainError(
          'NOT_READY',
          `The vault is still being indexed (${ctx.status.done}/${ctx.status.total}).`,
          undefined,
          retryAfterSeconds(ctx.status, clock.now() - ctx.indexingSince),
        );
      }
    },

    /** Parses text and puts the note into the index (work proportional to this note). */
    async indexText(
      path: string,
      text: string,
      checksum: string,
      info: FileInfo,
      keepFirstSeen?: number,
    ): Promise<IndexEntry> {
      const analysis = await ctx.analyzeOne(text, path);
      const old = ctx.index.entries.get(path);
      const firstSeen = keepFirstSeen ?? old?.firstSeen ?? Math.min(clock.now(), info.mtimeMs);
      if (text.length < LARGE_NOTE_CHARS) {
        const entry = toEntry(path, info, checksum, analysis, firstSeen);
        ctx.invalidate(ctx.index.put(entry, analysis.text, text));
        return entry;
      }
      return indexLargeNote(ctx, path, text, checksum, info, analysis, firstSeen);
    },

    indexBytes(path: string, bytes: Uint8Array, info: FileInfo, keepFirstSeen?: number): Promise<IndexEntry> {
      return sha256Hex(bytes).then((sum) => ctx.indexText(path, decode(bytes), sum, info, keepFirstSeen));
    },

    dropEntry(path: string): void {
      ctx.invalidate(ctx.index.remove(path));
      noteCache.drop(path);
    },

    /**
     * Makes sure the index agrees with the store for `path`; returns the entry or null. With
     * `force`, the bytes are compared even when size and mtime look unchanged. `known` passes
     * what the caller already read (info and bytes), so the file is read once.
     */
    refresh(
      path: string,
      force = false,
      known?: { info: FileInfo; bytes: Uint8Array },
    ): Promise<IndexEntry | null> {
      return refreshEntry(ctx, path, force, known);
    },

    buildNote(entry: IndexEntry, text: string): Note {
      const note: Note = {
        ...ctx.index.summary(entry.path)!,
        content: text.slice(entry.bodyStart),
        frontmatter: entry.frontmatter,
      };
      if (entry.warnings.length) note.warnings = entry.warnings;
      return note;
    },
  };
  return ctx;
}

export type NoteContext = ReturnType<typeof createNoteContext>;

/**
 * A large note (a 2 MB note of 200,000 links rewritten by a move) is indexed in three steps with
 * a turn of the event loop between them, so no one step holds the loop for all of them: its entry
 * (distinct links), the entry and its links in the graph, its words for search. The write lock
 * is held throughout; searches meanwhile see the note as it was.
 */
async function indexLargeNote(
  ctx: NoteContext,
  path: string,
  text: string,
  checksum: string,
  info: FileInfo,
  analysis: MarkdownAnalysis & { terms?: DocTerms | PackedTerms },
  firstSeen: number,
): Promise<IndexEntry> {
  await yieldToEventLoop();
  const entry = toEntry(path, info, checksum, analysis, firstSeen);
  await yieldToEventLoop();
  ctx.invalidate(ctx.index.put(entry));
  await yieldToEventLoop();
  // Its words in steps too (a 4 MiB note of distinct words is seconds of work in one go),
  // from the terms a thread made when there is one (the main thread then neither tokenizes
  // the body nor holds its half million words as strings at once).
  const source = analysis.terms ?? searchDocOf(entry, ctx.index.titleOf(path), analysis.text, text);
  for await (const _ of sliced(ctx.index.search.putSteps(path, source)));
  // A save may have taken the index's changes between the steps: mark the note changed
  // again, so the journal's next record of it carries its new words.
  ctx.index.markChanged(path);
  ctx.dirty = true;
  return entry;
}

/**
 * Makes sure the index agrees with the store for `path`; returns the entry or null. With
 * `force`, the bytes are compared even when size and mtime look unchanged. `known` passes
 * what the caller already read (info and bytes), so the file is read once.
 */
async function refreshEntry(
  ctx: NoteContext,
  path: string,
  force: boolean,
  known: { info: FileInfo; bytes: Uint8Array } | undefined,
): Promise<IndexEntry | null> {
  const info = known?.info ?? (await ctx.store.stat(path));
  const entry = ctx.index.entries.get(path);
  if (!info) {
    if (entry) ctx.dropEntry(path);
    return null;
  }
  if (!force && entry && entry.size === info.size && entry.mtimeMs === info.mtimeMs) return entry;
  const bytes = known?.bytes ?? (await ctx.store.read(path));
  if (!bytes) return null;
  const sum = await sha256Hex(bytes);
  if (entry && entry.checksum === sum) {
    ctx.index.touch(path, info);
    ctx.invalidate([path]);
    return entry;
  }
  return ctx.indexText(path, decode(bytes), sum, info);
}
