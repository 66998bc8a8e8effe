import { STOP_WORDS, stem, tokenize } from './text.ts';

/** One slot of the query: any of its alternatives (`a OR b`) covers it. */
export interface Clause {
  /** Index terms (stems), any of which covers the clause. */
  alts: string[];
  /** The words as typed (lowercased), for typo matching beside the stems. */
  words: string[];
}

/** A search query taken apart (see docs/reference/search.md for the syntax). */
export interface ParsedQuery {
  clauses: Clause[];
  /** Whether the last clause's word may also match as a prefix (the word being typed). */
  prefixLast: boolean;
  /** Exact phrases every hit contains, and phrases no hit contains (lowercased words joined by one space). */
  phrases: string[];
  notPhrases: string[];
  /** Terms no hit contains. */
  exclude: string[];
  /** Lowercased tags (a hit has the tag or one nested under it), folder prefixes, file-name parts. */
  tags: string[];
  notTags: string[];
  paths: string[];
  notPaths: string[];
  files: string[];
  /** The query's words in order, stop words included (for the phrase-proximity bonus). */
  words: string[];
}

const PART = /(-?)(?:(tag|path|file):)?"([^"]*)"|(\S+)/g;
const FIELD = /^(-?)(tag|path|file):(.+)$/;

const empty = (): ParsedQuery => ({
  clauses: [],
  prefixLast: false,
  phrases: [],
  notPhrases: [],
  exclude: [],
  tags: [],
  notTags: [],
  paths: [],
  notPaths: [],
  files: [],
  words: [],
});

const clean = (v: string) => v.trim().toLowerCase();

/** Adds words as clauses; `join` merges the first into the previous clause (after `OR`). */
function addWords(p: ParsedQuery, words: string[], join: boolean): void {
  for (const w of words) {
    p.words.push(w);
    if (STOP_WORDS.has(w)) continue;
    const s = stem(w);
    const prev = p.clauses[p.clauses.length - 1];
    if (join && prev) {
      if (!prev.alts.includes(s)) {
        prev.alts.push(s);
        prev.words.push(w);
      }
    } else {
      p.clauses.push({ alts: [s], words: [w] });
    }
    join = false;
  }
}

/**
 * Parses a query: words (any may match, more matched ranks higher), `"exact phrase"`, `-word`,
 * `-"phrase"`, `a OR b`, `tag:x`, `path:folder`, `file:name` (each filter also negated with `-`).
 * Never throws: anything it cannot read as syntax is taken as plain words, and a query with no
 * positive part (only exclusions) is read as plain words.
 */
export function parseQuery(q: string): ParsedQuery {
  const p = empty();
  let join = false;
  let lastPlain = false;
  for (const m of q.matchAll(PART)) {
    const neg = m[1] === '-';
    let field = m[2];
    let value = m[3];
    const bare = m[4];
    if (bare !== undefined) {
      if (bare === 'OR') {
        join = p.clauses.length > 0;
        continue;
      }
      const f = FIELD.exec(bare);
      if (f) {
        field = f[2];
        value = f[3];
        if (f[1] === '-') {
          if (field === 'tag') p.notTags.push(clean(value!).replace(/^#/, ''));
          else if (field === 'path') p.notPaths.push(clean(value!).replace(/^\/+/, ''));
          else addWords(p, tokenize(value!), join);
          join = false;
          lastPlain = false;
          continue;
        }
      } else if (bare.startsWith('-') && bare.length > 1) {
        for (const w of tokenize(bare.slice(1))) p.exclude.push(stem(w));
        join = false;
        lastPlain = false;
        continue;
      } else {
        addWords(p, tokenize(bare), join);
        join = false;
        lastPlain = true;
        continue;
      }
    }
    lastPlain = false;
    const v = value ?? '';
    if (field === 'tag' && clean(v)) (neg ? p.notTags : p.tags).push(clean(v).replace(/^#/, ''));
    else if (field === 'path' && clean(v))
      (neg ? p.notPaths : p.paths).push(clean(v).replace(/^\/+|\/+$/g, ''));
    else if (field === 'file' && clean(v)) p.files.push(clean(v));
    else {
      const words = tokenize(v);
      if (!words.length) continue;
      if (neg) p.notPhrases.push(words.join(' '));
      else {
        if (words.length > 1) p.phrases.push(words.join(' '));
        addWords(p, words, join);
      }
    }
    join = false;
  }
  p.clauses = p.clauses.slice(0, 16);
  p.prefixLast = lastPlain && p.clauses.length > 0;
  const positive = p.clauses.length + p.phrases.length + p.tags.length + p.paths.length + p.files.length;
  if (positive === 0) {
    // Only stop words, only exclusions or nothing readable: plain words, stop words included.
    const plain = empty();
    plain.words = tokenize(q);
    plain.clauses = [...new Set(plain.words)].slice(0, 16).map((w) => ({ alts: [stem(w)], words: [w] }));
    plain.prefixLast = plain.clauses.length > 0 && /[\p{L}\p{N}]$/u.test(q);
    return plain;
  }
  return p;
}

/** True when the query names no words or phrases, only filters (tag:, path:, file:). */
export function filtersOnly(p: ParsedQuery): boolean {
  return p.clauses.length === 0 && p.phrases.length === 0;
}
