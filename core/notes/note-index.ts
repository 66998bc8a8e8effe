import { isKnownFileType } from '../files/content-types.ts';
import { dirname } from '../paths.ts';
import { createLinkGraph, distinctLinks, isFileName, type LinkRef } from './link-graph.ts';
import type { MarkdownAnalysis } from './markdown/remark.ts';
import { createSearchIndex, type SearchIndex, type SerializedSearch } from './search.ts';
import { noteTitle } from './title.ts';

/** What the index keeps of one note (no body text). */
export interface IndexEntry {
  path: string;
  size: number;
  mtimeMs: number;
  checksum: string;
  /** Title from frontmatter or first H1; null means the file name. */
  titleExplicit: string | null;
  tags: string[];
  links: LinkRef[];
  wordCount: number;
  /** Frontmatter `created` (ISO) when valid. */
  created: string | null;
  /** When the server first saw this file, ms since epoch. */
  firstSeen: number;
  warnings: string[];
  frontmatter: Record<string, unknown>;
  bodyStart: number;
}

/** Link element of a note summary. */
export interface NoteLink {
  target: string;
  path: string | null;
  kind: LinkRef['kind'];
  /** What the link points at: a note, or another file of the vault (an attachment). */
  type: 'note' | 'file';
  heading?: string;
  alias?: string;
}

/** Item of `GET /notes`. */
export interface NoteSummary {
  path: string;
  title: string;
  tags: string[];
  links: NoteLink[];
  backlinks: { path: string; title: string }[];
  wordCount: number;
  createdAt: string;
  updatedAt: string;
  checksum: string;
}

/**
 * A link's `type`: what it resolved to; unresolved, a file when its target ends in an extension
 * of the attachment type table (core/files/content-types.ts), else a note.
 */
function linkType(l: { target: string; path: string | null }): NoteLink['type'] {
  if (l.path !== null) return l.path.toLowerCase().endsWith('.md') ? 'note' : 'file';
  return isFileName(l.target) && isKnownFileType(l.target) ? 'file' : 'note';
}

/** Builds an index entry from a file's facts and its analysis. */
export function toEntry(
  path: string,
  info: { size: number; mtimeMs: number },
  checksum: string,
  a: MarkdownAnalysis,
  firstSeen: number,
): IndexEntry {
  return {
    path,
    size: info.size,
    mtimeMs: info.mtimeMs,
    checksum,
    titleExplicit: a.title,
    tags: a.tags,
    links: distinctLinks(a.links),
    wordCount: a.wordCount,
    created: a.created,
    firstSeen,
    warnings: a.warnings,
    frontmatter: a.frontmatter,
    bodyStart: a.bodyStart,
  };
}

/**
 * 3: the search index is nested as JSON (2 held it as a string of JSON, escaped twice).
 * 4: the index parse reads Obsidian's comments and block ids as nothing, and keeps links and images
 * to files (issue 22): entries cached by 3 would miss those.
 */
const CACHE_VERSION = 4;

/**
 * The in-memory index: entries, link graph, search index and folder set. Pure and
 * synchronous; the note service does the I/O.
 */
