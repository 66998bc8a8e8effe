/** Pieces of note analysis shared by the markdown parser path and the plain-text path. */

import { parseDocument } from 'yaml';
import { backtickFinder } from './code-span.ts';
import { simpleFrontmatter } from './frontmatter-simple.ts';
import type { LinkOccurrence, MarkdownAnalysis } from './types.ts';

export const FRONTMATTER = /^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;
export const WIKILINK = /(!?)\[\[([^[\]\n]+?)\]\]/g;
export const INLINE_TAG = /(^|[\s([{,;])#([\p{L}\p{N}_\-/]+)/gu;
export const WORD =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}'’_-]*[\p{L}\p{N}\p{M}])?/gu;
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * How many WORD matches `text` holds. On ASCII text (most notes) a scan of character codes, without
 * the array of every word: there a match is a maximal run of letters, digits, `'`, `_`
 * and `-` that holds a letter or digit (it starts at the run's first one and ends at its last).
 */
export function countWords(text: string): number {
  if (NON_ASCII.test(text)) return text.match(WORD)?.length ?? 0;
  let n = 0;
  // 0: outside a run; 1: in a run without a letter or digit yet; 2: in a run already counted.
  let state = 0;
  for (let i = 0; i < text.length; i++) {
    const k = WORD_CHAR[text.charCodeAt(i)]!;
    if (k === 2) {
      if (state !== 2) {
        n++;
        state = 2;
      }
    } else if (k === 1) {
      if (state === 0) state = 1;
    } else state = 0;
  }
  return n;
}

/** ASCII codes: 2 for a letter or digit, 1 for `'`, `_` and `-` (inside a word), 0 otherwise. */
const WORD_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  WORD_CHAR[c] = /[A-Za-z0-9]/.test(ch) ? 2 : /['_-]/.test(ch) ? 1 : 0;
}

/**
 * Splits raw text into its frontmatter block (fences included, may be '') and the body. A regular
 * expression, no parser: the writes call it, and unified and micromark stay unloaded until a
 * section PATCH needs them.
 */
export function splitFrontmatter(raw: string): { block: string; body: string } {
  const m = FRONTMATTER.exec(raw);
  const n = m ? m[0].length : 0;
  return { block: raw.slice(0, n), body: raw.slice(n) };
}

export const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

export interface Wiki {
  occ: LinkOccurrence;
  /** The link exactly as written. */
  raw: string;
  /** Text a reader sees: alias, else the target (with heading). */
  display: string;
}

export function parseWikiInner(inner: string, embed: boolean, start: number, end: number): Wiki {
  let ref = inner;
  let alias: string | undefined;
  const bar = ref.indexOf('|');
  if (bar >= 0) {
    alias = ref.slice(bar + 1).trim();
    ref = ref.slice(0, bar);
  }
  let heading: string | undefined;
  const hash = ref.indexOf('#');
  if (hash >= 0) {
    heading = ref.slice(hash + 1).trim();
    ref = ref.slice(0, hash);
  }
  const occ: LinkOccurrence = { target: ref.trim(), kind: embed ? 'embed' : 'wikilink', start, end };
  if (heading) occ.heading = heading;
  if (alias) occ.alias = alias;
  // `[[#Heading]]` (a heading of the same note) reads as its heading, never as a `#tag`.
  const shown = occ.target ? inner.replace(/\|.*$/, '').trim() : (heading ?? '');
  return { occ, raw: '', display: alias || shown };
}

export function normalizeTag(raw: string): string | null {
  const t = raw.trim().replace(/^#+/, '');
  if (!t || /\s/.test(t) || /^[\d/_-]+$/.test(t)) return null;
  return t;
}

export function frontmatterTags(fm: Record<string, unknown>, warnings: string[]): string[] {
  const out: string[] = [];
  for (const key of ['tags', 'tag']) {
    const v = fm[key];
    if (v === undefined || v === null) continue;
    const items: unknown[] = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\s]+/) : [v];
    for (const item of items) {
      if (typeof item === 'string' || typeof item === 'number') {
        const s = String(item);
        if (s.trim() === '') continue;
        const t = normalizeTag(s);
        if (t) out.push(t);
        else warnings.push(`Frontmatter ${key} entry "${s}" is not a valid tag and was ignored.`);
      } else warnings.push(`Frontmatter ${key} has an entry that is not text and was ignored.`);
    }
  }
  return out;
}

/** Larger frontmatter blocks are ignored (with a warning) rather than parsed. */
const MAX_FRONTMATTER_CHARS = 64 * 1024;

/**
 * YAML the fast path does not take goes to the YAML library only with at most this many line breaks
 * and commas (a bound on its entries, counted in one pass): a 64 KiB flow map of 6,000 keys held the
 * event loop for hundreds of ms. Frontmatter written as a value (at most 500 keys) mostly stays under it.
 */
export const MAX_FRONTMATTER_BREAKS = 1000;

/** Line breaks and commas in `text`, counting up to `limit + 1`. */
function breaksAtMost(text: string, limit: number): number {
  let n = 0;
  for (let i = 0; i < text.length && n <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */ || c === 44 /* , */) n++;
  }
  return n;
}

/** At most this many alias references are expanded (yaml's maxAliasCount). */
const MAX_ALIAS_COUNT = 50;
/** The parsed frontmatter (as JSON) may weigh at most this many times its YAML, plus 4 KiB. */
const MAX_EXPANSION = 4;

/** The frontmatter's YAML as a plain object; problems (also alias bombs) become warnings, never throws. */
export function parseFrontmatter(yamlText: string, warnings: string[]): Record<string, unknown> {
  if (yamlText.length > MAX_FRONTMATTER_CHARS) {
    warnings.push(`Frontmatter larger than ${MAX_FRONTMATTER_CHARS / 1024} KiB was ignored.`);
    return {};
  }
  // Plain `key: value` lines and word lists (most notes) without the YAML library.
  const simple = simpleFrontmatter(yamlText);
  if (simple) return simple;
  if (breaksAtMost(yamlText, MAX_FRONTMATTER_BREAKS) > MAX_FRONTMATTER_BREAKS) {
    warnings.push(
      `Frontmatter with more than ${MAX_FRONTMATTER_BREAKS} lines and commas was ignored (too many entries to parse).`,
    );
    return {};
  }
  try {
    const doc = parseDocument(yamlText, { uniqueKeys: false, logLevel: 'silent' });
    const problem = doc.errors[0];
    if (problem) {
      warnings.push(`Invalid YAML frontmatter was ignored: ${problem.message.split('\n')[0]}`);
      return {};
    }
    for (const w of doc.warnings) warnings.push(`Frontmatter: ${w.message.split('\n')[0]}`);
    const v: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    if (v === null || v === undefined) return {};
    // Aliases may repeat a large anchor: bound what the parsed value weighs against the YAML itself.
    if (yamlText.includes('*')) {
      const size = JSON.stringify(v).length;
      if (size > yamlText.length * MAX_EXPANSION + 4096) {
        warnings.push(
          `Frontmatter aliases expand to ${Math.ceil(size / 1024)} KiB, more than ${MAX_EXPANSION} times the YAML; the frontmatter was ignored.`,
        );
        return {};
      }
    }
    if (typeof v !== 'object' || Array.isArray(v)) {
      warnings.push('Frontmatter is not a key/value map and was ignored.');
      return {};
    }
    return v as Record<string, unknown>;
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : 'unknown error';
    warnings.push(`Invalid YAML frontmatter was ignored: ${msg}`);
    return {};
  }
}

/** A markdown link or image to a note or a vault file, or null for external URLs and anchors. */
export function markdownLink(url: string, start: number, end: number): LinkOccurrence | null {
  if (!url || EXTERNAL.test(url) || url.startsWith('#')) return null;
  let target = url;
  let heading: string | undefined;
  const hash = target.indexOf('#');
  if (hash >= 0) {
    heading = target.slice(hash + 1);
    target = target.slice(0, hash);
  }
  try {
    target = decodeURIComponent(target);
  } catch {
    // keep as written when it is not valid percent-encoding
  }
  const occ: LinkOccurrence = { target, kind: 'markdown', start, end };
  if (heading) occ.heading = heading;
  return occ;
}

export function uniqueTags(tags: string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((t) => {
    const k = t.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export function titleFrom(frontmatter: Record<string, unknown>, h1: string | null): string | null {
  const fmTitle = frontmatter.title;
  const title =
    (typeof fmTitle === 'string' && fmTitle.trim()) ||
    (typeof fmTitle === 'number' ? String(fmTitle) : null) ||
    h1;
  return title || null;
}

export function validDate(v: unknown): string | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v)) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * The analysis the three parsers (remark.ts, scan.ts, plain.ts) answer, from what each read: the
 * title, tags, word count and created date are derived here, once.
 */
export function analysisOf(read: {
  frontmatter: Record<string, unknown>;
  bodyStart: number;
  h1: string | null;
  tags: string[];
  links: LinkOccurrence[];
  warnings: string[];
  text: string;
}): MarkdownAnalysis {
  const { frontmatter, bodyStart, h1, tags, links, warnings, text } = read;
  return {
    frontmatter,
    bodyStart,
    title: titleFrom(frontmatter, h1),
    tags: uniqueTags(tags),
    links,
    wordCount: countWords(text),
    created: validDate(frontmatter.created),
    warnings,
    text,
  };
}

/** A fence opening or closing line (`>` prefixes included): the text inside is code, not comments. */
const HIDE_FENCE = /(?:[ \t]|>)*(`{3,}|~{3,})/y;

const isIdChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45;

/**
 * Obsidian's hidden spans: `%% comments %%` (inline or over several lines; an unclosed `%%` hides
 * the rest of the note, as in Obsidian) and `^block-id` anchors at the end of a line (after a space,
 * or alone on it). A `%%` or `^id` inside a fenced code block or a code span is code. Returns flat
 * [start, end) pairs of offsets in `raw`, from `from` on. Linear in the note's length: each
 * character is read once, and one index of backtick runs serves every code span.
 */
export function hiddenSpans(raw: string, from: number): number[] {
  const out: number[] = [];
  if (raw.indexOf('%%', from) < 0 && raw.indexOf('^', from) < 0) return out;
  let fence: string | null = null;
  let findTicks: ((len: number, from: number) => number) | null = null;
  let p = from;
  /** True when `p` is mid-line, just after a comment (no fence can start there). */
  let mid = false;
  let nl = -1;
  let pct = raw.indexOf('%%', from);
  while (p < raw.length) {
    // The line's end, found once per line (several comments may share one line).
    if (nl < p) {
      nl = raw.indexOf('\n', p);
      if (nl < 0) nl = raw.length;
    }
    const lineEnd = nl > p && raw.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    if (!mid) {
      HIDE_FENCE.lastIndex = p;
      const run = HIDE_FENCE.exec(raw)?.[1];
      if (fence !== null) {
        if (run && run[0] === fence[0] && run.length >= fence.length) fence = null;
        p = nl + 1;
        continue;
      }
      if (run) {
        fence = run;
        p = nl + 1;
        continue;
      }
    }
    const segStart = p;
    mid = false;
    let free = p;
    let comment = -1;
    // Lines without `%%` are not read character by character (the next `%%` is found once).
    if (pct >= 0 && pct < p) pct = raw.indexOf('%%', p);
    for (let j = pct >= 0 && pct < lineEnd ? p : lineEnd; j < lineEnd; ) {
      const c = raw.charCodeAt(j);
      if (c === 96) {
        let k = j;
        while (raw.charCodeAt(k) === 96) k++;
        findTicks ??= backtickFinder(raw);
        const close = findTicks(k - j, k);
        j = close < 0 || close >= lineEnd ? k : close + (k - j);
        if (close >= 0 && close < lineEnd) free = j;
      } else if (c === 37 && raw.charCodeAt(j + 1) === 37) {
        comment = j;
        break;
      } else j++;
    }
    if (comment >= 0) {
      const close = raw.indexOf('%%', comment + 2);
      const end = close < 0 ? raw.length : close + 2;
      out.push(comment, end);
      p = end;
      mid = true;
      continue;
    }
    // `^id` at the end of the line: read backwards over blanks, the id, the caret.
    let e = lineEnd;
    while (e > free && (raw.charCodeAt(e - 1) === 32 || raw.charCodeAt(e - 1) === 9)) e--;
    let b = e;
    while (b > free && isIdChar(raw.charCodeAt(b - 1))) b--;
    const caret = b - 1;
    if (b < e && caret >= free && raw.charCodeAt(caret) === 94) {
      const before = raw.charCodeAt(caret - 1);
      if (caret === segStart || before === 32 || before === 9) out.push(caret, e);
    }
    p = nl + 1;
  }
  return out;
}

/** `raw` from `from` on without Obsidian's hidden spans (comments, block ids): what a reader sees. */
export function withoutHidden(raw: string, from: number): string {
  const hidden = hiddenSpans(raw, from);
  if (!hidden.length) return raw.slice(from);
  const parts: string[] = [];
  let at = from;
  for (let i = 0; i < hidden.length; i += 2) {
    parts.push(raw.slice(at, hidden[i]));
    at = hidden[i + 1]!;
  }
  parts.push(raw.slice(at));
  return parts.join('');
}

/** A span taken out of the body before the markdown is read: a wiki-link, or a hidden span (no wiki). */
export interface Lifted {
  start: number;
  end: number;
  wiki: Wiki | undefined;
}

/**
 * The spans both readers replace by placeholders before reading the markdown, in order: Obsidian's
 * hidden spans (`hiddenSpans`, which win over a wiki-link they overlap) and the wiki-links between
 * them, each parsed by `parse` (with `raw` set).
 */
export function liftSpans(
  raw: string,
  from: number,
  parse: (inner: string, embed: boolean, start: number, end: number) => Wiki,
): Lifted[] {
  const hidden = hiddenSpans(raw, from);
  const out: Lifted[] = [];
  const wikisIn = (a: number, b: number): void => {
    if (b <= a) return;
    const seg = a === 0 && b === raw.length ? raw : raw.slice(a, b);
    if (seg.indexOf('[[') < 0) return;
    for (const m of seg.matchAll(WIKILINK)) {
      const start = a + (m.index ?? 0);
      const w = parse(m[2] ?? '', m[1] === '!', start, start + m[0].length);
      w.raw = m[0];
      out.push({ start, end: start + m[0].length, wiki: w });
    }
  };
  let at = from;
  for (let i = 0; i < hidden.length; i += 2) {
    wikisIn(at, hidden[i]!);
    out.push({ start: hidden[i]!, end: hidden[i + 1]!, wiki: undefined });
    at = hidden[i + 1]!;
  }
  wikisIn(at, raw.length);
  return out;
}
