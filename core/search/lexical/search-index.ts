/**
 * The lexical search index (see docs/reference/search.md): an inverted index ranking notes for a
 * query, where every query word may match (notes covering more of the query rank far higher), in
 * the body through BM25 and in the title and aliases, headings, folder and file names and tags
 * through field bonuses; English stems, stop words, a prefix for the last word and typos bounded
 * by word length. Postings are varint byte lists per term; adding a note costs its own words.
 *
 * This class holds the data (index-data.ts) and is the one face of the index: its changes
 * (writes.ts), upkeep (upkeep.ts) and cache (persist.ts) here, its queries delegated to the query
 * side (expansion.ts, scoring.ts, statistics.ts), which the search runner (run.ts) calls directly.
 */
import type { Visibility } from '../types.ts';
import {
  type DocTerms,
  docTerms,
  docTermsSteps,
  isPacked,
  type PackedTerms,
  unpackTerms,
} from './doc-terms.ts';
import { expandQuery } from './expansion.ts';
import type { SearchDoc } from './fields.ts';
import { createIndexData, type IndexData, NOT_LOADED } from './index-data.ts';
import {
  capture,
  type LazySearch,
  lazySteps,
  loadSerialized,
  materialize,
  type SearchCapture,
  type SerializedSearch,
  serializeSearchParts,
} from './persist.ts';
import type { ParsedQuery } from './query.ts';
import { type RankedNote, rankNotes } from './scoring.ts';
import { documentFrequency, visibleCount } from './statistics.ts';
import { approxBytes, needsUpkeep, sweepSteps, upkeepSteps } from './upkeep.ts';
import { addTerms, putTerms, putTermsSteps, remove } from './writes.ts';

export class SearchIndex {
  /** What the index holds (read by the query side; changed only through this class). */
  readonly data: IndexData = createIndexData();
  /** True once the terms and posting lists are in memory (always, unless read lazily). */
  loaded = true;
  private loading: Promise<void> | null = null;

  constructor(serialized?: string | SerializedSearch | LazySearch | null) {
    const d = this.data;
    if (serialized && typeof serialized === 'object' && 'lazy' in serialized) {
      for (const _ of lazySteps(d, serialized));
      this.loaded = false;
    } else if (serialized) loadSerialized(d, serialized);
    d.vocab.reset();
    d.version++;
  }

  private needLoaded(): void {
    if (this.data.lazy) throw new Error(NOT_LOADED);
  }

  /**
   * `createSearchIndex(data)` in steps, for a start that yields to the event loop between them
   * (core/notes/warm-start.ts `indexFromCache`). Only on an index made empty; use it once done.
   */
  *restoreSteps(data: LazySearch): Generator<void> {
    const d = this.data;
    if (d.ids.size > 0 || d.nextId > 0 || d.lazy)
      throw new Error('restoreSteps: the search index is not empty');
    this.loaded = false;
    yield* lazySteps(d, data);
    d.vocab.reset();
    d.version++;
  }

  /**
   * Resolves once the terms and posting lists are in memory (read on the first call for a lazy
   * index); rejects when they cannot be read or fail their check (the caller rebuilds).
   */
  ready(): Promise<void> {
    const read = this.data.lazy;
    if (!read) return Promise.resolve();
    this.loading ??= read().then(
      (t) => {
        materialize(this.data, t);
        this.loaded = true;
      },
      (err: unknown) => {
        this.loading = null;
        throw err;
      },
    );
    return this.loading;
  }

  /** Adds or replaces one note (`putSteps` for a large one). */
  put(doc: SearchDoc): void {
    remove(this.data, doc.path);
    addTerms(this.data, doc.path, docTerms(doc));
  }

  /** Adds or replaces one note by its terms as `docTerms` gives them (computed elsewhere, e.g. a thread). */
  putTerms(path: string, terms: DocTerms | PackedTerms): void {
    putTerms(this.data, path, terms);
  }

  /**
   * `put` in steps, for a large note (a 4 MiB note of distinct words is hundreds of ms in one
   * go), from its fields (`SearchDoc`: the body turned into terms `TEXT_STEP` characters a step)
   * or its terms made elsewhere (a thread); then its postings joined `PUT_STEP` terms a step
   * under a fresh id no query sees yet; the last step swaps it in for the old version at once.
   * The caller yields between steps (queries meanwhile see the old version); one caller per
   * path at a time.
   */
  *putSteps(path: string, source: SearchDoc | DocTerms | PackedTerms): Generator<void> {
    const terms = Array.isArray(source) || isPacked(source) ? source : yield* docTermsSteps(source);
    yield* putTermsSteps(this.data, path, terms);
  }

