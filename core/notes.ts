import { stringify as stringifyYaml } from 'yaml';
import { sha256Hex } from './crypto.ts';
import { DomainError } from './errors.ts';
import { rewriteLinks } from './link-rewrite.ts';
import { analyzeMarkdown, type MarkdownAnalysis, splitFrontmatter } from './markdown.ts';
import { createMutex } from './mutex.ts';
import {
  createNoteIndex,
  type IndexEntry,
  type NoteSummary,
  parseIndexCache,
  toEntry,
} from './note-index.ts';
import { basename, stem, validateFolderPath, validateNotePath } from './paths.ts';
import type { Clock, FileInfo, Logger, NoteStore, StateStore, StoreChange } from './ports.ts';
import { makeSnippet, type SearchHit } from './search.ts';

/** A whole note as `GET /notes/:path` returns it. */
export interface Note extends NoteSummary {
  /** The body without the frontmatter block. */
  content: string;
  frontmatter: Record<string, unknown>;
  /** Problems found in this note (invalid YAML, odd tags); absent when there are none. */
  warnings?: string[];
}

/** A node of the folder tree. */
export interface FolderNode {
  name: string;
  path: string;
  type: 'folder';
  noteCount: number;
  children: (FolderNode | { name: string; path: string; type: 'note'; title: string })[];
}

/** What happened to a note; plugins and channels subscribe to these. */
export type NoteEvent =
  | { type: 'created' | 'updated' | 'deleted'; path: string; external: boolean }
  | { type: 'moved'; path: string; from: string; external: boolean };

/** Parses many notes at once; lets a runtime spread the work over threads. */
export type BatchAnalyzer = (texts: string[]) => Promise<MarkdownAnalysis[]>;

export interface NoteServiceDeps {
  store: NoteStore;
  clock: Clock;
  /** Where the index cache lives; without it every start re-parses the vault. */
  state?: StateStore;
  logger?: Logger;
  analyze?: BatchAnalyzer;
  /** Most notes kept parsed in memory for fast reads (default 2,000). */
  noteCacheSize?: number;
}

const CACHE_KEY = 'index-cache.json';
const decoder = new TextDecoder();
const encoder = new TextEncoder();

const decode = (bytes: Uint8Array): string => {
  const s = decoder.decode(bytes);
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
};

/** True when an `If-Match` header value matches `checksum`. */
export function ifMatchHolds(ifMatch: string | undefined, checksum: string): boolean {
  if (ifMatch === undefined) return true;
  return ifMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .some((t) => t === '*' || t === checksum);
}

/**
 * The note service: every read and write of notes, their index, link graph and search.
 * Writes are serialized; reads never wait for the disk when the note is cached.
 */
