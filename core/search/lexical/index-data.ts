/**
 * Everything the search index holds, as data: the postings, the notes' table, the vocabulary and
 * the counters its modules keep up to date. The index (search-index.ts) and its writes change it;
 * the query side (statistics, expansion, scoring) reads it and keeps its caches in it. Only
 * types and the empty data live here, so every module may import it.
 */
import type { Visibility } from '../types.ts';
import { createDocTable, type DocTable } from './doc-table.ts';
import type { DocTerms, PackedTerms } from './doc-terms.ts';
import { type Postings, ShardedMap } from './postings.ts';
import { createVocabulary, type Vocabulary } from './vocabulary.ts';

/** Every term, its list's posting count, last id, and bytes (`offset`, `length` into `blob`). */
export interface LoadedTerms {
  terms: string[];
  count: ArrayLike<number>;
  last: ArrayLike<number>;
  offset: ArrayLike<number>;
  length: ArrayLike<number>;
  blob: Uint8Array;
}

/**
 * The notes one `Visibility` lets a query see, and the statistics of a vault holding only them
 * (note count, body lengths, each term's document frequency, counted lazily). Cached per
 * `Visibility`; after changes it catches up with the notes added and removed since.
 */
export interface Visible {
  version: number;
  /** `nextId` and the removal count when last brought up to date. */
  next: number;
  removed: number;
  allowed: Uint8Array;
  count: number;
  totalLen: number;
  df: Map<string, number>;
}

/** A query's arrays by note id, kept for the next query (a query runs synchronously: never shared). */
export interface Scratch {
  size: number;
  skip: Uint8Array;
  score: Float64Array;
  covered: Float64Array;
  titleHits: Uint8Array;
  best: Float64Array;
  bestBits: Uint8Array;
  /** Per note and clause (16 at most): 1 + the index of the clause's best matching term, for the snippet. */
  bestTerm: Uint8Array;
  coverages: Float64Array;
  touched: Int32Array;
  here: Int32Array;
}

export interface IndexData {
  /** Each term's postings. */
  readonly postings: ShardedMap<Postings>;
  /** Per note id (ids only grow; a removed note's slot keeps no path): path, body length, title words, folder depth. */
  readonly docs: DocTable;
  readonly ids: Map<string, number>;
  /** The terms, sorted, for prefixes and typos. */
  readonly vocab: Vocabulary;
  nextId: number;
  totalLen: number;
  /**
   * Estimated bytes of the postings of notes removed or replaced since the last sweep (they are
   * still in the lists, and words only they held are still terms), and of the live notes': a
   * sweep is due when the dead ones pass `SWEEP_MIN_BYTES` or a quarter of the live ones.
   */
  deadBytes: number;
  liveBytes: number;
  /** How many sweeps have begun. */
  swept: number;
  /** Ids of large notes whose postings are being added (`putSteps`): not notes yet, kept by sweeps. */
  readonly building: Set<number>;
  /** The last query's typo look-ups: words looked up and rows spent (`TypoBudget`). */
  lastTypo: { words: number; rows: number };
  /** The words of notes changed since the last `takeChanges`, for the journal; null while not tracked. */
  pending: Map<string, DocTerms | PackedTerms> | null;
  /** Bumped by every change of the notes (visible sets are cached per version). */
  version: number;
  /** `[id, body length]` of each note removed, for visible sets to catch up; entry 0 is removal number `logBase`. */
  readonly removedLog: number[];
  logBase: number;
  /** Reads the terms and postings of a lazy index (null once read, or for an eager one). */
  lazy: (() => Promise<LoadedTerms>) | null;
  /** Notes added while the postings were not read yet: their words join the lists once read. */
  readonly deferred: [number, DocTerms][];
  /** The query side's caches: visible sets by `Visibility`, live document frequencies, the scratch arrays. */
  readonly visibles: WeakMap<Visibility, Visible>;
  liveDf: { version: number; counts: Map<string, number> };
  scratch: Scratch | null;
}

/** An empty index's data. */
export function createIndexData(): IndexData {
  const postings = new ShardedMap<Postings>();
  return {
    postings,
    docs: createDocTable(),
    ids: new Map(),
    vocab: createVocabulary(
      () => postings.keys(),
      (t) => postings.has(t),
    ),
    nextId: 0,
    totalLen: 0,
    deadBytes: 0,
    liveBytes: 0,
    swept: 0,
    building: new Set(),
    lastTypo: { words: 0, rows: 0 },
    pending: null,
    version: 0,
    removedLog: [],
    logBase: 0,
    lazy: null,
    deferred: [],
    visibles: new WeakMap(),
    liveDf: { version: -1, counts: new Map() },
    scratch: null,
  };
}

/** What a lazy index answers before its postings are read. */
export const NOT_LOADED = 'the search postings are not read yet (await ready() first)';
