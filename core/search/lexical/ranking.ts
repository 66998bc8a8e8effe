/**
 * The ranking's weights (tuned on bench/search-eval with tune.ts, see docs/reference/search.md).
 * What a word in each field adds (the body's count goes through BM25: at most k1 + 1);
 * `coverage`: the power of the share of the query a note covers; `wholeTitle`: the lift when
 * every title word is in the query; `depth`: the discount per folder level; `prefix`: the weight
 * of a word matched as a prefix; `proximity`: the lift for the query's neighbouring words side by side.
 */
export const RANKING = {
  title: 1.25,
  heading: 0.5,
  path: 0.9,
  tag: 1,
  k1: 1.35,
  b: 0.55,
  prefix: 0.2,
  coverage: 0.5,
  wholeTitle: 1,
  depth: 0.06,
  proximity: 0.4,
};

/** A word matched as a misspelling counts less than the word itself (by edits). */
export const W_TYPO = [1, 0.6, 0.4];