export function createNoteService(deps: NoteServiceDeps) {
  const { store, clock, state, logger } = deps;
  const analyzeBatch: BatchAnalyzer = deps.analyze ?? (async (texts) => texts.map(analyzeMarkdown));
  const mutex = createMutex();
  const noteCache = new Map<string, Note>();
  const noteCacheSize = deps.noteCacheSize ?? 2000;
  const listeners = new Set<(e: NoteEvent) => void>();
  let index = createNoteIndex();
  let status: { state: 'idle' | 'indexing' | 'ready'; done: number; total: number } = {
    state: 'idle',
    done: 0,
    total: 0,
  };
  let dirty = false;
  let list: { generation: number; items: NoteSummary[] } | null = null;

  const emit = (e: NoteEvent) => {
    for (const fn of listeners) {
      try {
        fn(e);
      } catch (err) {
        logger?.warn('note event listener failed', { error: String(err) });
      }
    }
  };
  const invalidate = (paths: Iterable<string>) => {
    for (const p of paths) noteCache.delete(p);
    dirty = true;
  };
  const requireReady = () => {
    if (status.state !== 'ready') {
      throw new DomainError(
        'NOT_READY',
        `The vault is still being indexed (${status.done}/${status.total}).`,
      );
    }
  };

  /** Parses bytes and puts the note into the index. */
  const indexBytes = async (
    path: string,
    bytes: Uint8Array,
    info: FileInfo,
    keepFirstSeen?: number,
  ): Promise<IndexEntry> => {
    const text = decode(bytes);
    const [analysis] = await analyzeBatch([text]);
    const old = index.entries.get(path);
    const firstSeen = keepFirstSeen ?? old?.firstSeen ?? Math.min(clock.now(), info.mtimeMs);
    const entry = toEntry(path, info, await sha256Hex(bytes), analysis!, firstSeen);
    invalidate(index.put(entry, analysis!.text));
    return entry;
  };

  const dropEntry = (path: string) => {
    invalidate(index.remove(path));
    noteCache.delete(path);
  };

  /**
   * Makes sure the index agrees with the store for `path`; returns the entry or null.
   * With `force`, the bytes are compared even when size and mtime look unchanged.
   */
  const refresh = async (path: string, force = false): Promise<IndexEntry | null> => {
    const info = await store.stat(path);
    const entry = index.entries.get(path);
    if (!info) {
      if (entry) dropEntry(path);
      return null;
    }
    if (!force && entry && entry.size === info.size && entry.mtimeMs === info.mtimeMs) return entry;
    const bytes = await store.read(path);
    if (!bytes) return null;
    if (entry && entry.checksum === (await sha256Hex(bytes))) {
      index.touch(path, info);
      invalidate([path]);
      return entry;
    }
    return indexBytes(path, bytes, info);
  };

  const buildNote = (entry: IndexEntry, text: string): Note => {
    const note: Note = {
      ...index.summary(entry.path)!,
      content: text.slice(entry.bodyStart),
      frontmatter: entry.frontmatter,
    };
    if (entry.warnings.length) note.warnings = entry.warnings;
    return note;
  };

  const cacheNote = (note: Note) => {
    noteCache.delete(note.path);
    noteCache.set(note.path, note);
    if (noteCache.size > noteCacheSize) {
      const oldest = noteCache.keys().next().value;
      if (oldest !== undefined) noteCache.delete(oldest);
    }
  };

  const readCurrent = async (path: string): Promise<{ bytes: Uint8Array; checksum: string }> => {
    const bytes = await store.read(path);
    if (!bytes) throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
    return { bytes, checksum: await sha256Hex(bytes) };
  };

  /** Composes the file text from a body, optional frontmatter, and the block to keep. */
  const compose = (content: string, frontmatter: unknown, keepBlock: string): string => {
    const hasOwn = splitFrontmatter(content).block !== '';
    if (frontmatter !== undefined) {
      if (hasOwn) {
        throw new DomainError(
          'VALIDATION_ERROR',
          'Give the frontmatter either inside "content" or in "frontmatter", not both.',
        );
      }
      const fm = frontmatter as Record<string, unknown>;
      return Object.keys(fm).length ? `---\n${stringifyYaml(fm)}---\n${content}` : content;
    }
    return hasOwn ? content : keepBlock + content;
  };

  const writeAndIndex = async (path: string, text: string): Promise<Note> => {
    const bytes = encoder.encode(text);
    const info = await store.write(path, bytes);
    const entry = await indexBytes(path, bytes, info);
    const note = buildNote(entry, decode(bytes));
    cacheNote(note);
    return note;
  };

  return {
    /** Indexing state, for health. */
    status: () => {
      let bytes = 0;
      for (const e of index.entries.values()) bytes += e.size;
      return { ...status, notes: index.entries.size, bytes };
    },

    /** Listens to note events; returns an unsubscribe function. */
    subscribe(fn: (e: NoteEvent) => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },

    /**
     * Indexes the vault, reusing the cache for files whose size and mtime did not change.
     * `onProgress` is called after each batch.
     */
    load(onProgress?: (done: number, total: number) => void): Promise<void> {
      return mutex.run(async () => {
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
        index = createNoteIndex(cache?.search);
        noteCache.clear();
        status = { state: 'indexing', done: 0, total: files.length };
        const present = new Set(files.map((f) => f.path));
        for (const p of cache?.entries.keys() ?? []) if (!present.has(p)) index.search.remove(p);
        for (const folder of await store.listFolders()) index.addFolder(folder);
        const BATCH = 64;
        // Entries go into the index together at the end: the link graph resolves in one pass.
        const loaded: IndexEntry[] = [];
        for (let i = 0; i < files.length; i += BATCH) {
          const batch = files.slice(i, i + BATCH);
          const toParse: { info: FileInfo; bytes: Uint8Array; firstSeen: number }[] = [];
          for (const info of batch) {
            const cached = cache?.entries.get(info.path);
            if (
              cached &&
              cached.size === info.size &&
              cached.mtimeMs === info.mtimeMs &&
              index.search.has(info.path)
            ) {
              loaded.push(cached);
            } else
              toParse.push({
                info,
                bytes: new Uint8Array(),
                firstSeen: cached?.firstSeen ?? Math.min(clock.now(), info.mtimeMs),
              });
          }
          await Promise.all(
            toParse.map(async (t) => {
              t.bytes = (await store.read(t.info.path)) ?? new Uint8Array();
            }),
          );
          const texts = toParse.map((t) => decode(t.bytes));
          const analyses = await analyzeBatch(texts);
          for (const [j, t] of toParse.entries()) {
            const a = analyses[j]!;
            const entry = toEntry(t.info.path, t.info, await sha256Hex(t.bytes), a, t.firstSeen);
            index.search.put({
              path: entry.path,
              title: entry.titleExplicit ?? stem(entry.path),
              tags: entry.tags.join(' '),
              text: a.text,
            });
            loaded.push(entry);
          }
          if (toParse.length) dirty = true;
          status.done = Math.min(files.length, i + BATCH);
          onProgress?.(status.done, files.length);
        }
        index.putMany(loaded);
        if (cache && cache.entries.size !== files.length) dirty = true;
        status = { state: 'ready', done: files.length, total: files.length };
      });
    },

    /** Waits for every write already started to finish. */
    drain(): Promise<void> {
      return mutex.run(async () => {});
    },

    /** Writes the index cache when anything changed since the last save. */
    async saveCache(): Promise<boolean> {
      if (!state || !dirty || status.state !== 'ready') return false;
      dirty = false;
      await state.put(CACHE_KEY, index.serialize());
      return true;
    },

    /** Every note's summary, sorted by path. Same array object until something changes. */
    list(): { generation: number; items: NoteSummary[] } {
      requireReady();
      if (list?.generation !== index.generation) {
        list = { generation: index.generation, items: index.sortedPaths().map((p) => index.summary(p)!) };
      }
      return list;
    },

    /** One note with its body and frontmatter. */
    async get(pathInput: unknown): Promise<Note> {
      requireReady();
      const path = validateNotePath(pathInput);
      const cached = noteCache.get(path);
      if (cached) return cached;
      const entry = index.entries.get(path) ?? (await mutex.run(() => refresh(path)));
      if (!entry) throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
      const bytes = await store.read(path);
      if (!bytes) {
        await mutex.run(() => refresh(path));
        throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
      }
      const checksum = await sha256Hex(bytes);
      if (checksum !== entry.checksum) {
        // Edited outside the server and not yet seen by the watcher.
        const fresh = await mutex.run(() => refresh(path));
        if (!fresh) throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
        return buildNote(fresh, decode((await store.read(path)) ?? bytes));
      }
      const note = buildNote(entry, decode(bytes));
      cacheNote(note);
      return note;
    },

    /** Creates a note; 409 when the path is taken. */
    create(pathInput: unknown, content: string, frontmatter?: Record<string, unknown>): Promise<Note> {
      requireReady();
      const path = validateNotePath(pathInput);
      return mutex.run(async () => {
        if (index.entries.has(path) || (await store.stat(path))) {
          throw new DomainError(
            'NOTE_ALREADY_EXISTS',
            `A note already exists at "${path}"; use PUT to change it.`,
          );
        }
        const note = await writeAndIndex(path, compose(content, frontmatter, ''));
        emit({ type: 'created', path, external: false });
        return note;
      });
    },

    /**
     * Replaces a note. Without `frontmatter`, and with no frontmatter block in `content`,
     * the existing block is kept byte for byte.
     */
    update(
      pathInput: unknown,
      input: { content: string; frontmatter?: Record<string, unknown> },
      ifMatch?: string,
    ): Promise<Note> {
      requireReady();
      const path = validateNotePath(pathInput);
      return mutex.run(async () => {
        const cur = await readCurrent(path);
        if (!ifMatchHolds(ifMatch, cur.checksum)) {
          throw new DomainError(
            'PRECONDITION_FAILED',
            'The note changed since you read it; reload and retry.',
            {
              checksum: cur.checksum,
            },
          );
        }
        const keep = splitFrontmatter(decode(cur.bytes)).block;
        const note = await writeAndIndex(path, compose(input.content, input.frontmatter, keep));
        emit({ type: 'updated', path, external: false });
        return note;
      });
    },

    /** Deletes a note for good. */
    remove(pathInput: unknown, ifMatch?: string): Promise<{ deleted: string }> {
      requireReady();
      const path = validateNotePath(pathInput);
      return mutex.run(async () => {
        const cur = await readCurrent(path);
        if (!ifMatchHolds(ifMatch, cur.checksum)) {
          throw new DomainError(
            'PRECONDITION_FAILED',
            'The note changed since you read it; reload and retry.',
          );
        }
        await store.remove(path);
        dropEntry(path);
        emit({ type: 'deleted', path, external: false });
        return { deleted: path };
      });
    },

    /**
     * Moves a note. With `updateLinks`, links to it in other notes are rewritten to the new place.
     * Returns the moved note and the paths of the notes that were rewritten.
     */
    move(
      fromInput: unknown,
      toInput: unknown,
      opts: { updateLinks?: boolean; ifMatch?: string } = {},
    ): Promise<{ note: Note; rewritten: string[] }> {
      requireReady();
      const from = validateNotePath(fromInput);
      const to = validateNotePath(toInput);
      return mutex.run(async () => {
        const cur = await readCurrent(from);
        if (!ifMatchHolds(opts.ifMatch, cur.checksum)) {
          throw new DomainError(
            'PRECONDITION_FAILED',
            'The note changed since you read it; reload and retry.',
          );
        }
        if (from === to) return { note: buildNote((await refresh(from))!, decode(cur.bytes)), rewritten: [] };
        if (index.entries.has(to) || (await store.stat(to))) {
          throw new DomainError('NOTE_ALREADY_EXISTS', `A note already exists at "${to}".`);
        }
        // Plan the rewrites against the graph as it is before the move.
        const plans: { path: string; text: string }[] = [];
        if (opts.updateLinks) {
          const sources = index.graph.backlinksOf(from).filter((p) => p !== from);
          const nameIsUnique = index.graph.stemCount(to) === (basename(to) === basename(from) ? 1 : 0);
          for (const src of sources) {
            const bytes = await store.read(src);
            if (!bytes) continue;
            const text = decode(bytes);
            const next = rewriteLinks(
              text,
              src,
              analyzeMarkdown(text).links,
              (l) => index.graph.resolve(src, l) === from,
              {
                to,
                nameIsUnique,
              },
            );
            if (next !== text) plans.push({ path: src, text: next });
          }
        }
        const info = await store.move(from, to);
        const old = index.entries.get(from);
        dropEntry(from);
        const entry = await indexBytes(to, cur.bytes, info, old?.firstSeen);
        for (const p of plans) await writeAndIndex(p.path, p.text);
        const note = buildNote(entry, decode(cur.bytes));
        emit({ type: 'moved', path: to, from, external: false });
        for (const p of plans) emit({ type: 'updated', path: p.path, external: false });
        return { note, rewritten: plans.map((p) => p.path) };
      });
    },

    /** The subtree of a folder ('' is the vault root). */
    tree(folderInput: unknown): FolderNode {
      requireReady();
      const folder = validateFolderPath(folderInput);
      if (folder !== '' && !index.folders.has(folder)) {
        throw new DomainError('FOLDER_NOT_FOUND', `No folder at "${folder}".`);
      }
      const root: FolderNode = {
        name: basename(folder),
        path: folder,
        type: 'folder',
        noteCount: 0,
        children: [],
      };
      const nodes = new Map<string, FolderNode>([[folder, root]]);
      const prefix = folder ? `${folder}/` : '';
      const ensure = (dir: string): FolderNode => {
        let n = nodes.get(dir);
        if (n) return n;
        const parentDir = dir.lastIndexOf('/') >= prefix.length ? dir.slice(0, dir.lastIndexOf('/')) : folder;
        const parent = ensure(parentDir);
        n = { name: basename(dir), path: dir, type: 'folder', noteCount: 0, children: [] };
        parent.children.push(n);
        nodes.set(dir, n);
        return n;
      };
      for (const f of [...index.folders].sort()) if (f.startsWith(prefix)) ensure(f);
      for (const p of [...index.entries.keys()].sort()) {
        if (!p.startsWith(prefix)) continue;
        const dir = p.lastIndexOf('/') >= 0 ? p.slice(0, p.lastIndexOf('/')) : '';
        ensure(dir).children.push({ name: basename(p), path: p, type: 'note', title: index.titleOf(p) });
      }
      const count = (n: FolderNode): number => {
        n.noteCount = 0;
        for (const c of n.children) n.noteCount += c.type === 'note' ? 1 : count(c);
        return n.noteCount;
      };
      count(root);
      const sort = (n: FolderNode) => {
        n.children.sort((a, b) =>
          a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'folder' ? -1 : 1,
        );
        for (const c of n.children) if (c.type === 'folder') sort(c);
      };
      sort(root);
      return root;
    },

    /** Full-text search over title, tags and body. */
    async search(q: unknown, limitInput?: unknown): Promise<SearchHit[]> {
      requireReady();
      if (typeof q !== 'string' || q.trim() === '') {
        throw new DomainError('VALIDATION_ERROR', 'Give a search query in "q".');
      }
      const limit = limitInput === undefined ? 20 : Number(limitInput);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        throw new DomainError('VALIDATION_ERROR', '"limit" must be an integer from 1 to 100.');
      }
      const hits = index.search.query(q.slice(0, 500), limit);
      const out: SearchHit[] = [];
      for (const h of hits) {
        const entry = index.entries.get(h.path);
        if (!entry) continue;
        const bytes = await store.read(h.path);
        const body = bytes ? decode(bytes).slice(entry.bodyStart) : '';
        out.push({
          path: h.path,
          title: index.titleOf(h.path),
          snippet: makeSnippet(body, h.terms),
          score: h.score,
          tags: entry.tags,
        });
      }
      return out;
    },

    /**
     * Compares the whole store with the index (size and mtime) and applies every difference.
     * Catches changes a watcher missed (e.g. made while it was starting). Returns how many.
     */
    async reconcile(): Promise<number> {
      if (status.state !== 'ready') return 0;
      const files = await store.list();
      const seen = new Set<string>();
      const changes: StoreChange[] = [];
      for (const f of files) {
        seen.add(f.path);
        const e = index.entries.get(f.path);
        if (!e || e.size !== f.size || e.mtimeMs !== f.mtimeMs)
          changes.push({ path: f.path, kind: 'changed' });
      }
      for (const p of index.entries.keys()) if (!seen.has(p)) changes.push({ path: p, kind: 'removed' });
      if (changes.length) await this.applyExternalChanges(changes);
      return changes.length;
    },

    /** Applies changes made outside the server (from the store's watcher). */
    applyExternalChanges(changes: StoreChange[]): Promise<void> {
      return mutex.run(async () => {
        if (status.state !== 'ready') return;
        for (const ch of changes) {
          try {
            if (ch.kind === 'folder-removed') {
              const prefix = `${ch.path}/`;
              for (const p of [...index.entries.keys()]) {
                if (p.startsWith(prefix) && !(await store.stat(p))) {
                  dropEntry(p);
                  emit({ type: 'deleted', path: p, external: true });
                }
              }
              index.removeFolder(ch.path);
              continue;
            }
            const path = validateNotePath(ch.path);
            const before = index.entries.get(path);
            const beforeSum = before?.checksum;
            const after = await refresh(path, true);
            if (after === before && after?.checksum === beforeSum) continue;
            if (!after) emit({ type: 'deleted', path, external: true });
            else emit({ type: before ? 'updated' : 'created', path, external: true });
          } catch (err) {
            logger?.warn('could not apply an outside change', {
              error: err instanceof Error ? err.message : String(err),
            });
          }
        }
      });
    },
  };
}

export type NoteService = ReturnType<typeof createNoteService>;
