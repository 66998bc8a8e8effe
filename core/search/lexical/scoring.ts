/**
 * Ranking the notes for a query: each clause's terms are read from their postings and scored by
 * BM25 on the body plus a bonus per field (title, headings, path, tags), weighted by rarity; a
 * note's score grows with the share of the query it covers, and the best `limit` are kept in a
 * min-heap. Everything per note lives in typed arrays reused query after query (`Scratch`).
 */
import type { Visibility } from '../types.ts';
import { drain, HEADING, PATH, TAG, TITLE } from './doc-terms.ts';
import { expandSteps } from './expansion.ts';
import { type IndexData, NOT_LOADED, type Scratch, type Visible } from './index-data.ts';
import { eachPosting } from './postings.ts';
import { type ParsedQuery, parseQuery } from './query.ts';
import { RANKING } from './ranking.ts';
import { dfIn, idfOf, visibleFor } from './statistics.ts';

/** One ranked note of a query. */
export interface RankedNote {
  path: string;
  score: number;
  /** Index terms that matched (for the snippet). */
  terms: string[];
  /** Share of the query's words (weighted by rarity) the note matched, 0 to 1. */
  coverage: number;
}

/** The query's arrays by note id, grown to hold `size` notes. */
function scratchFor(d: IndexData, size: number): Scratch {
  const s = d.scratch;
  if (s && s.size >= size) return s;
  const n = Math.max(64, size + (size >> 3));
  d.scratch = {
    size: n,
    skip: new Uint8Array(n),
    score: new Float64Array(n),
    covered: new Float64Array(n),
    titleHits: new Uint8Array(n),
    best: new Float64Array(n),
    bestBits: new Uint8Array(n),
    bestTerm: new Uint8Array(n * 16),
    coverages: new Float64Array(n),
    touched: new Int32Array(n),
    here: new Int32Array(n),
  };
  return d.scratch;
}

/** What each field bit combination adds beside the body's BM25. */
function fieldBonus(): Float64Array {
  const R = RANKING;
  const bonus = new Float64Array(16);
  for (let bits = 0; bits < 16; bits++) {
    bonus[bits] =
      (bits & TITLE ? R.title : 0) +
      (bits & HEADING ? R.heading : 0) +
      (bits & PATH ? R.path : 0) +
      (bits & TAG ? R.tag : 0);
  }
  return bonus;
}

/** A query being scored: its clauses' terms, the statistics it ranks by, the notes it touched. */
interface Run {
  d: IndexData;
  sc: Scratch;
  vis: Visible | null;
  nDocs: number;
  /** The number of clauses scored (16 at most). */
  nc: number;
  clauseAlts: [string, number][][];
  /** Notes with a score, in `sc.touched[0..nTouched)`. */
  nTouched: number;
}

/**
 * Adds each clause's best term score to every note holding one of its terms (the postings'
 * varints decoded in line: the hot loop of a query); returns the clauses' summed weight.
 */
function scoreClauses(run: Run, avg: number): number {
  const { d, sc, vis, nDocs, nc, clauseAlts } = run;
  const { score, covered, titleHits, best, bestBits, bestTerm, touched, here, skip } = sc;
  const lens = d.docs.len;
  const bonus = fieldBonus();
  const k1 = RANKING.k1;
  const norm0 = k1 * (1 - RANKING.b);
  const normLen = (k1 * RANKING.b) / avg;
  let totalWeight = 0;
  for (let ci = 0; ci < nc; ci++) {
    // A term swept out since an expansion done in steps is skipped.
    const alts = clauseAlts[ci]!.filter(([t]) => d.postings.has(t));
    clauseAlts[ci] = alts;
    let weight = 0;
    for (const [t] of alts) weight = Math.max(weight, idfOf(dfIn(d, vis, t), nDocs));
    if (!alts.length) weight = idfOf(0, nDocs) * 0.5;
    totalWeight += weight;
    let nHere = 0;
    for (let ai = 0; ai < alts.length; ai++) {
      const [term, w] = alts[ai]!;
      const list = d.postings.get(term)!;
      const wi = w * idfOf(dfIn(d, vis, term), nDocs);
      const b = list.b;
      const n = list.n;
      let at = 0;
      let id = 0;
      while (at < n) {
        let c = b[at++]!;
        let v = c & 0x7f;
        for (let mul = 0x80; c & 0x80; mul *= 0x80) {
          c = b[at++]!;
          v += (c & 0x7f) * mul;
        }
        id += v;
        c = b[at++]!;
        v = c & 0x7f;
        for (let mul = 0x80; c & 0x80; mul *= 0x80) {
          c = b[at++]!;
          v += (c & 0x7f) * mul;
        }
        if (skip[id]) continue;
        const tf = v >> 4;
        const bits = v & 15;
        const part = wi * ((tf ? (tf * (k1 + 1)) / (tf + norm0 + normLen * lens[id]!) : 0) + bonus[bits]!);
        if (best[id] === 0) here[nHere++] = id;
        if (part > best[id]!) {
          best[id] = part;
          bestBits[id] = bits;
          bestTerm[id * nc + ci] = ai + 1;
        }
      }
    }
    for (let i = 0; i < nHere; i++) {
      const id = here[i]!;
      if (score[id] === 0) touched[run.nTouched++] = id;
      score[id] = score[id]! + best[id]!;
      covered[id] = covered[id]! + weight;
      if (bestBits[id]! & TITLE) titleHits[id] = titleHits[id]! + 1;
      best[id] = 0;
      bestBits[id] = 0;
    }
  }
  return totalWeight;
}

