/**
 * A note's index terms: its fields (`SearchDoc`) turned into `[body length, title words, term,
 * tf * 16 + field bits, ...]`, and that list packed for a hop between threads.
 */
import type { SearchDoc } from './fields.ts';
import { eachTerm, pathWords, terms as termsOf } from './text.ts';

/** Field bits kept with each posting beside the body's term count (`tf * 16 + bits`). */
export const TITLE = 1;
export const HEADING = 2;
export const PATH = 4;
export const TAG = 8;

/**
 * Terms of a large note joined to the lists per step of `putSteps` (well under a ms: the caller's
 * `sliced` runs steps until its slice of a few ms is spent).
 */
export const PUT_STEP = 512;
/** Characters of a large note's body turned into terms per step of `putSteps`. */
const TEXT_STEP = 8 * 1024;

/** One note's words for the journal: `[body length, title words, term, tf * 16 + field bits, ...]`. */
export type DocTerms = (string | number)[];

/**
 * A note's words packed for a hop between threads: `keys` the terms joined by `\n` (no term holds
 * white space), `vals` their values. A structured clone of half a million short strings is read
 * back in one piece, and each becomes an object to collect; packed, the copy is one string and
 * one buffer, and the index makes a string only for each term it looks up (`putSteps`).
 */
export interface PackedTerms {
  len: number;
  tlen: number;
  keys: string;
  vals: Uint32Array;
}

/** `terms` packed (`PackedTerms`). */
export function packTerms(terms: DocTerms): PackedTerms {
  const n = (terms.length - 2) / 2;
  const keys: string[] = new Array(n);
  const vals = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = terms[2 + 2 * i] as string;
    vals[i] = terms[3 + 2 * i] as number;
  }
  return { len: terms[0] as number, tlen: terms[1] as number, keys: keys.join('\n'), vals };
}

/** The `DocTerms` of packed terms (for the journal, which stores that form). */
export function unpackTerms(p: PackedTerms): DocTerms {
  const out: DocTerms = [p.len, p.tlen];
  eachPacked(p, 0, p.vals.length, 0, (t, v) => out.push(t, v));
  return out;
}

/** Calls `fn` with the terms `from..to` of `p` (`at`: where term `from` starts in `p.keys`); returns where `to` starts. */
export function eachPacked(
  p: PackedTerms,
  from: number,
  to: number,
  at: number,
  fn: (term: string, value: number) => void,
): number {
  const { keys, vals } = p;
  for (let i = from; i < to; i++) {
    let end = keys.indexOf('\n', at);
    if (end < 0) end = keys.length;
    fn(keys.slice(at, end), vals[i]!);
    at = end + 1;
  }
  return at;
}

export const isPacked = (t: SearchDoc | DocTerms | PackedTerms): t is PackedTerms =>
  !Array.isArray(t) && 'vals' in t;

/** Runs `steps` to their end at once; their result. */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** A note's index terms: `[body length, title words, term, tf * 16 + bits, ...]`. */
export function docTerms(doc: SearchDoc): DocTerms {
  return drain(docTermsSteps(doc));
}

/**
 * `docTerms` in steps: the body `TEXT_STEP` characters a step (cut after a white space, so no word
 * is split), then the short fields and the list.
 */
export function* docTermsSteps(doc: SearchDoc): Generator<void, DocTerms> {
  const vals = new Map<string, number>();
  let len = 0;
  const count = (t: string) => {
    vals.set(t, (vals.get(t) ?? 0) + 16);
    len++;
  };
  const text = doc.text;
  if (text.length <= TEXT_STEP) eachTerm(text, false, count);
  else {
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + TEXT_STEP);
      while (end < text.length && !/\s/.test(text[end - 1]!)) end++;
      eachTerm(text.slice(at, end), false, count);
      at = end;
      yield;
    }
  }
  let bit = 0;
  // Stop words count in the short fields (a title such as "To do" must stay findable).
  const mark = (t: string) => vals.set(t, (vals.get(t) ?? 0) | bit);
  const titleWords = new Set(termsOf(doc.title));
  bit = TITLE;
  eachTerm(doc.title, true, mark);
  for (const a of doc.aliases ?? []) eachTerm(a, true, mark);
  bit = HEADING;
  for (const h of doc.headings ?? []) eachTerm(h, true, mark);
  bit = PATH;
  eachTerm(pathWords(doc.path), true, mark);
  bit = TAG;
  eachTerm(doc.tags.replace(/[/_-]/g, ' '), true, mark);
  const out: DocTerms = [len, titleWords.size];
  let n = 0;
  for (const [t, v] of vals) {
    out.push(t, Math.min(v, 0x3ffff));
    if (++n % PUT_STEP === 0) yield;
  }
  return out;
}
