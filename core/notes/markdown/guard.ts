/**
 * What the markdown parser is not given. micromark's time grows faster than linearly on some
 * shapes (long runs of unmatched emphasis or brackets, deep nesting, long lazy paragraphs) and
 * its memory is about 800 bytes per input byte, so one hostile or merely huge note could stall
 * the server. Such notes are indexed as plain text instead (docs/reference/security.md has the numbers).
 */

/**
 * The parser's budget per note, in UTF-16 code units, where every line inside a list or block quote
 * counts CONTAINER_LINE_COST more (micromark spends about that much on each container line).
 */
export const MAX_PARSE_CHARS = 256 * 1024;
export const CONTAINER_LINE_COST = 64;
/** Each markup character costs MARK_COST more, and a block's marks² / MARKS_COST_DIVISOR on top. */
export const MARK_COST = 8;
export const MARKS_COST_DIVISOR = 256;
/** Deepest container nesting (block quotes, list items, indentation) of any line. */
export const MAX_DEPTH = 64;
/** Most lines in one block (no blank line between them). */
export const MAX_BLOCK_LINES = 3_000;
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
  const tooLarge = `it is larger than the parser's budget of ${MAX_PARSE_CHARS / 1024} KiB (list and quote lines, and emphasis or brackets, count extra)`;
  let cost = raw.length;
  if (cost > MAX_PARSE_CHARS) return tooLarge;
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
    const depth = depthOf(prefix);
    if (depth > MAX_DEPTH) return `it nests deeper than ${MAX_DEPTH} levels`;
    if (/[>*+\-.)]/.test(prefix)) {
      cost += CONTAINER_LINE_COST;
      if (cost > MAX_PARSE_CHARS) return tooLarge;
    }
    if (BLANK.test(line)) {
      cost += Math.floor((marks * marks) / MARKS_COST_DIVISOR);
      if (cost > MAX_PARSE_CHARS) return tooLarge;
      lines = 0;
      marks = 0;
      continue;
    }
    lines += 1;
    const found = line.match(MARKS)?.length ?? 0;
    marks += found;
    cost += found * MARK_COST;
    if (cost > MAX_PARSE_CHARS) return tooLarge;
    if (lines > MAX_BLOCK_LINES)
      return `a block runs longer than ${MAX_BLOCK_LINES} lines without a blank line`;
    if (marks > MAX_BLOCK_MARKS)
      return `one block holds more than ${MAX_BLOCK_MARKS} markup characters (* _ [ ] \` <)`;
  }
  return cost + Math.floor((marks * marks) / MARKS_COST_DIVISOR) > MAX_PARSE_CHARS ? tooLarge : null;
}