/** The best `limit` touched notes `accept` takes, best first, kept in a min-heap (worst on top): only they become objects. */
function topNotes(
  run: Run,
  limit: number,
  totalWeight: number,
  accept?: (path: string) => boolean,
): RankedNote[] {
  const { d, sc, nc, clauseAlts } = run;
  const { score, covered, titleHits, bestTerm, touched, coverages } = sc;
  const { paths, tlen, depth } = d.docs;
  const R = RANKING;
  const heapIds: number[] = [];
  const heapScores: number[] = [];
  const worse = (i: number, j: number) =>
    heapScores[i]! < heapScores[j]! ||
    (heapScores[i] === heapScores[j] && paths[heapIds[i]!]! > paths[heapIds[j]!]!);
  const swap = (i: number, j: number) => {
    [heapIds[i], heapIds[j]] = [heapIds[j]!, heapIds[i]!];
    [heapScores[i], heapScores[j]] = [heapScores[j]!, heapScores[i]!];
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heapIds.length && worse(l, m)) m = l;
      if (r < heapIds.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (let i = 0; i < run.nTouched; i++) {
    const id = touched[i]!;
    const coverage = totalWeight ? covered[id]! / totalWeight : 0;
    const wholeTitle = tlen[id]! > 0 && titleHits[id]! >= tlen[id]! ? R.wholeTitle : 1;
    // Among otherwise equal notes, one nearer the vault's root is the more general one.
    const s =
      Math.round(((score[id]! * coverage ** R.coverage * wholeTitle) / (1 + R.depth * depth[id]!)) * 1000) /
      1000;
    if (heapIds.length === limit) {
      const top = heapScores[0]!;
      if (s < top || (s === top && paths[id]! > paths[heapIds[0]!]!)) continue;
    }
    if (accept && !accept(paths[id]!)) continue;
    coverages[id] = coverage;
    if (heapIds.length < limit) {
      heapIds.push(id);
      heapScores.push(s);
      for (let j = heapIds.length - 1; j > 0; ) {
        const parent = (j - 1) >> 1;
        if (!worse(j, parent)) break;
        swap(j, parent);
        j = parent;
      }
    } else {
      heapIds[0] = id;
      heapScores[0] = s;
      down(0);
    }
  }
  const out: RankedNote[] = heapIds.map((id, i) => {
    const terms: string[] = [];
    for (let ci = 0; ci < nc; ci++) {
      const t = bestTerm[id * nc + ci]!;
      if (t) terms.push(clauseAlts[ci]![t - 1]![0]);
    }
    return { path: paths[id]!, score: heapScores[i]!, terms, coverage: coverages[id]! };
  });
  return out.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}

/** Back to zeros for the next query: only the notes this one touched. */
function clearTouched(run: Run): void {
  const { sc, nc } = run;
  for (let i = 0; i < run.nTouched; i++) {
    const id = sc.touched[i]!;
    sc.score[id] = 0;
    sc.covered[id] = 0;
    sc.titleHits[id] = 0;
    sc.coverages[id] = 0;
    sc.best[id] = 0;
    sc.bestBits[id] = 0;
    sc.bestTerm.fill(0, id * nc, id * nc + nc);
  }
}

/**
 * Notes for a query (a string in the query syntax, or parsed), best first, at most `limit`;
 * `accept` filters by path (tag:, path:, phrases are checked by the caller). Filters alone
 * (no words) rank nothing here: the caller lists them. With `see`, the notes it refuses do not
 * exist for the query: skipped before ranking, and every statistic (note count, lengths, each
 * word's frequency, the words prefixes and typos may stand for) is the visible notes' alone.
 * `expanded`: the clauses' terms as `expandQuery` gave them (expanded here when absent).
 */
export function rankNotes(
  d: IndexData,
  input: string | ParsedQuery,
  limit: number,
  accept?: (path: string) => boolean,
  see?: Visibility,
  expanded?: [string, number][][],
): RankedNote[] {
  if (d.lazy) throw new Error(NOT_LOADED);
  const p = typeof input === 'string' ? parseQuery(input) : input;
  const vis = see ? visibleFor(d, see) : null;
  const nDocs = vis ? vis.count : d.docs.size;
  if (!p.clauses.length || !nDocs || limit < 1) return [];
  const size = d.nextId;
  const paths = d.docs.paths;
  // Scratch indexed by note id (typed arrays kept between queries: no per-note objects or maps).
  const sc = scratchFor(d, size);
  const skip = sc.skip;
  skip.fill(0, 0, size);
  if (vis) {
    // `allowed` may be longer than the notes (grown by doubling): only ids below `size` exist.
    const { allowed } = vis;
    for (let id = 0; id < size; id++) if (!allowed[id]) skip[id] = 1;
  } else for (let id = 0; id < size; id++) if (paths[id] === undefined) skip[id] = 1;
  for (const t of p.exclude) {
    const list = d.postings.get(t);
    if (list) eachPosting(list.b, list.n, (id) => (skip[id] = 1));
  }
  const avg = (vis ? vis.totalLen : d.totalLen) / nDocs || 1;
  const nc = Math.min(p.clauses.length, 16);
  const run: Run = { d, sc, vis, nDocs, nc, clauseAlts: [], nTouched: 0 };
  try {
    run.clauseAlts = expanded ?? drain(expandSteps(d, p, vis));
    const totalWeight = scoreClauses(run, avg);
    return topNotes(run, limit, totalWeight, accept);
  } finally {
    clearTouched(run);
  }
}