  /** Removes one note; no error when absent. */
  remove(path: string): void {
    remove(this.data, path);
  }

  has(path: string): boolean {
    return this.data.ids.has(path);
  }

  /** How many sweeps have begun (a cached memory figure is stale once it changes). */
  get swept(): number {
    return this.data.swept;
  }

  /** Estimated bytes of the postings of notes removed or replaced since the last sweep (they linger). */
  get deadBytes(): number {
    return this.data.deadBytes;
  }

  /** Whether the index wants its upkeep (`upkeep`): a sweep of dead postings, or a vocabulary rebuild. */
  get needsUpkeep(): boolean {
    return needsUpkeep(this.data);
  }

  /** How many words the typo and prefix look-ups walk (dropped ones included until a rebuild). */
  get vocabularySize(): number {
    return this.data.vocab.size;
  }

  /** The last query's typo look-ups: how many words, and rows of the budget spent. */
  get lastTypo(): { words: number; rows: number } {
    return this.data.lastTypo;
  }

  /**
   * What `needsUpkeep` asks for, in steps (the caller yields between them): the sweep when the
   * dead postings' bytes call for it, then the vocabulary's rebuild when it is stale.
   */
  upkeep(): Generator<void> {
    return upkeepSteps(this.data);
  }

  get size(): number {
    return this.data.docs.size;
  }

  /** How many notes (visible to `see`, when given) the index term `t` is in (0 when unknown); for weighting attachments' names. */
  df(t: string, see?: Visibility): number {
    return documentFrequency(this.data, t, see);
  }

  /** How many notes `see` lets a query see (all notes without it). */
  sizeFor(see?: Visibility): number {
    return visibleCount(this.data, see);
  }

  /**
   * Drops the postings of removed notes (or, when there are none, the unused end of each list's
   * buffer), a term at a time, yielding between terms so a caller can pause (each step copies one
   * list). Queries skip removed notes' postings meanwhile.
   */
  *sweep(): Generator<void> {
    this.needLoaded();
    yield* sweepSteps(this.data);
  }

  /** Estimated bytes the index holds (`health` shows them); work proportional to the terms. */
  approxBytes(): number {
    return approxBytes(this.data);
  }

  /** Starts (or stops) recording the words of changed notes for the journal. */
  track(on: boolean): void {
    this.data.pending = on ? new Map() : null;
  }

  /** The recorded words of `path` (replaced since tracking began), or undefined. */
  termsOf(path: string): DocTerms | undefined {
    const t = this.data.pending?.get(path);
    return t && isPacked(t) ? unpackTerms(t) : t;
  }

  /** Forgets the recorded words (they were journaled or captured). */
  clearTracked(): void {
    this.data.pending?.clear();
  }

  /** A consistent picture for the cache, in work proportional to the terms and notes (no copying of lists). */
  capture(): SearchCapture {
    this.needLoaded();
    return capture(this.data);
  }

  /** Notes for a query, best first, at most `limit` (`rankNotes` of scoring.ts says how). */
  query(
    input: string | ParsedQuery,
    limit: number,
    accept?: (path: string) => boolean,
    see?: Visibility,
    expanded?: [string, number][][],
  ): RankedNote[] {
    return rankNotes(this.data, input, limit, accept, see, expanded);
  }

  /**
   * The terms each clause of `p` stands for (exact, prefixes, misspellings), in steps a caller
   * yields between (`runSearch`): pass the result to `query` as `expanded`.
   */
  expand(p: ParsedQuery, see?: Visibility): Generator<void, [string, number][][]> {
    return expandQuery(this.data, p, see);
  }

  serialize(): string {
    for (const _ of this.sweep());
    return [...serializeSearchParts(this.capture())].join('');
  }
}

/** A search index, empty or read from the cache (JSON, or a snapshot's lazy tables). */
export function createSearchIndex(serialized?: string | SerializedSearch | LazySearch | null): SearchIndex {
  return new SearchIndex(serialized);
}
