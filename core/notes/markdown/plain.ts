import {
  analysisOf,
  FRONTMATTER,
  frontmatterTags,
  hiddenSpans,
  INLINE_TAG,
  markdownLink,
  normalizeTag,
  parseFrontmatter,
  parseWikiInner,
  WIKILINK,
} from './parts.ts';
import type { LinkOccurrence, MarkdownAnalysis } from './types.ts';

const FENCE = /^(?:[ \t]|>)*(`{3,}|~{3,})/;
const INLINE_CODE = /`[^`\n]*`/g;
const MD_LINK = /(!?)\[[^[\]\n]*\]\(([^()\s]*)\)/g;
const H1 = /^#[ \t]+([^\n]*)/m;
const MARKUP = /[*_>#[\]()|!`~=-]+/g;

/** A heading's text without its closing `#`s (a loop: a regex here could backtrack badly). */
function headingText(line: string | undefined): string | null {
  if (line === undefined) return null;
  const blank = (ch: string | undefined) => ch === ' ' || ch === '\t' || ch === '\r';
  let end = line.length;
  while (end > 0 && blank(line[end - 1])) end--;
  let hashes = end;
  while (hashes > 0 && line[hashes - 1] === '#') hashes--;
  // A closing sequence of `#`s counts only after a space (`# C#` is titled "C#").
  if (hashes < end && (hashes === 0 || blank(line[hashes - 1]))) end = hashes;
  return line.slice(0, end).trim() || null;
}

/** The body with fenced and inline code blanked out (same length, line breaks kept). */
function maskCode(body: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of body.split('\n')) {
    const run = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (run && run[0] === fence[0] && run.length >= fence.length) fence = null;
      out.push(' '.repeat(line.length));
    } else if (run) {
      fence = run;
      out.push(' '.repeat(line.length));
    } else out.push(line.replace(INLINE_CODE, (m) => ' '.repeat(m.length)));
  }
  return out.join('\n');
}

/**
 * Reads a note without the markdown parser, in time linear in its length: frontmatter, the
 * first `# ` heading, wiki-links and `[text](note.md)` links, #tags and words outside code.
 * Used for notes too large or too convoluted to parse (core/notes/markdown/guard.ts).
 */
export function analyzePlain(raw: string, warnings: string[]): MarkdownAnalysis {
  const fm = FRONTMATTER.exec(raw);
  const bodyStart = fm ? fm[0].length : 0;
  let frontmatter: Record<string, unknown> = {};
  if (fm) {
    const block = fm[0].replace(/\r?\n$/, '');
    const yaml = block.slice(block.indexOf('\n') + 1, Math.max(block.lastIndexOf('\n'), 0));
    frontmatter = parseFrontmatter(yaml, warnings);
  }
  // Obsidian's comments and block ids read as nothing: blanked (same length) before the rest.
  let body = raw;
  const hidden = hiddenSpans(raw, bodyStart);
  if (hidden.length) {
    const parts: string[] = [];
    let at = 0;
    for (let i = 0; i < hidden.length; i += 2) {
      parts.push(raw.slice(at, hidden[i]), raw.slice(hidden[i], hidden[i + 1]).replace(/[^\n]/g, ' '));
      at = hidden[i + 1]!;
    }
    parts.push(raw.slice(at));
    body = parts.join('');
  }
  const masked = maskCode(body.slice(bodyStart));
  const links: LinkOccurrence[] = [];
  for (const m of masked.matchAll(WIKILINK)) {
    const start = bodyStart + (m.index ?? 0);
    links.push(parseWikiInner(m[2] ?? '', m[1] === '!', start, start + m[0].length).occ);
  }
  for (const m of masked.matchAll(MD_LINK)) {
    const start = bodyStart + (m.index ?? 0);
    const occ = markdownLink(m[2] ?? '', start, start + m[0].length);
    if (occ) links.push(occ);
  }
  links.sort((a, b) => a.start - b.start);
  const tags = frontmatterTags(frontmatter, warnings);
  // Not inside a wiki-link (`[[#Heading]]` is no tag).
  for (const m of masked.replace(WIKILINK, (w) => ' '.repeat(w.length)).matchAll(INLINE_TAG)) {
    const t = normalizeTag(m[2] ?? '');
    if (t) tags.push(t);
  }
  const text = masked.replace(WIKILINK, (_m, _b, inner: string) => inner).replace(MARKUP, ' ');
  const h1 = headingText(H1.exec(masked)?.[1]);
  return analysisOf({ frontmatter, bodyStart, h1, tags, links, warnings, text });
}
