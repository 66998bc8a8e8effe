/**
 * The fast index parse: the same answers as `analyzeMarkdown` (core/notes/markdown/remark.ts, the remark
 * reference) without building a syntax tree, in time linear in the note's length for every input.
 * docs/reference/markdown-index.md has the figures, the choice, and the few intended differences.
 */

import { readBlocks } from './blocks.ts';
import { readInline } from './inline.ts';
import {
  analysisOf,
  FRONTMATTER,
  frontmatterTags,
  INLINE_TAG,
  liftSpans,
  markdownLink,
  normalizeTag,
  parseFrontmatter,
  parseWikiInner,
  type Wiki,
} from './parts.ts';
import type { LinkOccurrence, MarkdownAnalysis } from './types.ts';

/**
 * Placeholder marks: a pair of Latin-1 letters the note does not contain, so that a Latin-1 note
 * stays a one-byte string (V8 reads and matches those several times faster than two-byte ones). For
 * CommonMark they behave like the reference's private-use marks: letters, no case, not punctuation.
 */
const MARKS: [string, string][] = [
  ['\u00AA', '\u00BA'],
  ['\u00C6', '\u00D0'],
  ['\u00DE', '\u00F0'],
  ['\uE000', '\uE001'],
];
const markPairFor = (text: string): [string, string] =>
  MARKS.find((pair) =>
    pair.every((m) => [m, m.toLowerCase(), m.toUpperCase()].every((v) => text.indexOf(v) < 0)),
  ) ?? MARKS[MARKS.length - 1]!;

/** The end of the line starting at `i` (before its line ending) and the start of the next one. */
function lineAt(raw: string, i: number): [number, number] {
  let e = i;
  while (e < raw.length && raw.charCodeAt(e) !== 10 && raw.charCodeAt(e) !== 13) e++;
  const next = raw.charCodeAt(e) === 13 && raw.charCodeAt(e + 1) === 10 ? e + 2 : e + 1;
  return [e, next];
}
const isFence = (line: string): boolean => /^---[ \t]*$/.test(line);

/**
 * The frontmatter as the reference parser reads it: from a `---` first line to the first `---`
 * line after it. Returns [yaml, index where the markdown after it starts] or null.
 */
function frontmatterBlock(raw: string, from: number): [string, number] | null {
  if (!raw.startsWith('---', from)) return null;
  let [e, next] = lineAt(raw, from);
  if (e >= raw.length || !isFence(raw.slice(from, e))) return null;
  const yamlStart = next;
  let prevEnd = -1;
  while (next <= raw.length) {
    const start = next;
    [e, next] = lineAt(raw, start);
    if (isFence(raw.slice(start, e)))
      return [prevEnd < 0 ? '' : raw.slice(yamlStart, prevEnd), Math.min(next, raw.length)];
    prevEnd = e;
    if (e >= raw.length) break;
  }
  return null;
}

/**
 * A wiki-link's parts. Obsidian writes `\|` for the alias bar inside tables; the reference keeps
 * the backslash in the target (an intended difference, docs/reference/markdown-index.md).
 */
function wikiOf(inner: string, embed: boolean, start: number, end: number): Wiki {
  const bar = inner.indexOf('|');
  const fixed = bar > 0 && inner[bar - 1] === '\\' ? inner.slice(0, bar - 1) + inner.slice(bar) : inner;
  return parseWikiInner(fixed, embed, start, end);
}

/** Analyzes one note's raw text. Never throws; linear in `raw.length`. */
export function analyzeMarkdownFast(raw: string): MarkdownAnalysis {
  const warnings: string[] = [];
  // `bodyStart` is the note service's (FRONTMATTER); the reading follows the reference's fences.
  const bodyStart = FRONTMATTER.exec(raw)?.[0].length ?? 0;
  // A byte order mark is not part of the text (the reference drops it too, but then counts its
  // offsets without it: an intended difference, docs/reference/markdown-index.md).
  const bom = raw.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fm = frontmatterBlock(raw, bom);
  const frontmatter = fm ? parseFrontmatter(fm[0], warnings) : {};
  const readFrom = fm ? fm[1] : bom;

  // Wiki-links (and Obsidian's comments and block ids) become placeholders, as in the reference,
  // so that the markdown around them reads alike.
  const wikis: (Wiki | undefined)[] = [];
  const shifts: number[] = [];
  let delta = 0;
  // Like the reference, wiki-links are lifted from `bodyStart` on (which may lie past `readFrom`).
  const liftFrom = Math.max(readFrom, bodyStart);
  const [open, close] = markPairFor(raw);
  const placeholder = new RegExp(`${open}(\\d+)${close}`, 'g');
  const pieces: string[] = [];
  let copied = liftFrom;
  for (const l of liftSpans(raw, liftFrom, wikiOf)) {
    const ph = `${open}${wikis.length}${close}`;
    wikis.push(l.wiki);
    pieces.push(raw.slice(copied, l.start), ph);
    const substStart = l.start - delta;
    delta += l.end - l.start - ph.length;
    shifts.push(substStart + ph.length, delta);
    copied = l.end;
  }
  pieces.push(raw.slice(copied));
  const lifted = pieces.join('');
  // One flat string: the readers index it character by character (a rope would be slow).
  let body = liftFrom > readFrom ? [raw.slice(readFrom, liftFrom), lifted].join('') : lifted;
  if (body.indexOf('\0') >= 0) body = body.replace(/\0/g, '\uFFFD');
  const toRaw = (offset: number): number => {
    let lo = 0;
    let hi = shifts.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (shifts[mid * 2]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + (lo > 0 ? shifts[lo * 2 - 1]! : 0);
  };

  const tags = frontmatterTags(frontmatter, warnings);
  const links: LinkOccurrence[] = [];
  const textParts: string[] = [];
  let h1: string | null = null;
  let title: string[] | null = null;
  const expand = (value: string, collect: boolean): string =>
    value.indexOf(open) < 0
      ? value
      : value.replace(placeholder, (_m, i: string) => {
          const w = wikis[Number(i)];
          if (!w) return '';
          if (collect) links.push(w.occ);
          return w.display;
        });
  const sink = {
    text(value: string, inLink: boolean): void {
      const v = expand(value, true);
      textParts.push(v);
      title?.push(v);
      if (!inLink && v.indexOf('#') >= 0)
        for (const m of v.matchAll(INLINE_TAG)) {
          const t = normalizeTag(m[2] ?? '');
          if (t) tags.push(t);
        }
    },
    code(value: string): void {
      // A wiki-link in a code span reads as written (the reference shows its placeholder).
      title?.push(
        value.indexOf(open) < 0
          ? value
          : value.replace(placeholder, (_m, i: string) => wikis[Number(i)]?.raw ?? ''),
      );
    },
    link(url: string, start: number, end: number): void {
      const occ = markdownLink(url, toRaw(readFrom + start), toRaw(readFrom + end));
      if (occ) links.push(occ);
    },
  };

  const { blocks, defs } = readBlocks(body);
  for (const block of blocks) {
    title = block.depth === 1 && h1 === null ? [] : null;
    readInline(block, defs, sink);
    textParts.push('\n');
    if (title) h1 = title.join('').trim() || null;
  }
  links.sort((a, b) => a.start - b.start);
  return analysisOf({ frontmatter, bodyStart, h1, tags, links, warnings, text: textParts.join(' ') });
}
