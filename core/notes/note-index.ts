import { isKnownFileType } from '../files/content-types.ts';
import { dirname } from '../paths.ts';
import {
  createSearchIndex,
  type DocTerms,
  type LazySearch,
  type SearchCapture,
  type SearchIndex,
  type SerializedSearch,
  searchDocOf,
  serializeSearchParts,
} from '../search/lexical/index.ts';
import type { IndexEntry } from './index-entry.ts';
import { internAll, internValues } from './intern.ts';
import { createLinkGraph, distinctLinks, isFileName, type LinkRef, type See } from './link-graph.ts';
import type { MarkdownAnalysis } from './markdown/types.ts';
import type { SnapshotCapture } from './snapshot.ts';
import { noteTitle } from './title.ts';

export type { IndexEntry } from './index-entry.ts';

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
    // Strings many notes share are kept once (core/notes/intern.ts); `distinctLinks` does the links.
    tags: internAll(a.tags),
    links: distinctLinks(a.links),
    wordCount: a.wordCount,
    created: a.created,
    firstSeen,
    warnings: internAll(a.warnings),
    frontmatter: internValues(a.frontmatter),
    bodyStart: a.bodyStart,
  };
}

/**
 * 5: search postings hold stems (English), stop words only from titles and other short fields,
 * and each posting's value is `body tf * 16 + field bits` (title/alias, heading, path, tag); docs
 * carry their title's word count. Caches of 4 are rebuilt (their words are not stems).
 * 4: the index parse reads Obsidian's comments and block ids as nothing and keeps links and images
 * to files (entries cached by 3 would miss those); and the cache is a snapshot (`index-cache.json`: entries, search postings as varint lists in base64, and a
 * generation) plus a journal of the notes changed since (`index-journal.log`, one JSON line each,
 * headed by the snapshot's generation). 3 held the postings as JSON numbers and had no journal.
 */
export const CACHE_VERSION = 5;

/** The index's own bytes, estimated (`health` → `index.bytes`). */
export interface IndexMemory {
  /** Note table: entries, their paths, checksums, tags and links, frontmatter; folders. */
  notes: number;
  /** Link graph: resolutions, backlinks, name maps. */
  links: number;
  /** Search index: doc table, terms and their posting lists. */
  search: number;
  /** Summaries cached for lists (built on the first full list, kept until their note changes). */
  summaries: number;
  total: number;
}
/** How long an estimate of the index's bytes is reused while the index changes. */
const MEMORY_TTL_MS = 30_000;

/** A consistent picture of the index for a snapshot; taken synchronously, written later in pieces. */
export interface IndexCapture {
  gen: number;
  entries: IndexEntry[];
  search: SearchCapture;
}

/**
 * The in-memory index: entries, link graph, search index and folder set. Pure and
 * synchronous; the note service does the I/O.
 */
export class NoteIndex {
  private readonly entryMap = new Map<string, IndexEntry>();
  private readonly folderSet = new Set<string>();
  readonly entries: ReadonlyMap<string, IndexEntry> = this.entryMap;
  readonly folders: ReadonlySet<string> = this.folderSet;
  readonly graph = createLinkGraph();
  readonly search: SearchIndex;
  /** Summaries stay valid until their note, its links or its backlinks change. */
  private readonly summaries = new Map<string, NoteSummary>();
  private sorted: string[] | null = null;
  private gen = 0;
  /** Running total of the notes' sizes, so health never walks the vault. */
  private byteTotal = 0;
  /** Paths whose entry changed since the last `takeChanges` (null while not tracked). */
  private changed: Set<string> | null = null;
  private memo: { at: number; generation: number; swept: number; value: IndexMemory } | null = null;
  /** Running totals for the memory estimate: characters of the notes' paths, and their links. */
  private pathTotal = 0;
  private linkTotal = 0;

