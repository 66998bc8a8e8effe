import { stemmer } from 'stemmer';

const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu;
const LATIN = /^[a-z]+$/;

/** English words too common to tell notes apart: not indexed from bodies, dropped from queries. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just let me more
  most my myself no nor not of off on once only or other our ours ourselves out over own same she
  should so some such than that the their theirs them themselves then there these they this those
  through to too under until up very was we were what when where which while who whom why will with
  would you your yours yourself yourselves s t don doesn isn use using used get getting want`.split(/\s+/),
);

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Calls `fn` with each lowercased word of `text` (CJK characters one each), without diacritics,
 * words over 40 characters left out. ASCII text (most notes) takes a plain scan of character
 * codes, which gives the same words as the Unicode pattern does on it, in a fraction of the time.
 */
function eachWord(text: string, fn: (w: string) => void): void {
  if (NON_ASCII.test(text)) {
    for (const m of text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().matchAll(TOKEN)) {
      if (m[0].length <= 40) fn(m[0]);
    }
    return;
  }
  const s = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start <= 40) fn(s.slice(start, i));
      start = -1;
    }
  }
}

/** Lowercased words (CJK characters one each), without diacritics. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  eachWord(text, (w) => out.push(w));
  return out;
}

const stems = new Map<string, string>();
/**
 * The index form of one lowercased word: the Porter stem for Latin-letter words (English), the
 * word itself otherwise (other scripts, numbers, CJK characters). Memoized (bounded).
 */
export function stem(word: string): string {
  if (word.length < 3 || !LATIN.test(word)) return word;
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stems.size > 50_000) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/** A word's index form, a space before it for a stop word (stems never start with one); memoized. */
const forms = new Map<string, string>();
function formOf(w: string): string {
  let f = forms.get(w);
  if (f === undefined) {
    f = (STOP_WORDS.has(w) ? ' ' : '') + stem(w);
    if (forms.size > 100_000) forms.clear();
    forms.set(w, f);
  }
  return f;
}

/** Calls `fn` with each index term of a text: stems, stop words left out unless `keepStop`. */
export function eachTerm(text: string, keepStop: boolean, fn: (t: string) => void): void {
  eachWord(text, (w) => {
    const f = formOf(w);
    if (f.charCodeAt(0) !== 32) fn(f);
    else if (keepStop) fn(f.slice(1));
  });
}

/** The index terms of a text: stems, stop words left out unless `keepStop`. */
export function terms(text: string, keepStop = false): string[] {
  const out: string[] = [];
  eachTerm(text, keepStop, (t) => out.push(t));
  return out;
}

/** Most headings of one note indexed (a huge generated note keeps its first ones). */
const MAX_HEADINGS = 1000;

/** ATX headings of a markdown body (outside fenced code), their text only, distinct, in order. */
export function headingsOf(markdown: string): string[] {
  const out = new Set<string>();
  let fence: string | null = null;
  for (let at = 0; at < markdown.length && out.size < MAX_HEADINGS; ) {
    let end = markdown.indexOf('\n', at);
    if (end < 0) end = markdown.length;
    let i = at;
    while (i < end && i - at < 4 && markdown.charCodeAt(i) === 32) i++;
    const c = markdown[i];
    if (c === '`' || c === '~' || (c === '#' && fence === null)) {
      const line = markdown.slice(at, end);
      const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (f) {
        if (fence === null) fence = f[1]!.slice(0, 3);
        else if (f[1]!.startsWith(fence)) fence = null;
      } else if (fence === null) {
        const h = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/.exec(line);
        if (h) out.add(h[1]!);
      }
    }
    at = end + 1;
  }
  return [...out];
}

/** Aliases from frontmatter (`aliases` or `alias`, a list or one string). */
export function aliasesOf(frontmatter: Record<string, unknown>): string[] {
  const v = frontmatter.aliases ?? frontmatter.alias;
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((a): a is string => typeof a === 'string') : [];
}

/** Folder names and the file name (without extension) of a path, as words. */
export function pathWords(path: string): string {
  return path.replace(/\.[^./]+$/, '').replace(/[/_\-.]+/g, ' ');
}
