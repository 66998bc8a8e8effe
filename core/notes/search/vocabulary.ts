import { ShardedSet } from './sharded.ts';

/** Most index terms one prefix or one misspelt word may stand for (keeps a query fast). */
export const MAX_PREFIX = 30;
export const MAX_TYPO = 6;
/**
 * A query's budget for typo matching (docs/reference/search.md): at most `TYPO_WORDS` of its words are
 * looked up as misspellings, and each look-up computes at most `TYPO_WORK` rows of the
 * edit-distance table (a row per trie node visited, per recent word compared, a few per variant
 * stemmed): a few ms whatever the vocabulary. The walk takes the words sharing the misspelt
 * word's first letter first (most typos keep it); a look-up that runs out keeps what it found.
 */
export const TYPO_WORDS = 8;
export const TYPO_WORK = 12_000;

/** What one typo look-up may still spend (`left` rows); `used` counts what it spent. */
export interface TypoBudget {
  left: number;
  used: number;
}

export const typoWork = (rows = TYPO_WORK): TypoBudget => ({ left: rows, used: 0 });

/** Takes `rows` from the budget; false once it is spent. */
export function spend(b: TypoBudget | undefined, rows: number): boolean {
  if (!b) return true;
  b.used += rows;
  b.left -= rows;
  return b.left > 0;
}

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

/** How many edits a query word of `length` characters may have: 0 under 4, 1 under 8, else 2. */
export function typoBudget(length: number): number {
  return length < 4 ? 0 : length < 8 ? 1 : 2;
}

/** Words added since the last build past which the vocabulary wants a rebuild (`stale`). */
const FRESH_MAX = 4096;
/** Words taken, or compared while sorting, per step of `rebuildSteps`. */
const REBUILD_STEP = 4096;

/**
 * The index's words, sorted (for prefixes, and walked as a trie for typos). Built at once on first
 * use; after that rebuilt only in steps (`rebuildSteps`, which the index's upkeep runs with yields
 * between them), never inside a query: words added since the last build wait in a set scanned as
 * is, and words no note holds any more stay in the sorted list (`alive` filters them) until then.
 */
export function createVocabulary(terms: () => Iterable<string>, alive: (t: string) => boolean) {
  let sorted: string[] | null = null;
  let fresh = new ShardedSet();
  /** Words added while a rebuild runs (the fresh set it leaves). */
  let during: ShardedSet | null = null;
  /** Words the sorted list holds that no note holds any more (a sweep dropped them). */
  let gone = 0;
  const build = (): string[] => {
    if (sorted) return sorted;
    sorted = [...terms()].sort();
    fresh.clear();
    gone = 0;
    return sorted;
  };
  return {
    /** A word became known (a new postings list). */
    added(t: string): void {
      if (!sorted) return;
      fresh.add(t);
      during?.add(t);
    },
    /** A word is no longer known (its list was dropped). */
    dropped(): void {
      gone++;
    },
    /** Forgets the built lists (the index was reloaded). */
    reset(): void {
      sorted = null;
      fresh.clear();
      gone = 0;
    },
    /** How many words the built lists hold (sorted and fresh, dropped ones included until a rebuild). */
    get size(): number {
      return (sorted?.length ?? 0) + fresh.size;
    },
    /** Whether a rebuild is due: many words added, or many dropped, since the last. */
    get stale(): boolean {
      return !!sorted && (fresh.size > FRESH_MAX || gone > Math.max(FRESH_MAX, sorted.length >> 3));
    },
    /**
     * Rebuilds the sorted list in steps of `REBUILD_STEP` words (a merge sort of runs), the old
     * lists answering meanwhile; words added during it stay fresh.
     */
    *rebuildSteps(): Generator<void> {
      if (!sorted || during) return;
      const added = new ShardedSet();
      during = added;
      try {
        let runs: string[][] = [];
        let run: string[] = [];
        for (const t of terms()) {
          run.push(t);
          if (run.length === REBUILD_STEP) {
            runs.push(run.sort());
            run = [];
            yield;
          }
        }
        runs.push(run.sort());
        yield;
        while (runs.length > 1) {
          const next: string[][] = [];
          for (let i = 0; i < runs.length; i += 2) {
            const a = runs[i]!;
            const b = runs[i + 1];
            if (!b) {
              next.push(a);
              continue;
            }
            const out = new Array<string>(a.length + b.length);
            let x = 0;
            let y = 0;
            let o = 0;
            while (x < a.length || y < b.length) {
              out[o++] = y >= b.length || (x < a.length && a[x]! < b[y]!) ? a[x++]! : b[y++]!;
              if (o % REBUILD_STEP === 0) yield;
            }
            next.push(out);
          }
          runs = next;
        }
        sorted = runs[0]!;
        fresh = added;
        gone = 0;
      } finally {
        during = null;
      }
    },
    /** Known words starting with `p` (not `p` itself), at most `max`, in order; `live` overrides `alive`. */
    prefixed(p: string, max = MAX_PREFIX, live: (t: string) => boolean = alive): string[] {
      const list = build();
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid]! < p) lo = mid + 1;
        else hi = mid;
      }
      const out: string[] = [];
      for (let i = lo; i < list.length && out.length < max; i++) {
        const t = list[i]!;
        if (!t.startsWith(p)) break;
        if (t !== p && live(t)) out.push(t);
      }
      if (live === alive) {
        for (const t of fresh) if (out.length < max && t !== p && t.startsWith(p) && live(t)) out.push(t);
        return out;
      }
      // A scoped query: the first `max` in order over both lists, as a vault of its own would give.
      for (const t of fresh) if (t !== p && t.startsWith(p) && live(t)) out.push(t);
      return out.sort().slice(0, max);
    },
    /**
     * Known words within `k` edits of any of `forms` (a query word's stem, the word itself and the
     * word less a few trailing letters, since the index holds stems), closest first, at most `max`.
     * Walks the sorted words as a trie: rows of the edit-distance table are shared by words with a
     * common prefix, and a prefix already more than `k` edits away skips every word under it, so a
     * look-up visits a few thousand prefixes whatever the size of the vocabulary. `live` overrides
     * `alive` (a scoped query's words).
     */
    near(
      forms: string[],
      k: number,
      max = MAX_TYPO,
      live: (t: string) => boolean = alive,
      budget?: TypoBudget,
    ): { term: string; distance: number }[] {
      const list = build();
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
    },
  };
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