  constructor(serializedSearch?: string | SerializedSearch | LazySearch | null) {
    this.search = createSearchIndex(serializedSearch);
  }

  /** The title of a note (bound: it is passed around). */
  readonly titleOf = (path: string): string => noteTitle(path, this.entryMap.get(path)?.titleExplicit);

  private forget(paths: Set<string>): Set<string> {
    for (const p of paths) this.summaries.delete(p);
    return paths;
  }

  private addFolders(path: string): void {
    const folders = this.folderSet;
    for (let d = dirname(path); d !== '' && !folders.has(d); d = dirname(d)) folders.add(d);
  }

  /** Counts an entry replacing `was` (none: a new note) in the running totals. */
  private count(e: IndexEntry, was: IndexEntry | undefined): void {
    this.byteTotal += e.size - (was?.size ?? 0);
    if (!was) this.pathTotal += e.path.length;
    this.linkTotal += e.links.length - (was?.links.length ?? 0);
  }

  /** Changes whenever anything visible in a summary changes. */
  get generation(): number {
    return this.gen;
  }

  /** Sum of every indexed note's size in bytes, kept up to date by each change. */
  get bytes(): number {
    return this.byteTotal;
  }

  /**
   * The index's own bytes, estimated (`health` shows them): the note table, the link
   * graph, the search index and the cached summaries. Strings many notes share are interned, so
   * they are not counted per note. Notes, links and summaries come from running counts; the search
   * part walks the terms (no allocation), so the answer is kept for `MEMORY_TTL_MS` while the index
   * changes.
   */
  memory(now = Date.now()): IndexMemory {
    const memo = this.memo;
    // A sweep of the search lists changes the figure too (the notes stay the same).
    if (
      memo &&
      ((memo.generation === this.gen && memo.swept === this.search.swept) || now - memo.at < MEMORY_TTL_MS)
    )
      return memo.value;
    // From running counts (notes, path characters, links, cached summaries): no walk of the
    // entries. Constants calibrated against the heap V8 reports for the generated 10,000-note
    // vault (bench/results/2026-11-26-memory.md): an entry with its strings, tags, links and frontmatter; its
    // records in the graph's maps; a summary with its link and backlink objects.
    const size = this.entryMap.size;
    const notes = size * 600 + this.pathTotal + this.linkTotal * 64;
    const links = size * 480 + this.pathTotal * 3 + this.linkTotal * 72;
    const cached = this.summaries.size * 1160;
    const searchBytes = this.search.approxBytes();
    const folderBytes = this.folderSet.size * 96;
    const value: IndexMemory = {
      notes: notes + folderBytes,
      links,
      search: searchBytes,
      summaries: cached,
      total: notes + folderBytes + links + searchBytes + cached,
    };
    this.memo = { at: now, generation: this.gen, swept: this.search.swept, value };
    return value;
  }

  /** Adds or replaces an entry; `text` (when given) refreshes the search index (`raw` gives its headings). */
  put(entry: IndexEntry, text?: string, raw?: string): Set<string> {
    const old = this.entryMap.get(entry.path);
    if (!old) this.sorted = null;
    this.count(entry, old);
    this.entryMap.set(entry.path, entry);
    this.changed?.add(entry.path);
    this.addFolders(entry.path);
    if (text !== undefined) {
      this.search.put(searchDocOf(entry, this.titleOf(entry.path), text, raw));
    }
    this.gen++;
    return this.forget(this.graph.set(entry.path, entry.links));
  }

  /**
   * Adds many new entries at once (a vault being loaded); the search index is fed separately.
   * `resolved(i)`: where the links of `list[i]` point when known (a snapshot of the same notes and
   * files), so they are not resolved again.
   */
  putMany(list: readonly IndexEntry[], resolved?: (i: number) => (string | null)[] | null | undefined): void {
    for (const _ of this.putManySteps(list, resolved));
  }

