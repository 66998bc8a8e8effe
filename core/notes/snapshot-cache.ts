/**
 * The warm start's reading of the binary snapshot (snapshot.ts) through the `StateStore` port: the
 * note table, link resolutions and search notes now (one range read), the search terms and posting
 * lists when `ready()` is first awaited (two more range reads). Stores without byte ranges (Workers
 * KV) keep the JSON snapshot (`parseIndexCache`).
 */
import type { StateStore } from '../ports.ts';
import { applyJournal, type IndexEntry } from './note-index.ts';
import type { DocTerms, LazySearch, LoadedTerms } from './search.ts';
import { yieldToEventLoop } from './slices.ts';
import {
  Checksum,
  entryAt,
  FOLDERS_SECTION,
  type GraphTable,
  type NoteTable,
  rangeOf,
  readDocs,
  readFolders,
  readGraph,
  readNotes,
  readSnapshotIndex,
  readTerms,
  readVault,
  resolvedPath,
  rowsOf,
  SECTION,
  SnapshotError,
  type SnapshotIndex,
  VAULT_SECTION,
} from './snapshot.ts';

/** The binary snapshot's key in the state store. */
export const SNAPSHOT_KEY = 'index-snapshot.bin';

/** A store that can hold the binary snapshot. */
export type BinaryStateStore = StateStore & Required<Pick<StateStore, 'putBytes' | 'getRange' | 'byteSize'>>;

export const canHoldBinary = (s: StateStore | undefined): s is BinaryStateStore =>
  !!s?.putBytes && !!s.getRange && !!s.byteSize;

/** What the warm start takes from a binary snapshot and its journal. */
export interface BinaryCache {
  gen: number;
  entries: Map<string, IndexEntry>;
  search: LazySearch;
  journaled: number;
  /** The snapshot's notes (before the journal) and the vault's files when it was taken. */
  notePaths: ReadonlySet<string>;
  files: readonly string[];
  /**
   * The vault's folders when it was taken (empty ones included); null for a snapshot written
   * without them (before 2026-11-27): such a snapshot is checked against the vault before use.
   */
  folders: readonly string[] | null;
  /** The name of the vault it was taken of (null: none); undefined for a snapshot without it. */
  vault: string | null | undefined;
  /** Where an entry's links pointed, for the entries as the snapshot holds them (by object). */
  resolved(entry: IndexEntry): (string | null)[] | null;
}

/** Longest run of decoding between two yields to the event loop, in ms. */
const SLICE_MS = 8;

/**
 * Reads the snapshot of `size` bytes and the journal. Throws (a `SnapshotError`, or whatever a
 * damaged byte makes a decoder throw) when anything fails its check: the caller indexes cold.
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
  if (index.sections.has(FOLDERS_SECTION)) eager.push(FOLDERS_SECTION);
  if (index.sections.has(VAULT_SECTION)) eager.push(VAULT_SECTION);
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
  const folderBytes = sections.get(FOLDERS_SECTION);
  const folders = folderBytes ? readFolders(folderBytes) : null;
  const vaultBytes = sections.get(VAULT_SECTION);
  const vault = vaultBytes ? readVault(vaultBytes) : undefined;

  await pause();
  // Entries parsed one by one, yielding to the event loop every few ms.
  const entries = new Map<string, IndexEntry>();
  const rowOf = new Map<IndexEntry, number>();
  let slice = performance.now();
  for (let i = 0; i < notes.n; i++) {
    const e = entryAt(notes, i);
    entries.set(e.path, e);
    rowOf.set(e, i);
    if ((i & 63) === 0 && performance.now() - slice > SLICE_MS) {
      await pause();
      slice = performance.now();
    }
  }
  const searchJournal: ([string] | [string, DocTerms])[] = [];
  const journaled = applyJournal(index.gen, journal, entries, searchJournal);
  const terms = lazyTerms(state, index.gen);

  return {
    gen: index.gen,
    entries,
    search: { lazy: true, nextId: docs.nextId, docs: docs.docs, journal: searchJournal, terms },
    journaled,
    notePaths: new Set(notes.paths),
    files: graph.files,
    folders,
    vault,
    resolved(entry) {
      const row = rowOf.get(entry);
      let rows: Uint32Array | null = null;
      try {
        rows = row === undefined ? null : rowsOf(graph, row);
      } catch {
        // A row that does not hold up is resolved again (the section passed its checksum).
      }
      if (!rows) return null;
      const out = new Array<string | null>(rows.length);
      for (let i = 0; i < rows.length; i++) out[i] = resolvedPath(notes, graph, rows[i]!);
      return out;
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
