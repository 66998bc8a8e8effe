/**
 * The warm start's reading of the binary snapshot (snapshot.ts) through the `StateStore` port: the
 * note table, link resolutions and search notes now (one range read), the search terms and posting
 * lists when `ready()` is first awaited (two more range reads). Stores without byte ranges (Workers
 * KV) keep the JSON snapshot (`parseIndexCache`).
 */
import type { StateStore } from '../ports.ts';
import type { DocTerms, LazySearch, LoadedTerms } from '../search/lexical/index.ts';
import { applyJournal, type IndexEntry } from './note-index.ts';
import { yieldToEventLoop } from './slices.ts';
import {
  Checksum,
  entryAt,
  type GraphTable,
  type NoteTable,
  rangeOf,
  readDocs,
  readGraph,
  readNotes,
  readSnapshotIndex,
  readTerms,
  resolvedPathsOf,
  SECTION,
  SnapshotError,
  type SnapshotIndex,
} from './snapshot.ts';

/** The binary snapshot's key in the state store. */
export const SNAPSHOT_KEY = 'index-snapshot.bin';

/** A store that can hold the binary snapshot. */
export type BinaryStateStore = StateStore & Required<Pick<StateStore, 'putBytes' | 'getRange' | 'byteSize'>>;

export const canHoldBinary = (s: StateStore | undefined): s is BinaryStateStore =>
  !!s?.putBytes && !!s.getRange && !!s.byteSize;

/**
 * The snapshot's entries (with its journal applied), each parsed from the note table only when
 * asked for: the load compares a file's size and mtime with the table's columns first (`kept`) and
 * parses only the rows it keeps; a note changed while the server was down is never parsed.
 */
export class SnapshotEntries {
  /** Paths of the journal's lines: the entry it left, or null (removed). */
  private readonly journal = new Map<string, IndexEntry | null>();
  private readonly rowOfPath = new Map<string, number>();
  /** The row each parsed entry came from (its link resolutions are found by it). */
  readonly rowOf = new Map<IndexEntry, number>();
  private count: number;
  /** The table's own paths (before the journal). */
  readonly tablePaths: { has(path: string): boolean; readonly size: number };
  constructor(private readonly notes: NoteTable) {
    for (let i = 0; i < notes.n; i++) this.rowOfPath.set(notes.paths[i]!, i);
    this.count = notes.n;
    const rows = this.rowOfPath;
    this.tablePaths = { has: (path) => rows.has(path), size: rows.size };
  }
  has(path: string): boolean {
    const j = this.journal.get(path);
    return j !== undefined ? j !== null : this.rowOfPath.has(path);
  }
  /** The entry of `path` (parsed now when it comes from the table). */
  get(path: string): IndexEntry | undefined {
    const j = this.journal.get(path);
    if (j !== undefined) return j ?? undefined;
    const row = this.rowOfPath.get(path);
    return row === undefined ? undefined : this.parse(row);
  }
  /** The entry of `path` when it has this size and mtime (only then parsed), else undefined. */
  kept(path: string, size: number, mtimeMs: number): IndexEntry | undefined {
    const j = this.journal.get(path);
    if (j !== undefined) return j && j.size === size && j.mtimeMs === mtimeMs ? j : undefined;
    const row = this.rowOfPath.get(path);
    if (row === undefined || this.notes.size[row] !== size || this.notes.mtime[row] !== mtimeMs)
      return undefined;
    try {
      return this.parse(row);
    } catch {
      // A row that does not hold up (its section passed its checksum) is read from the file again.
      return undefined;
    }
  }
  /** When the snapshot first saw `path` (no row parsed); undefined when it does not hold it. */
  firstSeen(path: string): number | undefined {
    const j = this.journal.get(path);
    if (j !== undefined) return j?.firstSeen;
    const row = this.rowOfPath.get(path);
    return row === undefined ? undefined : this.notes.firstSeen[row];
  }
  set(path: string, entry: IndexEntry): void {
    if (!this.has(path)) this.count++;
    this.journal.set(path, entry);
  }
  delete(path: string): void {
    if (this.has(path)) this.count--;
    this.journal.set(path, null);
  }
  *keys(): Generator<string> {
    for (const [p, e] of this.journal) if (e) yield p;
    for (const p of this.notes.paths) if (!this.journal.has(p)) yield p;
  }
  get size(): number {
    return this.count;
  }
  private parse(row: number): IndexEntry {
    const e = entryAt(this.notes, row);
    this.rowOf.set(e, row);
    return e;
  }
}

/** What the warm start takes from a binary snapshot and its journal. */
export interface BinaryCache {
  gen: number;
  entries: SnapshotEntries;
  search: LazySearch;
  journaled: number;
  /** The snapshot's notes (before the journal) and the vault's files when it was taken. */
  notePaths: { has(path: string): boolean; readonly size: number };
  files: readonly string[];
  /** Where an entry's links pointed, for the entries as the snapshot holds them (by object). */
  resolved(entry: IndexEntry): (string | null)[] | null;
}

