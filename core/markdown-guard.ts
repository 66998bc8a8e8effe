/**
 * What the markdown parser is not given. micromark's time grows faster than linearly on some
 * shapes (long runs of unmatched emphasis or brackets, deep nesting, long lazy paragraphs) and
 * its memory is about 800 bytes per input byte, so one hostile or merely huge note could stall
 * the server. Such notes are indexed as plain text instead (docs/security.md has the numbers).
 */

/** Largest note (in UTF-16 code units) given to the parser. */
export const MAX_PARSE_CHARS = 512 * 1024;
/** Deepest container nesting (block quotes, list items, indentation) of any line. */
export const MAX_DEPTH = 64;
/** Most lines in one block (no blank line between them). */
export const MAX_BLOCK_LINES = 5_000;
/** Most markup characters (`* _ [ ] \` <`) in one block. */
export const MAX_BLOCK_MARKS = 2_000;

const PREFIX = /^(?:[ \t]|>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))*/;
const FENCE = /^(`{3,}|~{3,})/;
const MARKS = /[*_[\]`<]/g;
const BLANK = /^[ \t>]*\r?$/;

/** Nesting depth of one line's prefix: quote markers, list markers, and indentation / 2. */
function depthOf(prefix: string): number {
  let depth = 0;
  let columns = 0;
  for (const ch of prefix) {
    if (ch === ' ') columns += 1;
    else if (ch === '\t') columns += 4;
    else if (ch === '>' || ch === '-' || ch === '+' || ch === '*' || ch === '.' || ch === ')') depth += 1;
  }
  return depth + (columns >> 1);
}

/**
 * Why `raw` (from offset `start`, past the frontmatter) should not be parsed as markdown, or
 * null when it is fine. Linear in the length of `raw`; fenced code is not counted.
 */
export function parseComplexity(raw: string, start = 0): string | null {
  if (raw.length > MAX_PARSE_CHARS) return `it is larger than ${MAX_PARSE_CHARS / 1024} KiB`;
  let fence: string | null = null;
  let lines = 0;
  let marks = 0;
  let pos = start;
  while (pos <= raw.length) {
    let end = raw.indexOf('\n', pos);
    if (end < 0) end = raw.length;
    const line = raw.slice(pos, end);
    pos = end + 1;
    const prefix = PREFIX.exec(line)?.[0] ?? '';
    const rest = line.slice(prefix.length);
    const fenceRun = FENCE.exec(rest)?.[1];
    if (fence !== null) {
      if (fenceRun && fenceRun[0] === fence[0] && fenceRun.length >= fence.length) fence = null;
      continue;
    }
    if (fenceRun) {
      fence = fenceRun;
      continue;
    }
    if (depthOf(prefix) > MAX_DEPTH) return `it nests deeper than ${MAX_DEPTH} levels`;
    if (BLANK.test(line)) {
      lines = 0;
      marks = 0;
      continue;
    }
    lines += 1;
    marks += line.match(MARKS)?.length ?? 0;
    if (lines > MAX_BLOCK_LINES)
      return `a block runs longer than ${MAX_BLOCK_LINES} lines without a blank line`;
    if (marks > MAX_BLOCK_MARKS)
      return `one block holds more than ${MAX_BLOCK_MARKS} markup characters (* _ [ ] \` <)`;
  }
  return null;
}