  /** `putMany` a few hundred notes a step (the caller may yield to the event loop between steps). */
  *putManySteps(
    list: readonly IndexEntry[],
    resolved?: (i: number) => (string | null)[] | null | undefined,
  ): Generator<void> {
    for (let i = 0; i < list.length; i++) {
      const e = list[i]!;
      this.count(e, this.entryMap.get(e.path));
      this.entryMap.set(e.path, e);
      this.addFolders(e.path);
      if ((i & 1023) === 1023) yield;
    }
    this.sorted = null;
    this.summaries.clear();
    this.gen++;
    yield* this.graph.loadSteps(
      list.map((e) => [e.path, e.links] as const),
      resolved,
    );
  }

  /** Removes an entry. Returns the paths whose links or backlinks changed. */
  remove(path: string): Set<string> {
    const old = this.entryMap.get(path);
    if (!old) return new Set();
    this.entryMap.delete(path);
    this.changed?.add(path);
    this.byteTotal -= old.size;
    this.pathTotal -= old.path.length;
    this.linkTotal -= old.links.length;
    this.sorted = null;
    this.search.remove(path);
    this.gen++;
    this.summaries.delete(path);
    return this.forget(this.graph.remove(path));
  }

  /** Records a new size and mtime for unchanged content (the file was touched). */
  touch(path: string, info: { size: number; mtimeMs: number }): void {
    const e = this.entryMap.get(path);
    if (!e) return;
    this.byteTotal += info.size - e.size;
    // A new object: entries are never changed in place, so a capture of them stays consistent.
    this.entryMap.set(path, { ...e, size: info.size, mtimeMs: info.mtimeMs });
    this.changed?.add(path);
    this.summaries.delete(path);
    this.gen++;
  }

  /**
   * Tells the index which of the vault's other files (attachments) were added and removed:
   * links naming them re-resolve. Returns the notes whose links or backlinks changed.
   */
  files(added: readonly string[], removed: readonly string[]): Set<string> {
    const changed = this.graph.removeFiles(removed);
    for (const p of this.graph.addFiles(added)) changed.add(p);
    if (changed.size) this.gen++;
    return this.forget(changed);
  }

  /** Every note path, sorted; the same array until a note is added or removed. */
  sortedPaths(): readonly string[] {
    this.sorted ??= [...this.entryMap.keys()].sort();
    return this.sorted;
  }

  addFolder(path: string): void {
    if (path) {
      this.folderSet.add(path);
      this.addFolders(`${path}/x`);
    }
  }

  removeFolder(path: string): void {
    for (const f of [...this.folderSet]) if (f === path || f.startsWith(`${path}/`)) this.folderSet.delete(f);
  }

  /**
   * `s` (this index's summary or note) as a key that sees only `see` reads it: each link
   * resolved among the paths it sees, its backlinks those it sees (core/auth/scoped.ts). The
   * same object when nothing differs.
   */
  seenAs<T extends NoteSummary>(s: T, see: See): T {
    let links: NoteLink[] | null = null;
    for (let i = 0; i < s.links.length; i++) {
      const l = s.links[i]!;
      if (l.path === null || see(l.path)) continue;
      // A hidden winner: the link resolves anew among the visible paths (none: unresolved).
      const path = this.graph.resolve(s.path, l, see);
      links ??= s.links.slice();
      links[i] = { ...l, path, type: linkType({ target: l.target, path }) };
    }
    const anew = this.graph.backlinksSeen(s.path, see);
    let backlinks: NoteSummary['backlinks'] | null = null;
    if (anew) backlinks = anew.map((p) => ({ path: p, title: this.titleOf(p) }));
    else if (s.backlinks.some((b) => !see(b.path))) backlinks = s.backlinks.filter((b) => see(b.path));
    if (!links && !backlinks) return s;
    return { ...s, links: links ?? s.links, backlinks: backlinks ?? s.backlinks };
  }

