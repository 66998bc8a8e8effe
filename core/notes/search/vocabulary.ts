/** Most index terms one prefix or one misspelt word may stand for (keeps a query fast). */
export const MAX_PREFIX = 30;
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

/** How many edits a query word of `length` characters may have: 0 under 4, 1 under 8, else 2. */
export function typoBudget(length: number): number {
  return length < 4 ? 0 : length < 8 ? 1 : 2;
}

/**
 * The index's words, sorted (for prefixes) and by length (for typos), rebuilt lazily: words
 * added since the last build wait in a small set scanned as is, until it grows large.
 */
export function createVocabulary(terms: () => Iterable<string>, alive: (t: string) => boolean) {
  let sorted: string[] | null = null;
  let byLength: string[][] = [];
  const fresh = new Set<string>();
  const build = (): string[] => {
    if (sorted) return sorted;
    sorted = [...terms()].sort();
    byLength = [];
    for (const t of sorted) {
      const bucket = byLength[t.length];
      if (bucket) bucket.push(t);
      else byLength[t.length] = [t];
    }
    fresh.clear();
    return sorted;
  };
  return {
    /** A word became known (a new postings list). */
    added(t: string): void {
      if (!sorted) return;
      fresh.add(t);
      if (fresh.size > 4096) sorted = null;
    },
    /** Forgets the built lists (the index was reloaded). */
    reset(): void {
      sorted = null;
      fresh.clear();
    },
    /** Known words starting with `p` (not `p` itself), at most `max`, in order. */
    prefixed(p: string, max = MAX_PREFIX): string[] {
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
        if (t !== p && alive(t)) out.push(t);
      }
      for (const t of fresh) if (out.length < max && t !== p && t.startsWith(p) && alive(t)) out.push(t);
      return out;
    },
    /**
     * Known words within `k` edits of any of `forms` (a query word's stem, the word itself and the
     * word less a few trailing letters, since the index holds stems), closest first, at most `max`.
     */
    near(forms: string[], k: number, max = MAX_TYPO): { term: string; distance: number }[] {
      build();
      const found: { term: string; distance: number }[] = [];
      const consider = (t: string) => {
        if (forms.includes(t)) return;
        let d = k + 1;
        for (const f of forms) d = Math.min(d, editDistance(f, t, k));
        if (d <= k && alive(t)) found.push({ term: t, distance: d });
      };
      const lens = forms.map((f) => f.length);
      for (let len = Math.max(1, Math.min(...lens) - k); len <= Math.max(...lens) + k; len++) {
        for (const t of byLength[len] ?? []) consider(t);
      }
      for (const t of fresh) consider(t);
      return found.sort((a, b) => a.distance - b.distance).slice(0, max * 4);
    },
  };
}