/**
 * Reads the snapshot of `size` bytes and the journal. Throws (a `SnapshotError`, or whatever a
 * damaged byte makes a decoder throw) when anything fails its check: the caller indexes cold.
 * A row of the note table is checked when it is parsed; one that fails is read from its file again.
 */
export async function readBinaryCache(
  state: BinaryStateStore,
  size: number,
  journalKey: string,
  /** How to yield to the event loop between slices of the work. */
  pause: () => Promise<void> = yieldToEventLoop,
): Promise<BinaryCache> {
  const read = (offset: number, length: number) => state.getRange(SNAPSHOT_KEY, offset, length);
  const index = await readSnapshotIndex(size, read);
  const eager: number[] = [SECTION.NOTES, SECTION.GRAPH, SECTION.DOCS];
  const range = rangeOf(index, eager);
  const [bytes, journal] = await Promise.all([
    read(range.offset, range.length),
    state.append ? state.get(journalKey) : null,
  ]);
  if (!bytes || bytes.length !== range.length) throw new SnapshotError('index snapshot: cut short');
  const sections = await checkedSections(index, eager, bytes, range.offset, pause);
  const notes: NoteTable = readNotes(sections.get(SECTION.NOTES)!);
  await pause();
  const graph: GraphTable = readGraph(sections.get(SECTION.GRAPH)!, notes.n);
  await pause();
  const docs = readDocs(sections.get(SECTION.DOCS)!, notes);
  await pause();
  const entries = new SnapshotEntries(notes);
  const searchJournal: ([string] | [string, DocTerms])[] = [];
  const journaled = applyJournal(index.gen, journal, entries, searchJournal);
  const terms = lazyTerms(state, index.gen);

  return {
    gen: index.gen,
    entries,
    search: { lazy: true, nextId: docs.nextId, docs: docs.docs, journal: searchJournal, terms },
    journaled,
    notePaths: entries.tablePaths,
    files: graph.files,
    resolved(entry) {
      const row = entries.rowOf.get(entry);
      if (row === undefined) return null;
      try {
        return resolvedPathsOf(notes, graph, row);
      } catch {
        // A row that does not hold up is resolved again (the section passed its checksum).
        return null;
      }
    },
  };
}

/**
 * `sectionsOf`, its checksums summed a MiB at a time with a yield to the event loop between (a
 * large vault's note table is tens of MB).
 */
async function checkedSections(
  index: SnapshotIndex,
  ids: number[],
  bytes: Uint8Array,
  from: number,
  pause: () => Promise<void> = yieldToEventLoop,
): Promise<Map<number, Uint8Array>> {
  const out = new Map<number, Uint8Array>();
  for (const id of ids) {
    const s = index.sections.get(id)!;
    const start = s.offset - from;
    if (start < 0 || start + s.length > bytes.length) throw new SnapshotError('index snapshot: cut short');
    const b = bytes.subarray(start, start + s.length);
    const sum = new Checksum();
    for (let at = 0; at < b.length; at += CHECK_STEP) {
      sum.update(b.subarray(at, at + CHECK_STEP));
      if (at + CHECK_STEP < b.length) await pause();
    }
    if (sum.digest() !== s.crc) throw new SnapshotError(`index snapshot: section ${id} damaged`);
    out.set(id, b);
  }
  return out;
}
const CHECK_STEP = 1 << 20;

/**
 * Reads the search terms and posting lists of the snapshot of generation `gen` (a function of its
 * own: a closure made beside the note table would keep the table alive until the first search).
 */
function lazyTerms(state: BinaryStateStore, gen: number): () => Promise<LoadedTerms> {
  const read = (offset: number, length: number) => state.getRange(SNAPSHOT_KEY, offset, length);
  return async () => {
    // The file may have been replaced since (another process's save): only the same generation will do.
    const now = await state.byteSize(SNAPSHOT_KEY);
    if (now === null) throw new SnapshotError('index snapshot: gone');
    const again = await readSnapshotIndex(now, read);
    if (again.gen !== gen) throw new SnapshotError('index snapshot: replaced');
    const t = again.sections.get(SECTION.TERMS)!;
    const p = again.sections.get(SECTION.POSTINGS)!;
    const [tb, pb] = await Promise.all([read(t.offset, t.length), read(p.offset, p.length)]);
    if (!tb || !pb) throw new SnapshotError('index snapshot: cut short');
    const table = readTerms(
      (await checkedSections(again, [SECTION.TERMS], tb, t.offset)).get(SECTION.TERMS)!,
      p.length,
    );
    const blob = (await checkedSections(again, [SECTION.POSTINGS], pb, p.offset)).get(SECTION.POSTINGS)!;
    return { ...table, blob };
  };
}
