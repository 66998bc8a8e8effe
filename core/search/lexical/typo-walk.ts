/**
 * Words within a few edits of a misspelt one: optimal-string-alignment edit distance, the words
 * one edit away, and the walk of a sorted word list as a trie (`nearWords`, `walkWithin`) that
 * shares rows of the distance table between words of a common prefix. Each walk spends a
 * `TypoBudget`.
 */
import { spend, type TypoBudget } from './typo-budget.ts';

/** Most index terms one misspelt word may stand for (keeps a query fast). */
export const MAX_TYPO = 6;

const row0 = new Int32Array(48);
const row1 = new Int32Array(48);
const row2 = new Int32Array(48);

/**
 * Optimal-string-alignment edit distance (a swap of two neighbours counts one), or `k + 1` as
 * soon as it must exceed `k` (rows are cut off early, so a far word costs a few steps).
 */
export function editDistance(a: string, b: string, k: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > k) return k + 1;
  if (n > 46 || m > 46) return k + 1;
  let prev2 = row0;
  let prev = row1;
  let cur = row2;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let best = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        v = Math.min(v, prev2[j - 2]! + 1);
      }
      cur[j] = v;
      if (v < best) best = v;
    }
    if (best > k) return k + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m]!;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every a-z word one edit (deletion, swap of neighbours, substitution, insertion) from `w`. */
export function oneEdit(w: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= w.length; i++) {
    const a = w.slice(0, i);
    const b = w.slice(i);
    if (b) out.add(a + b.slice(1));
    if (b.length > 1) out.add(a + b[1] + b[0] + b.slice(2));
    for (const c of LETTERS) {
      if (b && c !== b[0]) out.add(a + c + b.slice(1));
      out.add(a + c + b);
    }
  }
  out.delete(w);
  return out;
}

/**
 * Words of the sorted `list` and of `fresh` within `k` edits of any of `forms` (a query word's
 * stem, the word itself and the word less a few trailing letters, since the index holds stems),
 * closest first, at most `max * 4`. Walks the sorted words as a trie: rows of the edit-distance
 * table are shared by words with a common prefix, and a prefix already more than `k` edits away
 * skips every word under it, so a look-up visits a few thousand prefixes whatever the size of the
 * vocabulary. Only words `live` accepts are kept.
 */
export function nearWords(
  list: string[],
  fresh: Iterable<string>,
  forms: string[],
  k: number,
  max: number,
  live: (t: string) => boolean,
  budget?: TypoBudget,
): { term: string; distance: number }[] {
  const best = new Map<string, number>();
  const note = (t: string, d: number) => {
    if (d <= k && !forms.includes(t) && (best.get(t) ?? k + 1) > d && live(t)) best.set(t, d);
  };
  // A form that begins another is one more column of the longer one's table: one walk for both.
  const longest = [...new Set(forms)].sort((a, b) => b.length - a.length);
  const done = new Set<string>();
  const walks: [string, number[]][] = [];
  for (const f of longest) {
    if (done.has(f)) continue;
    const cols: number[] = [];
    for (const g of longest) {
      if (!done.has(g) && f.startsWith(g)) {
        cols.push(g.length);
        done.add(g);
      }
    }
    walks.push([f, cols]);
  }
  // Words with the form's first letter first (the likeliest: a budget cut loses the others).
  const ranges = walks.map(([f]) => {
    const lo = lowerBound(list, f[0] ?? '');
    return [lo, lowerBound(list, String.fromCharCode((f.charCodeAt(0) || 0) + 1), lo)] as const;
  });
  walks.forEach(([f, cols], i) => {
    walkWithin(list, f, k, note, cols, budget, ranges[i]![0], ranges[i]![1]);
  });
  walks.forEach(([f, cols], i) => {
    walkWithin(list, f, k, note, cols, budget, 0, ranges[i]![0]);
    walkWithin(list, f, k, note, cols, budget, ranges[i]![1], list.length);
  });
  for (const t of fresh) {
    if (!spend(budget, forms.length)) break;
    let d = k + 1;
    for (const f of forms) d = Math.min(d, editDistance(f, t, k));
    note(t, d);
  }
  return [...best]
    .map(([term, distance]) => ({ term, distance }))
    .sort((a, b) => a.distance - b.distance || (a.term < b.term ? -1 : 1))
    .slice(0, max * 4);
}

