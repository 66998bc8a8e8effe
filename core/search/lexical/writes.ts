/**
 * Adding and removing notes: a note's terms join each term's postings under a fresh id (ids only
 * grow), and a removed note leaves its postings behind as dead bytes until a sweep (upkeep.ts).
 */
import { type DocTerms, eachPacked, isPacked, type PackedTerms, PUT_STEP, unpackTerms } from './doc-terms.ts';
import type { IndexData } from './index-data.ts';
import { Postings } from './postings.ts';

/**
 * What a posting is estimated to hold: its bytes in a list, or for a term's first posting the
 * term's map slot, string and list object too (as `approxBytes` counts them).
 */
const POSTING_BYTES = 3;
const TERM_BYTES = 176;

/** The bytes a note of `len` body words is taken to hold when its postings were not counted (read from a cache). */
export const costOf = (len: number) => 64 + len * POSTING_BYTES;

/** Adds one posting of note `id`; returns its estimated bytes. */
export function addPosting(d: IndexData, id: number, term: string, value: number): number {
  let bytes = POSTING_BYTES;
  let list = d.postings.get(term);
  if (!list) {
    list = new Postings();
    d.postings.set(term, list);
    d.vocab.added(term);
    bytes += TERM_BYTES + term.length;
  }
  list.add(id, value);
  return bytes;
}

/** Adds the postings of `terms[from..to)` (term, value pairs from index 2); returns their estimated bytes. */
export function addPostings(d: IndexData, id: number, terms: DocTerms, from = 2, to = terms.length): number {
  let bytes = 0;
  for (let i = from; i < to; i += 2) bytes += addPosting(d, id, terms[i] as string, terms[i + 1] as number);
  return bytes;
}

/** Makes `id` the note at `path` (its postings are in, or deferred), costing `bytes`. */
function enter(d: IndexData, id: number, path: string, terms: DocTerms | PackedTerms, bytes: number): void {
  d.version++;
  const len = isPacked(terms) ? terms.len : (terms[0] as number);
  d.docs.set(id, path, len, isPacked(terms) ? terms.tlen : (terms[1] as number));
  d.docs.cost[id] = bytes;
  d.liveBytes += bytes;
  d.ids.set(path, id);
  d.totalLen += len;
  d.pending?.set(path, terms);
}

/** Adds the note at `path` with `terms` (deferred while a lazy index's postings are not read). */
export function addTerms(d: IndexData, path: string, terms: DocTerms): void {
  const id = d.nextId++;
  let bytes = 0;
  if (d.lazy) d.deferred.push([id, terms]);
  else bytes = addPostings(d, id, terms);
  enter(d, id, path, terms, bytes || costOf(terms[0] as number));
}

/** Removes the note at `path`; no error when absent. Its postings stay until a sweep. */
export function remove(d: IndexData, path: string): void {
  const id = d.ids.get(path);
  d.pending?.delete(path);
  if (id === undefined) return;
  d.version++;
  if (d.removedLog.length >= 200_000) {
    d.logBase += d.removedLog.length / 2;
    d.removedLog.length = 0;
  }
  const { docs } = d;
  d.removedLog.push(id, docs.len[id]!);
  d.totalLen -= docs.len[id]!;
  const bytes = docs.cost[id] || costOf(docs.len[id]!);
  d.deadBytes += bytes;
  d.liveBytes -= docs.cost[id]!;
  docs.delete(id);
  d.ids.delete(path);
}

/** Adds or replaces the note at `path` by its terms. */
export function putTerms(d: IndexData, path: string, terms: DocTerms | PackedTerms): void {
  remove(d, path);
  addTerms(d, path, isPacked(terms) ? unpackTerms(terms) : terms);
}

/**
 * Adds or replaces the note at `path` in steps: its postings joined `PUT_STEP` terms a step under
 * a fresh id no query sees yet; the last step swaps it in for the old version at once.
 */
export function* putTermsSteps(d: IndexData, path: string, terms: DocTerms | PackedTerms): Generator<void> {
  if (d.lazy) {
    putTerms(d, path, terms);
    return;
  }
  const id = d.nextId++;
  d.building.add(id);
  let bytes = 0;
  let entered = false;
  try {
    if (isPacked(terms)) {
      const add = (term: string, v: number) => {
        bytes += addPosting(d, id, term, v);
      };
      for (let i = 0, at = 0; i < terms.vals.length; i += PUT_STEP) {
        at = eachPacked(terms, i, Math.min(terms.vals.length, i + PUT_STEP), at, add);
        yield;
      }
    } else {
      for (let i = 2; i < terms.length; i += 2 * PUT_STEP) {
        bytes += addPostings(d, id, terms, i, Math.min(terms.length, i + 2 * PUT_STEP));
        yield;
      }
    }
    remove(d, path);
    enter(d, id, path, terms, bytes);
    entered = true;
  } finally {
    d.building.delete(id);
    // A build left half done (its caller stopped): its postings linger like a removed note's.
    if (!entered) d.deadBytes += bytes;
  }
}
