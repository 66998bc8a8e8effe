/**
 * The statistics a query ranks by: how many notes hold a term (document frequency) over the live
 * notes, or over the notes a folder-limited key sees, and the note count and lengths of that set.
 * A scoped query ranks as a vault of its own would, so no score or rank reveals a hidden note.
 */
import type { Visibility } from '../types.ts';
import { type IndexData, NOT_LOADED, type Visible } from './index-data.ts';
import { liveCount, type Postings } from './postings.ts';

/**
 * The notes `see` lets a query see, and the statistics of a vault holding only them (note count,
 * body lengths, each term's document frequency, counted lazily). Cached per `see`; after changes
 * it catches up with the notes added and removed since (not a pass over all).
 */
export function visibleFor(d: IndexData, see: Visibility): Visible {
  let v = d.visibles.get(see);
  if (v && v.version === d.version) return v;
  const { docs, removedLog, logBase, nextId } = d;
  if (!v || v.removed < logBase) {
    v = {
      version: d.version,
      next: 0,
      removed: logBase,
      allowed: new Uint8Array(nextId),
      count: 0,
      totalLen: 0,
      df: new Map(),
    };
    d.visibles.set(see, v);
  }
  // Removed notes it counted (ids from before its last update), then the notes added since.
  for (let i = (v.removed - logBase) * 2; i < removedLog.length; i += 2) {
    const id = removedLog[i]!;
    if (id < v.next && v.allowed[id]) {
      v.allowed[id] = 0;
      v.count--;
      v.totalLen -= removedLog[i + 1]!;
    }
  }
  if (v.allowed.length < nextId) {
    const grown = new Uint8Array(Math.max(nextId, v.allowed.length * 2));
    grown.set(v.allowed);
    v.allowed = grown;
  }
  // Up to the first note still being added (`putSteps`): it and those after are taken once it is in.
  let upto = nextId;
  for (const b of d.building) upto = Math.min(upto, b);
  for (let id = v.next; id < upto; id++) {
    const path = docs.paths[id];
    if (path !== undefined && see(path)) {
      v.allowed[id] = 1;
      v.count++;
      v.totalLen += docs.len[id]!;
    }
  }
  v.next = upto;
  v.removed = logBase + removedLog.length / 2;
  v.version = d.version;
  v.df.clear();
  return v;
}

/** In how many visible notes the term `t` is (its postings counted once per version). */
export function visibleDf(d: IndexData, v: Visible, t: string): number {
  let n = v.df.get(t);
  if (n === undefined) {
    const list = d.postings.get(t);
    n = list ? liveCount(list, (id) => v.allowed[id] === 1) : 0;
    if (v.df.size > 20_000) v.df.clear();
    v.df.set(t, n);
  }
  return n;
}

/** The live notes of `list`, counted once per index version (a bounded cache). */
function liveDf(d: IndexData, t: string, list: Postings): number {
  const cache = d.liveDf;
  if (cache.version !== d.version) {
    cache.counts = new Map();
    cache.version = d.version;
  }
  let n = cache.counts.get(t);
  if (n === undefined) {
    n = liveCount(list, (id) => d.docs.paths[id] !== undefined);
    if (cache.counts.size > 20_000) cache.counts.clear();
    cache.counts.set(t, n);
  }
  return n;
}

/**
 * In how many live notes the term `t` is. A list's count also holds the postings of notes removed
 * since the last sweep and of a large note still being added: counted as they are, a rewritten
 * note would rank lower than after a restart. While any such linger, the live ones are counted.
 */
function dfAll(d: IndexData, t: string): number {
  const list = d.postings.get(t);
  if (!list) return 0;
  if (d.deadBytes === 0 && d.building.size === 0) return list.count;
  return liveDf(d, t, list);
}

/** The document frequency a query sees: the live notes', or the visible notes' (`vis`). */
export const dfIn = (d: IndexData, vis: Visible | null, t: string): number =>
  vis ? visibleDf(d, vis, t) : dfAll(d, t);

/** BM25's inverse document frequency; positive even when a list still counts removed notes (more postings than notes). */
export const idfOf = (df: number, n: number) => Math.max(1e-6, Math.log(1 + (n - df + 0.5) / (df + 0.5)));

/** How many notes (visible to `see`, when given) the index term `t` is in (0 when unknown). */
export function documentFrequency(d: IndexData, t: string, see?: Visibility): number {
  if (d.lazy) throw new Error(NOT_LOADED);
  return dfIn(d, see ? visibleFor(d, see) : null, t);
}

/** How many notes `see` lets a query see (all notes without it). */
export function visibleCount(d: IndexData, see?: Visibility): number {
  return see ? visibleFor(d, see).count : d.docs.size;
}