  /** The summary of one note as the API shows it. */
  summary(path: string): NoteSummary | null {
    const cached = this.summaries.get(path);
    if (cached) return cached;
    const e = this.entryMap.get(path);
    if (!e) return null;
    const resolved = this.graph.resolutionsOf(e.path);
    const s: NoteSummary = {
      path: e.path,
      title: this.titleOf(e.path),
      tags: e.tags,
      links: resolved.links.map((l, i) => {
        const path = resolved.paths[i] ?? null;
        const out: NoteLink = {
          target: l.target,
          path,
          kind: l.kind,
          type: linkType({ target: l.target, path }),
        };
        if (l.heading !== undefined) out.heading = l.heading;
        if (l.alias !== undefined) out.alias = l.alias;
        return out;
      }),
      backlinks: this.graph.backlinksOf(e.path).map((p) => ({ path: p, title: this.titleOf(p) })),
      wordCount: e.wordCount,
      createdAt: new Date(e.created ? Date.parse(e.created) : e.firstSeen).toISOString(),
      updatedAt: new Date(e.mtimeMs).toISOString(),
      checksum: e.checksum,
    };
    this.summaries.set(path, s);
    return s;
  }

  /**
   * Starts recording changed notes (and their words) for the journal; off while there is no
   * snapshot to journal against (a cold index is saved whole).
   */
  track(on: boolean): void {
    this.changed = on ? new Set() : null;
    this.search.track(on);
  }

  /** Records that `path` changed outside `put` and `remove` (a load's bulk pass). */
  markChanged(path: string): void {
    this.changed?.add(path);
  }

  /** How many notes changed since the last `takeChanges` (0 while not tracked). */
  get changes(): number {
    return this.changed?.size ?? 0;
  }

  /**
   * The notes changed since the last call, as their journal records (the entry and words as they
   * are now: entries are never changed in place, so a record stays true while it waits to be
   * written), and forgets those changes. Work proportional to the changed notes; `journalLine`
   * turns a record into text.
   */
  takeChanges(): JournalRecord[] {
    if (!this.changed) return [];
    const out: JournalRecord[] = [];
    for (const p of this.changed) {
      const e = this.entryMap.get(p);
      const terms = this.search.termsOf(p);
      out.push(e ? (terms ? [p, e, terms] : [p, e]) : [p]);
    }
    this.changed.clear();
    this.search.clearTracked();
    return out;
  }

  /**
   * A consistent picture for a snapshot of generation `gen`: work proportional to the number of
   * notes and terms (no entry or posting list is copied: neither is ever changed in place). The
   * changes recorded so far are in it, so they are forgotten.
   */
  capture(gen: number): IndexCapture {
    this.changed?.clear();
    this.search.clearTracked();
    return { gen, entries: [...this.entryMap.values()], search: this.search.capture() };
  }

  /**
   * The same picture for a binary snapshot (snapshot.ts): with each note's link resolutions and
   * the vault's files as the graph holds them now. The search postings must be read (`ready()`).
   */
  captureSnapshot(gen: number): SnapshotCapture {
    const c = this.capture(gen);
    const resolutions = c.entries.map((e) => {
      const r = this.graph.resolutionsOf(e.path);
      // A large note is indexed in steps: its entry may be ahead of the graph for a moment.
      return r.links === e.links ? r.paths : null;
    });
    return { gen, entries: c.entries, resolutions, files: this.graph.filesUnder(''), search: c.search };
  }

  /** Serializes entries and the search index for a warm restart (tests; the server saves in pieces). */
  serialize(): string {
    for (const _ of this.search.sweep());
    return [...snapshotParts(this.capture(0))].join('');
  }
}

/** A new index (with the search index a snapshot kept, when given). */
export function createNoteIndex(serializedSearch?: string | SerializedSearch | LazySearch | null): NoteIndex {
  return new NoteIndex(serializedSearch);
}

