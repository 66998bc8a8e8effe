import { ShardedSet } from './postings.ts';
import type { TypoBudget } from './typo-budget.ts';
import { MAX_TYPO, nearWords } from './typo-walk.ts';

/** Most index terms one prefix may stand for (keeps a query fast). */
export const MAX_PREFIX = 30;
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
     * Known words within `k` edits of any of `forms`, closest first (`nearWords`); `live`
     * overrides `alive` (a scoped query's words).
     */
    near(
      forms: string[],
      k: number,
      max = MAX_TYPO,
      live: (t: string) => boolean = alive,
      budget?: TypoBudget,
    ): { term: string; distance: number }[] {
      return nearWords(build(), fresh, forms, k, max, live, budget);
    },
  };
}

export type Vocabulary = ReturnType<typeof createVocabulary>;
