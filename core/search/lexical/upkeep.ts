/**
 * The index's upkeep: removed notes leave their postings behind (a write costs only its own
 * words), and a sweep drops them a term at a time once they pass a share of the live ones; the
 * vocabulary is rebuilt in steps when many words came or went.
 */
import type { IndexData } from './index-data.ts';
import { eachPosting, Postings, shrunk } from './postings.ts';

/** Dead bytes (removed notes' postings) past which a sweep is due, or a quarter of the live ones. */
const SWEEP_MIN_BYTES = 4 * 1024 * 1024;

const sweepDue = (d: IndexData) => d.deadBytes > Math.max(SWEEP_MIN_BYTES, d.liveBytes / 4);

/** Whether the index wants its upkeep: a sweep of dead postings, or a vocabulary rebuild. */
export const needsUpkeep = (d: IndexData): boolean => d.lazy === null && (sweepDue(d) || d.vocab.stale);

/**
 * Drops the postings of removed notes from one term's list (a new buffer: captures stay valid),
 * and the term itself when no note holds it any more.
 */
function sweepTerm(d: IndexData, term: string, list: Postings): void {
  const next = new Postings(new Uint8Array(Math.max(8, list.n + 12)));
  eachPosting(list.b, list.n, (id, tf) => {
    if (d.docs.paths[id] !== undefined || d.building.has(id)) next.add(id, tf);
  });
  if (next.count === 0) {
    d.postings.delete(term);
    d.vocab.dropped();
  } else if (next.count !== list.count) {
    d.postings.set(term, next.b.length > next.n + (next.n >> 2) + 16 ? shrunk(next) : next);
  }
}

/**
 * Drops the postings of removed notes (or, when there are none, the unused end of each list's
 * buffer), a term at a time, yielding between terms so a caller can pause (each step copies one
 * list). Queries skip removed notes' postings meanwhile.
 */
export function* sweepSteps(d: IndexData): Generator<void> {
  const filter = d.deadBytes > 0;
  d.deadBytes = 0;
  d.swept++;
  // The map itself is walked (a copy of a million entries would be one long step): entries
  // set or deleted between steps are fine for a Map's iterator.
  let n = 0;
  for (const [term, list] of d.postings) {
    if (filter) sweepTerm(d, term, list);
    else if (list.b.length > list.n + (list.n >> 2) + 16) {
      // Growing doubles a buffer: give back the unused end (a copy, so captures stay valid).
      d.postings.set(term, shrunk(list));
    }
    if (++n % 64 === 0) yield;
  }
}

/**
 * What `needsUpkeep` asks for, in steps (the caller yields between them): the sweep when the
 * dead postings' bytes call for it, then the vocabulary's rebuild when it is stale.
 */
export function* upkeepSteps(d: IndexData): Generator<void> {
  if (d.lazy) return;
  if (sweepDue(d)) yield* sweepSteps(d);
  if (d.vocab.stale) yield* d.vocab.rebuildSteps();
}

/**
 * Estimated bytes the index holds (`health` shows them): its doc table, and per term the map
 * slot, the word, the list object and its buffer (on the heap while small, off it once grown).
 * Work proportional to the terms.
 */
export function approxBytes(d: IndexData): number {
  const { docs } = d;
  let n = docs.paths.length * 8 + docs.len.byteLength + docs.tlen.byteLength + docs.depth.byteLength;
  n += d.ids.size * 40;
  for (const [term, list] of d.postings)
    n += 112 + term.length + (list.b.length <= 64 ? 64 : 160 + list.b.length);
  return n;
}
