/**
 * The index in and out of the cache: read from the index cache's JSON (`SerializedSearch`) or a
 * binary snapshot's lazy tables (`LazySearch`, postings read on first use), and captured and
 * serialized in pieces so a save never holds the event loop for long.
 */
import { fromBase64, toBase64 } from '../../crypto.ts';
import type { DocTerms } from './doc-terms.ts';
import type { IndexData, LoadedTerms } from './index-data.ts';
import { Postings } from './postings.ts';
import { addPostings, addTerms, costOf, remove } from './writes.ts';

export type { LoadedTerms };

/** Standard base64 of `b`. */
export const bytesToBase64 = toBase64;
/** Bytes of standard base64 `s`; throws on a character outside the alphabet. */
export const base64ToBytes = fromBase64;

/** Notes of a snapshot's search table taken per step of a restore (`restoreSteps`). */
const RESTORE_STEP = 256;

/**
 * The search index as the cache stores it (inside the index cache's JSON, see note-index.ts):
 * `docs` as `[id, path, body length, title words]`, `terms` as `[term, postings, last id, base64 of the encoded list]`
 * (the list's bytes exactly as memory holds them, see `Postings`), and `journal`: the notes changed
 * since, each `[path]` (removed) or `[path, terms]` (`terms` as `termsOf` gives them).
 */
export interface SerializedSearch {
  docs: [number, string, number, number][];
  terms: [string, number, number, string][];
  journal?: ([string] | [string, DocTerms])[];
}

/**
 * A search index whose terms and posting lists are read on first use (a binary snapshot's TERMS and
 * POSTINGS sections, see snapshot.ts): the notes' table is given now, `terms` reads the rest once
 * `ready()` is first awaited. Notes changed meanwhile keep their words aside until then.
 */
export interface LazySearch {
  lazy: true;
  nextId: number;
  docs: [number, string, number, number][];
  journal?: ([string] | [string, DocTerms])[];
  terms: () => Promise<LoadedTerms>;
}

/** A consistent picture of the search index, taken synchronously, serialized later in pieces. */
export interface SearchCapture {
  /** The id the next note will get (every id below it was given). */
  nextId: number;
  docs: [number, string, number, number][];
  terms: [string, Uint8Array, number, number][];
}

/** Replays a journal: each record removes its note, and puts it back with its terms when given. */
function replay(d: IndexData, journal: ([string] | [string, DocTerms])[] | undefined): void {
  for (const rec of journal ?? []) {
    remove(d, rec[0]);
    if (rec.length === 2) addTerms(d, rec[0], rec[1]);
  }
}

/** Takes the note `id` of a cache's table (its postings' cost estimated from its length). */
function takeDoc(d: IndexData, id: number, path: string, len: number, tlen: number): void {
  d.docs.set(id, path, len, tlen);
  d.docs.cost[id] = costOf(len);
  d.liveBytes += d.docs.cost[id]!;
  d.ids.set(path, id);
  d.totalLen += len;
}

/** Reads a cache's JSON (or its parsed form) into the empty `d`; on any error `d` is left empty. */
export function loadSerialized(d: IndexData, serialized: string | SerializedSearch): void {
  try {
    const data = (typeof serialized === 'string' ? JSON.parse(serialized) : serialized) as SerializedSearch;
    for (const [term, count, last, b64] of data.terms) {
      const b = base64ToBytes(b64);
      d.postings.set(term, new Postings(b, b.length, count, last));
    }
    for (const [id, path, len, tlen] of data.docs) {
      if (typeof tlen !== 'number') throw new Error('an older layout');
      takeDoc(d, id, path, len, tlen);
      d.nextId = Math.max(d.nextId, id + 1);
    }
    for (const t of d.postings.values()) d.nextId = Math.max(d.nextId, t.last + 1);
    d.deadBytes = 0;
    replay(d, data.journal);
  } catch {
    d.postings.clear();
    d.docs.clear();
    d.ids.clear();
    d.totalLen = 0;
    d.liveBytes = 0;
    d.nextId = 0;
  }
}

/**
 * Takes a snapshot's lazy search: its notes table `RESTORE_STEP` notes a step (10,000 notes are
 * 10 to 25 ms in one go), then the journal's words. The caller may yield between steps; the
 * index is not used until they are done.
 */
export function* lazySteps(d: IndexData, data: LazySearch): Generator<void> {
  d.lazy = data.terms;
  const list = data.docs;
  for (let i = 0; i < list.length; ) {
    const end = Math.min(list.length, i + RESTORE_STEP);
    for (; i < end; i++) {
      const [id, path, len, tlen] = list[i]!;
      takeDoc(d, id, path, len, tlen);
    }
    yield;
  }
  d.nextId = data.nextId;
  d.deadBytes = 0;
  replay(d, data.journal);
}

/** The lists as read, then the words of the notes added since (ids only grow: order is kept). */
export function materialize(d: IndexData, t: LoadedTerms): void {
  for (let i = 0; i < t.terms.length; i++) {
    const at = t.offset[i]!;
    const n = t.length[i]!;
    d.postings.set(t.terms[i]!, new Postings(t.blob.subarray(at, at + n), n, t.count[i]!, t.last[i]!));
  }
  for (const [id, terms] of d.deferred) addPostings(d, id, terms);
  d.deferred.length = 0;
  d.lazy = null;
  d.vocab.reset();
  d.version++;
}

/** A consistent picture for the cache, in work proportional to the terms and notes (no copying of lists). */
export function capture(d: IndexData): SearchCapture {
  return {
    nextId: d.nextId,
    docs: d.docs.entries(),
    terms: [...d.postings].map(([term, l]) => [term, l.b.subarray(0, l.n), l.count, l.last]),
  };
}

/**
 * The JSON of a capture (a `SerializedSearch` without journal), in pieces of a few thousand terms
 * so a caller can yield to the event loop between them.
 */
export function* serializeSearchParts(c: SearchCapture): Generator<string> {
  const DOCS = 2048;
  yield '{"docs":[';
  for (let i = 0; i < c.docs.length; i += DOCS) {
    yield (i ? ',' : '') + JSON.stringify(c.docs.slice(i, i + DOCS)).slice(1, -1);
  }
  yield '],"terms":[';
  let batch: string[] = [];
  let bytes = 0;
  let first = true;
  for (const [term, b, count, last] of c.terms) {
    batch.push(`[${JSON.stringify(term)},${count},${last},"${bytesToBase64(b)}"]`);
    bytes += b.length;
    if (batch.length === 1024 || bytes > 128 * 1024) {
      yield (first ? '' : ',') + batch.join(',');
      first = false;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length) yield (first ? '' : ',') + batch.join(',');
  yield ']}';
}
