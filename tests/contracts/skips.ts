import { expect, it } from 'vitest';

/**
 * Cases of a contract suite an adapter does not run, and why: declared up front by the test file
 * that runs the suite, never discovered at run time. The skipped cases show in the report with
 * the reason in their title.
 */
export interface DeclaredSkip {
  /** Why the adapter cannot or need not hold these cases (one sentence, shown in the report). */
  reason: string;
  /** Exact titles of the suite's cases. */
  tests: string[];
}

/**
 * The `it` of a contract suite with `skips` applied: a case named in a skip is registered as
 * skipped with its reason. Call `checkSkips()` last in the suite: it adds a case that fails when
 * a skip names no case of the suite (a renamed case would otherwise silently run, or a stale
 * skip linger), or gives no reason.
 */
export function withDeclaredSkips(skips: DeclaredSkip[] = []) {
  const reasons = new Map<string, string>();
  for (const s of skips) for (const t of s.tests) reasons.set(t, s.reason);
  const titles = new Set<string>();
  const test = (title: string, fn: () => Promise<void> | void, timeoutMs?: number) => {
    titles.add(title);
    const reason = reasons.get(title);
    if (reason === undefined) it(title, fn, timeoutMs);
    else it.skip(`${title} [skipped: ${reason}]`, fn);
  };
  const checkSkips = () =>
    it('declares skips only for cases of this suite, each with a reason', () => {
      expect([...reasons.keys()].filter((t) => !titles.has(t))).toEqual([]);
      expect(skips.filter((s) => s.reason.trim() === '' || s.tests.length === 0)).toEqual([]);
    });
  return { test, checkSkips };
}