export function createNoteIndex(serializedSearch?: string | SerializedSearch | null) {
  const entries = new Map<string, IndexEntry>();
  const graph = createLinkGraph();
  const search: SearchIndex = createSearchIndex(serializedSearch);
  const folders = new Set<string>();
  /** Summaries stay valid until their note, its links or its backlinks change. */
  const summaries = new Map<string, NoteSummary>();
  let sorted: string[] | null = null;
  let generation = 0;
  /** Running total of the notes' sizes, so health never walks the vault. */
  let bytes = 0;
  const forget = (paths: Iterable<string>) => {
    for (const p of paths) summaries.delete(p);
    return paths;
  };

  const addFolders = (path: string) => {
    for (let d = dirname(path); d !== '' && !folders.has(d); d = dirname(d)) folders.add(d);
  };
  const titleOf = (path: string): string => {
    return noteTitle(path, entries.get(path)?.titleExplicit);
  };

  return {
    entries: entries as ReadonlyMap<string, IndexEntry>,
    folders: folders as ReadonlySet<string>,
    graph,
    search,
    titleOf,

    /** Changes whenever anything visible in a summary changes. */
    get generation(): number {
      return generation;
    },

    /** Sum of every indexed note's size in bytes, kept up to date by each change. */
    get bytes(): number {
      return bytes;
    },

    /** Adds or replaces an entry; `text` (when given) refreshes the search index. */
    put(entry: IndexEntry, text?: string): Set<string> {
      const old = entries.get(entry.path);
      if (!old) sorted = null;
      bytes += entry.size - (old?.size ?? 0);
      entries.set(entry.path, entry);
      addFolders(entry.path);
      if (text !== undefined) {
        search.put({ path: entry.path, title: titleOf(entry.path), tags: entry.tags.join(' '), text });
      }
      generation++;
      return forget(graph.set(entry.path, entry.links)) as Set<string>;
    },

    /** Adds many new entries at once (a vault being loaded); the search index is fed separately. */
    putMany(list: readonly IndexEntry[]): void {
      for (const e of list) {
        bytes += e.size - (entries.get(e.path)?.size ?? 0);
        entries.set(e.path, e);
        addFolders(e.path);
      }
      sorted = null;
      summaries.clear();
      generation++;
      graph.load(list.map((e) => [e.path, e.links] as const));
    },

    /** Removes an entry. Returns the paths whose links or backlinks changed. */
    remove(path: string): Set<string> {
      const old = entries.get(path);
      if (!old) return new Set();
      entries.delete(path);
      bytes -= old.size;
      sorted = null;
      search.remove(path);
      generation++;
      summaries.delete(path);
      return forget(graph.remove(path)) as Set<string>;
    },

    /** Records a new size and mtime for unchanged content (the file was touched). */
    touch(path: string, info: { size: number; mtimeMs: number }): void {
      const e = entries.get(path);
      if (!e) return;
      bytes += info.size - e.size;
      e.size = info.size;
      e.mtimeMs = info.mtimeMs;
      summaries.delete(path);
      generation++;
    },

    /**
     * Tells the index which of the vault's other files (attachments) were added and removed:
     * links naming them re-resolve. Returns the notes whose links or backlinks changed.
     */
    files(added: readonly string[], removed: readonly string[]): Set<string> {
      const changed = graph.removeFiles(removed);
      for (const p of graph.addFiles(added)) changed.add(p);
      if (changed.size) generation++;
      return forget(changed) as Set<string>;
    },

    /** Every note path, sorted; the same array until a note is added or removed. */
    sortedPaths(): readonly string[] {
      sorted ??= [...entries.keys()].sort();
      return sorted;
    },

    addFolder(path: string): void {
      if (path) {
        folders.add(path);
        addFolders(`${path}/x`);
      }
    },

    removeFolder(path: string): void {
      for (const f of [...folders]) if (f === path || f.startsWith(`${path}/`)) folders.delete(f);
    },

    /** The summary of one note as the API shows it. */
    summary(path: string): NoteSummary | null {
      const cached = summaries.get(path);
      if (cached) return cached;
      const e = entries.get(path);
      if (!e) return null;
      const s: NoteSummary = {
        path: e.path,
        title: titleOf(e.path),
        tags: e.tags,
        links: graph.linksOf(e.path).map((l) => {
          const out: NoteLink = { target: l.target, path: l.path, kind: l.kind, type: linkType(l) };
          if (l.heading !== undefined) out.heading = l.heading;
          if (l.alias !== undefined) out.alias = l.alias;
          return out;
        }),
        backlinks: graph.backlinksOf(e.path).map((p) => ({ path: p, title: titleOf(p) })),
        wordCount: e.wordCount,
        createdAt: new Date(e.created ? Date.parse(e.created) : e.firstSeen).toISOString(),
        updatedAt: new Date(e.mtimeMs).toISOString(),
        checksum: e.checksum,
      };
      summaries.set(path, s);
      return s;
    },

    /** Serializes entries and the search index for a warm restart. */
    serialize(): string {
      return [...this.serializeParts()].join('');
    },

    /**
     * The cache's JSON in pieces of a few hundred entries or a few thousand search terms, so the
     * caller can yield to the event loop between them (the save never blocks requests for long).
     * Do not change the index while iterating (the note service holds its write lock).
     */
    *serializeParts(): Generator<string> {
      yield `{"v":${CACHE_VERSION},"entries":[`;
      let batch: IndexEntry[] = [];
      let first = true;
      for (const e of entries.values()) {
        batch.push(e);
        if (batch.length === 512) {
          yield (first ? '' : ',') + JSON.stringify(batch).slice(1, -1);
          first = false;
          batch = [];
        }
      }
      if (batch.length) yield (first ? '' : ',') + JSON.stringify(batch).slice(1, -1);
      yield '],"search":';
      yield* search.serializeParts();
      yield '}';
    },
  };
}

export type NoteIndex = ReturnType<typeof createNoteIndex>;

/** Reads a cache written by `serialize`; null when absent, of another version, or corrupt. */
export function parseIndexCache(
  text: string | null,
): { entries: Map<string, IndexEntry>; search: SerializedSearch } | null {
  if (!text) return null;
  try {
    const data = JSON.parse(text) as { v?: number; entries?: IndexEntry[]; search?: SerializedSearch };
    const s = data.search;
    if (data.v !== CACHE_VERSION || !Array.isArray(data.entries) || !s || !Array.isArray(s.docs) || !s.terms)
      return null;
    return { entries: new Map(data.entries.map((e) => [e.path, e])), search: s };
  } catch {
    return null;
  }
}
