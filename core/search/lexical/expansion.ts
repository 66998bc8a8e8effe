/**
 * What each word of a query stands for in the index: the word itself, the words it begins (the
 * last word, being typed), and the words a few edits away when it is not in the index, each with
 * its weight. Typo look-ups spend the query's budget (typo-budget.ts): at most `TYPO_WORDS`
 * words, `TYPO_WORK` rows each.
 */
import type { Visibility } from '../types.ts';
import { type IndexData, NOT_LOADED, type Visible } from './index-data.ts';
import type { ParsedQuery } from './query.ts';
import { RANKING, W_TYPO } from './ranking.ts';
import { dfIn, visibleDf, visibleFor } from './statistics.ts';
import { stem } from './text.ts';
import { spend, TYPO_WORDS, type TypoBudget, typoWork } from './typo-budget.ts';
import { MAX_TYPO, oneEdit } from './typo-walk.ts';

/** How many edits a query word of `length` characters may have: 0 under 4, 1 under 8, else 2. */
export function typoBudget(length: number): number {
  return length < 4 ? 0 : length < 8 ? 1 : 2;
}

/** Index terms one misspelt word stands for (`k` edits at most), best first, with their weights. */
function typoTerms(
  d: IndexData,
  q: string,
  word: string,
  k: number,
  vis: Visible | null,
  has: ((t: string) => boolean) | undefined,
  stats: { words: number; used: number },
): [string, number][] {
  stats.words++;
  const budget: TypoBudget = typoWork();
  const forms = new Set([q, word]);
  for (let cut = 1; cut <= 3 && word.length - cut >= Math.max(4, q.length); cut++)
    forms.add(word.slice(0, -cut));
  // The word one edit away, then stemmed ("hotkyes" -> "hotkeys" -> "hotkei"): the index holds
  // stems. First (cheap, and what most typos are); a stem costs about as much as a few rows.
  const edits = oneEdit(word);
  spend(budget, edits.size * 4);
  const close: string[] = [];
  for (const v of edits) {
    const t = stem(v);
    if ((has ? has(t) : d.postings.has(t)) && !close.includes(t)) close.push(t);
  }
  const near = d.vocab.near(
    [...forms].filter((f) => f.length >= 3),
    k,
    undefined,
    has,
    budget,
  );
  for (const t of close) if (!near.some((n) => n.term === t)) near.push({ term: t, distance: 1 });
  stats.used += budget.used;
  near.sort((a, b) => a.distance - b.distance || dfIn(d, vis, b.term) - dfIn(d, vis, a.term));
  return near.slice(0, MAX_TYPO).map((n) => [n.term, W_TYPO[n.distance] ?? 0.3]);
}

/**
 * Index terms standing for one query word, each with its weight (exact 1, prefix, typo); with
 * `vis`, only words some visible note holds (a word only hidden notes hold is never offered).
 */
function alternatives(
  d: IndexData,
  q: string,
  word: string,
  prefix: boolean,
  vis: Visible | null,
  stats: { words: number; used: number },
): [string, number][] {
  const has = vis ? (t: string) => visibleDf(d, vis, t) > 0 : undefined;
  const out: [string, number][] = (has ? has(q) : d.postings.has(q)) ? [[q, 1]] : [];
  if (prefix && q.length >= 2) {
    for (const t of d.vocab.prefixed(q, undefined, has)) out.push([t, RANKING.prefix]);
    if (word !== q && word.length > q.length) {
      for (const t of d.vocab.prefixed(word, undefined, has))
        if (!out.some(([x]) => x === t)) out.push([t, RANKING.prefix]);
    }
  }
  const k = /^[a-z]+$/.test(word) ? typoBudget(word.length) : 0;
  if (!out.length && k > 0 && stats.words < TYPO_WORDS)
    out.push(...typoTerms(d, q, word, k, vis, has, stats));
  return out;
}

/**
 * The index terms standing for each of the query's clauses (the first 16), in steps: one after
 * each clause whose words were looked up as misspellings, so a caller can yield between them.
 */
export function* expandSteps(
  d: IndexData,
  p: ParsedQuery,
  vis: Visible | null,
): Generator<void, [string, number][][]> {
  const out: [string, number][][] = [];
  const budget = { words: 0, used: 0 };
  const nc = Math.min(p.clauses.length, 16);
  for (let ci = 0; ci < nc; ci++) {
    const clause = p.clauses[ci]!;
    const last = ci === nc - 1 && p.prefixLast;
    const alts: [string, number][] = [];
    const looked = budget.words;
    for (let i = 0; i < clause.alts.length && alts.length < 250; i++) {
      const word = clause.words[i] ?? clause.alts[i]!;
      for (const alt of alternatives(d, clause.alts[i]!, word, last, vis, budget)) {
        if (alts.length < 250 && !alts.some(([t]) => t === alt[0])) alts.push(alt);
      }
    }
    out.push(alts);
    d.lastTypo = { words: budget.words, rows: budget.used };
    if (budget.words > looked && ci < nc - 1) yield;
  }
  return out;
}

/**
 * The terms each clause of `p` stands for (exact, prefixes, misspellings), in steps a caller
 * yields between (`runSearch`): pass the result to the ranking as `expanded`.
 */
export function expandQuery(
  d: IndexData,
  p: ParsedQuery,
  see?: Visibility,
): Generator<void, [string, number][][]> {
  if (d.lazy) throw new Error(NOT_LOADED);
  return expandSteps(d, p, see ? visibleFor(d, see) : null);
}