/** Rows of the edit-distance table by depth in the trie (words up to 46 characters, as `editDistance`). */
const ROWS = Array.from({ length: 48 }, () => new Int32Array(48));

/**
 * Calls `found(word, distance)` for each word of the sorted `list` within `k` edits of `f`
 * (optimal string alignment, as `editDistance`), walking the list as a trie (see `near`); with
 * `cols`, the distance is the least to any of the prefixes of `f` of those lengths.
 */
export function walkWithin(
  list: string[],
  f: string,
  k: number,
  found: (t: string, d: number) => void,
  cols: number[] = [f.length],
  budget?: TypoBudget,
  from = 0,
  to = list.length,
): void {
  const m = f.length;
  if (m > 46) return;
  const first = ROWS[0]!;
  for (let j = 0; j <= m; j++) first[j] = Math.min(j, k + 1);
  const codes = new Int32Array(m);
  for (let j = 0; j < m; j++) codes[j] = f.charCodeAt(j);
  /** Depth to which `ROWS` hold the table of `prev`'s prefix. */
  let valid = 0;
  let prev = '';
  const deepest = Math.min(46, m + k);
  if (budget && budget.left <= 0) return;
  for (let i = from; i < to; ) {
    const t = list[i]!;
    let d = 0;
    const lcp = Math.min(valid, t.length, prev.length);
    while (d < lcp && t.charCodeAt(d) === prev.charCodeAt(d)) d++;
    let pruned = -1;
    const top = Math.min(t.length, deepest);
    for (let e = d + 1; e <= top; e++) {
      const up = ROWS[e - 1]!;
      const row = ROWS[e]!;
      const c = t.charCodeAt(e - 1);
      const cPrev = e > 1 ? t.charCodeAt(e - 2) : -1;
      const up2 = e > 1 ? ROWS[e - 2]! : null;
      // Only the band |j - e| <= k can hold k or less; the cells just outside it read as k + 1.
      const lo = Math.max(1, e - k);
      const hi = Math.min(m, e + k);
      row[lo - 1] = lo === 1 ? Math.min(e, k + 1) : k + 1;
      if (hi < m) row[hi + 1] = k + 1;
      let least = row[lo - 1]!;
      for (let j = lo; j <= hi; j++) {
        const fc = codes[j - 1]!;
        let v = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (fc === c ? 0 : 1));
        if (up2 && j > 1 && c === codes[j - 2] && cPrev === fc) v = Math.min(v, up2[j - 2]! + 1);
        row[j] = v;
        if (v < least) least = v;
      }
      if (least > k) {
        pruned = e;
        break;
      }
    }
    // The rows this word cost (those it shared with the previous word were kept).
    if (!spend(budget, Math.max(1, (pruned > 0 ? pruned : top) - d))) return;
    prev = t;
    if (pruned > 0) {
      // No word under this prefix comes within k edits: jump past them all.
      valid = pruned - 1;
      // Galloping from here (most prefixes cover a few words), then halving.
      let lo = i + 1;
      let step = 1;
      while (lo + step - 1 < to && startsAlike(list[lo + step - 1]!, t, pruned)) {
        lo += step;
        step *= 2;
      }
      let hi = Math.min(to, lo + step - 1);
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (startsAlike(list[mid]!, t, pruned)) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
      continue;
    }
    valid = top;
    if (t.length <= deepest) {
      const row = ROWS[t.length]!;
      let dist = k + 1;
      for (const c of cols) if (Math.abs(c - t.length) <= k) dist = Math.min(dist, row[c]!);
      if (dist <= k) found(t, dist);
    }
    i++;
  }
}

/** The first index of sorted `list` from `lo` whose word is not below `w`. */
function lowerBound(list: string[], w: string, lo = 0): number {
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < w) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether `a` begins with the first `n` characters of `b` (no string made). */
function startsAlike(a: string, b: string, n: number): boolean {
  if (a.length < n) return false;
  for (let i = n - 1; i >= 0; i--) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}
