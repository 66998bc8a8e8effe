/** Line-level pieces of the block reader: block start patterns and small helpers. */
import type { InlineBlock } from './types.ts';

export const ATX = /^#{1,6}(?:[ \t]|$)/;
export const FENCE_OPEN = /^(?:`{3,}(?=[^`]*$)|~{3,})/;
export const SETEXT = /^(?:=+|-+)[ \t]*$/;
export const BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
export const BULLET = /^[*+-]/;
export const ORDERED = /^(\d{1,9})[.)]/;
/** Whether a line starting with this character may start a block other than a paragraph. */
export const maybeSpecial = (c: number): boolean =>
  c === 35 ||
  c === 96 ||
  c === 126 ||
  c === 42 ||
  c === 43 ||
  c === 95 ||
  c === 61 ||
  c === 60 ||
  c === 62 ||
  c === 45 ||
  (c >= 48 && c <= 57);
/** `s` without trailing spaces and tabs. */
export function trimEndBlank(s: string): string {
  let e = s.length;
  while (e > 0 && (s.charCodeAt(e - 1) === 32 || s.charCodeAt(e - 1) === 9)) e--;
  return e === s.length ? s : s.slice(0, e);
}

/** A heading's content: closing `#`s (after a space) and surrounding white space removed. */
export function atxContent(line: string, from: number): [number, number] {
  let end = line.length;
  while (end > from && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  let hashes = end;
  while (hashes > from && line[hashes - 1] === '#') hashes--;
  if (hashes < end && (hashes === from || line[hashes - 1] === ' ' || line[hashes - 1] === '\t'))
    end = hashes;
  while (end > from && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  let start = from;
  while (start < end && (line[start] === ' ' || line[start] === '\t')) start++;
  return [start, end];
}

export const isSpTab = (c: number): boolean => c === 32 || c === 9;

export function listItemStart(rest: string, interrupting: boolean): boolean {
  let len: number;
  if (BULLET.test(rest)) len = 1;
  else {
    const m = ORDERED.exec(rest);
    if (!m || (interrupting && m[1] !== '1')) return false;
    len = m[0].length;
  }
  const c = rest.charCodeAt(len);
  if (!(Number.isNaN(c) || c === 32 || c === 9)) return false;
  return !(interrupting && /^[ \t]*$/.test(rest.slice(len)));
}

/** The block for `content` from index `at` on, its line map shifted to match. */
export function rebase(content: string, lines: number[], at: number, depth: number): InlineBlock {
  const out: number[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const c = lines[i]!;
    const o = lines[i + 1]!;
    const nextC = i + 2 < lines.length ? lines[i + 2]! : Number.POSITIVE_INFINITY;
    if (nextC <= at) continue;
    if (c >= at) out.push(c - at, o);
    else out.push(0, o + (at - c));
  }
  return { depth, content: content.slice(at), lines: out };
}
