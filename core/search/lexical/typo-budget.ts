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
