/**
 * Small scanners shared by the block and inline readers: escapes, character references,
 * link destinations, titles and labels. Every scan is bounded (a cap or a memo), so a note's
 * reading stays linear in its length whatever the input.
 */
import { decodeNamedCharacterReference } from 'decode-named-character-reference';

/** Link destinations and titles longer than this are not read as such (see docs/reference/markdown-index.md). */
export const MAX_DESTINATION = 4096;
/** CommonMark's limit on link labels. */
export const MAX_LABEL = 999;

export const isAsciiPunct = (c: number): boolean =>
  (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
export const isAlnum = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
export const isSpaceOrTab = (c: number): boolean => c === 32 || c === 9;
/** Space, tab, line feed or carriage return (the white space of links and labels). */
export const isWs = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

function decodeNumeric(value: string, base: number): string {
  const code = Number.parseInt(value, base);
  if (
    code < 9 ||
    code === 11 ||
    (code > 13 && code < 32) ||
    (code > 126 && code < 160) ||
    (code > 55_295 && code < 57_344) ||
    (code > 64_975 && code < 65_008) ||
    (code & 65_535) === 65_535 ||
    (code & 65_535) === 65_534 ||
    code > 1_114_111
  )
    return '\uFFFD';
  return String.fromCodePoint(code);
}

/** The character reference at `s[i] === '&'`: its decoded value and length, or null. */
export function charRef(s: string, i: number): [string, number] | null {
  let j = i + 1;
  if (s.charCodeAt(j) === 35) {
    j++;
    const x = s.charCodeAt(j);
    const hex = x === 120 || x === 88;
    if (hex) j++;
    const st = j;
    const max = hex ? 6 : 7;
    while (j - st < max && (hex ? isHex(s.charCodeAt(j)) : isDigit(s.charCodeAt(j)))) j++;
    if (j === st || s.charCodeAt(j) !== 59) return null;
    return [decodeNumeric(s.slice(st, j), hex ? 16 : 10), j + 1 - i];
  }
  const st = j;
  while (j - st < 31 && isAlnum(s.charCodeAt(j))) j++;
  if (j === st || s.charCodeAt(j) !== 59) return null;
  const v = decodeNamedCharacterReference(s.slice(st, j));
  return v === false ? null : [v, j + 1 - i];
}

/** `s` with backslash escapes and character references decoded. */
export function decodeString(s: string): string {
  if (s.indexOf('\\') < 0 && s.indexOf('&') < 0) return s;
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 && isAsciiPunct(s.charCodeAt(i + 1))) {
      out += s.slice(last, i) + s[i + 1];
      last = i + 2;
      i++;
    } else if (c === 38) {
      const r = charRef(s, i);
      if (r) {
        out += s.slice(last, i) + r[0];
        last = i + r[1];
        i += r[1] - 1;
      }
    }
  }
  return out + s.slice(last);
}

/** Skips spaces, tabs and at most one line ending. */
export function skipSpnl(s: string, i: number): number {
  while (isSpaceOrTab(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) === 10) {
    i++;
    while (isSpaceOrTab(s.charCodeAt(i))) i++;
  }
  return i;
}

/** A link destination at `i`: [decoded url, index after it], or null. Raw ones are never empty. */
export function scanDestination(s: string, i: number): [string, number] | null {
  const limit = Math.min(s.length, i + MAX_DESTINATION);
  if (s.charCodeAt(i) === 60) {
    for (let j = i + 1; j < limit; j++) {
      const c = s.charCodeAt(j);
      if (c === 62) return [decodeString(s.slice(i + 1, j)), j + 1];
      if (c === 60 || c === 10 || c === 13) return null;
      if (c === 92 && isAsciiPunct(s.charCodeAt(j + 1))) j++;
    }
    return null;
  }
  let depth = 0;
  let j = i;
  for (; j < s.length; j++) {
    if (j >= limit) return null;
    const c = s.charCodeAt(j);
    if (c <= 32 || c === 127) break;
    if (c === 92 && isAsciiPunct(s.charCodeAt(j + 1))) j++;
    else if (c === 40) {
      if (++depth > 32) return null;
    } else if (c === 41) {
      if (depth === 0) break;
      depth--;
    }
  }
  if (j === i || depth !== 0) return null;
  return [decodeString(s.slice(i, j)), j];
}

/** A link title at `i` (`"…"`, `'…'` or `(…)`): the index after it, or -1. */
export function scanTitle(s: string, i: number): number {
  const open = s.charCodeAt(i);
  const close = open === 40 ? 41 : open;
  if (open !== 34 && open !== 39 && open !== 40) return -1;
  const limit = Math.min(s.length, i + MAX_DESTINATION);
  for (let j = i + 1; j < limit; j++) {
    const c = s.charCodeAt(j);
    if (c === 92 && isAsciiPunct(s.charCodeAt(j + 1))) j++;
    else if (c === close) return j + 1;
    else if (open === 40 && c === 40) return -1;
    else if (c === 10 && s.charCodeAt(skipBlankLine(s, j + 1)) === 10) return -1;
  }
  return -1;
}

const skipBlankLine = (s: string, i: number): number => {
  while (isSpaceOrTab(s.charCodeAt(i))) i++;
  return i;
};

/** A link label `[…]` at `i`: the index after `]`, or -1 (at most 999 characters, no bare brackets). */
export function scanLabel(s: string, i: number): number {
  if (s.charCodeAt(i) !== 91) return -1;
  let blank = true;
  const limit = Math.min(s.length, i + 1 + MAX_LABEL + 1);
  for (let j = i + 1; j < limit; j++) {
    const c = s.charCodeAt(j);
    if (c === 93) return blank || j - i - 1 > MAX_LABEL ? -1 : j + 1;
    if (c === 91) return -1;
    if (c === 92 && isAsciiPunct(s.charCodeAt(j + 1))) {
      blank = false;
      j++;
    } else if (!isWs(c)) blank = false;
  }
  return -1;
}

/** How labels are compared: white space collapsed, trimmed, case folded (the reference's rule). */
export const normalizeLabel = (label: string): string =>
  label
    .replace(/[\t\n\r ]+/g, ' ')
    .replace(/^ | $/g, '')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase();