/**
 * The snapshot's JSON in pieces of a few hundred entries or a few thousand search terms, so the
 * caller can yield to the event loop between them (and write them one by one).
 */
export function* snapshotParts(c: IndexCapture): Generator<string> {
  yield `{"v":${CACHE_VERSION},"gen":${c.gen},"entries":[`;
  // 64 entries a piece: 1 to 3 ms of JSON, so a slice of the save stays near its 8 ms.
  for (let i = 0; i < c.entries.length; i += 64) {
    yield (i ? ',' : '') + JSON.stringify(c.entries.slice(i, i + 64)).slice(1, -1);
  }
  yield '],"search":';
  yield* serializeSearchParts(c.search);
  yield '}';
}

/** One journal line: `[path]` (removed), `[path, entry]` (its words did not change), `[path, entry, terms]`. */
export type JournalRecord = [string] | [string, IndexEntry] | [string, IndexEntry, DocTerms];

/** The text of one journal record, a line. */
export const journalLine = (r: JournalRecord): string => `${JSON.stringify(r)}\n`;

/** The journal's first line: which snapshot its changes apply to. */
export const journalHeader = (gen: number): string => `${JSON.stringify({ v: CACHE_VERSION, gen })}\n`;

/** What `parseIndexCache` gives: the entries and search index as the snapshot and journal leave them. */
export interface ParsedIndexCache {
  gen: number;
  entries: Map<string, IndexEntry>;
  search: SerializedSearch;
  /** Journal lines applied. */
  journaled: number;
}

/**
 * Reads a snapshot and its journal; null when the snapshot is absent, of another layout or
 * damaged (a cold index follows, the cache is never trusted). A journal of another generation
 * (a crash between a snapshot and the journal's reset) is ignored; journal lines are applied in
 * order up to the first damaged one (a crash in an append tears only the last). Entries are
 * still checked against the files' size and mtime by the loader.
 */
export function parseIndexCache(text: string | null, journal?: string | null): ParsedIndexCache | null {
  if (!text) return null;
  try {
    const data = JSON.parse(text) as {
      v?: number;
      gen?: number;
      entries?: IndexEntry[];
      search?: SerializedSearch;
    };
    const s = data.search;
    if (
      data.v !== CACHE_VERSION ||
      typeof data.gen !== 'number' ||
      !Array.isArray(data.entries) ||
      !s ||
      !Array.isArray(s.docs) ||
      !Array.isArray(s.terms)
    )
      return null;
    const entries = new Map(data.entries.map((e) => [e.path, e]));
    const out: ParsedIndexCache = { gen: data.gen, entries, search: { ...s, journal: [] }, journaled: 0 };
    out.journaled = applyJournal(data.gen, journal, entries, out.search.journal!);
    return out;
  } catch {
    return null;
  }
}

/**
 * Applies the journal of the snapshot of generation `gen` to its `entries`, and gives the search
 * index's part to `searchJournal`. Returns how many lines applied: none when the journal belongs to
 * another generation, those up to the first damaged one otherwise.
 */
export function applyJournal(
  gen: number,
  journal: string | null | undefined,
  entries: { set(path: string, entry: IndexEntry): unknown; delete(path: string): unknown },
  searchJournal: ([string] | [string, DocTerms])[],
): number {
  if (!journal?.startsWith(journalHeader(gen))) return 0;
  let applied = 0;
  const lines = journal.split('\n');
  for (let i = 1; i < lines.length; i++) {
    let rec: [string, IndexEntry?, DocTerms?];
    try {
      rec = JSON.parse(lines[i]!);
    } catch {
      break;
    }
    if (!Array.isArray(rec) || typeof rec[0] !== 'string') break;
    const [path, entry, terms] = rec;
    if (!entry) {
      entries.delete(path);
      searchJournal.push([path]);
    } else {
      entries.set(path, entry);
      if (terms) searchJournal.push([path, terms]);
    }
    applied++;
  }
  return applied;
}
