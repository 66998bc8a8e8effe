/** Autolinks and raw inline HTML at a `<`, scanned in bounded time (memos and a length cap). */
import { MAX_DESTINATION } from './syntax.ts';

const URI = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\x00-\x20]*)>/y;
const EMAIL =
  /<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>/y;

/** The text of an autolink at `i` and the index after it, or null. */
export function autolinkAt(s: string, i: number): [string, number] | null {
  URI.lastIndex = i;
  let m = URI.exec(s);
  if (!m) {
    EMAIL.lastIndex = i;
    m = EMAIL.exec(s);
  }
  return m ? [m[1]!, i + m[0].length] : null;
}

const isWsNl = (c: number): boolean => c === 32 || c === 9 || c === 10;
const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isNameChar = (c: number): boolean => isAlpha(c) || (c >= 48 && c <= 57) || c === 45;
const isAttrStart = (c: number): boolean => isAlpha(c) || c === 95 || c === 58;
const isAttrChar = (c: number): boolean => isAttrStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45;
const isUnquoted = (c: number): boolean =>
  c > 32 && c !== 34 && c !== 39 && c !== 61 && c !== 60 && c !== 62 && c !== 96;

/** Raw inline HTML scanner for one block's content; its memos keep every block linear. */
export function htmlScanner(s: string): (i: number) => number {
  const found = new Map<string, [number, number]>();
  /** `s.indexOf(needle, from)`, remembering the last answer so repeated asks do not rescan. */
  const find = (needle: string, from: number): number => {
    const memo = found.get(needle);
    if (memo && from >= memo[0] && (memo[1] < 0 || from <= memo[1])) return memo[1];
    const at = s.indexOf(needle, from);
    found.set(needle, [from, at]);
    return at;
  };
  /** Positions after an attribute value from which the rest of a tag was already found invalid. */
  const deadTails = new Set<number>();

  const openTag = (i: number): number => {
    let j = i + 1;
    while (isNameChar(s.charCodeAt(j))) j++;
    const tails: number[] = [];
    const fail = (): number => {
      for (const t of tails) deadTails.add(t);
      return -1;
    };
    for (;;) {
      if (j - i > MAX_DESTINATION) return fail();
      const before = j;
      while (isWsNl(s.charCodeAt(j))) j++;
      const c = s.charCodeAt(j);
      if (c === 62) return j + 1;
      if (c === 47) return s.charCodeAt(j + 1) === 62 ? j + 2 : fail();
      if (j === before || !isAttrStart(c)) return fail();
      while (isAttrChar(s.charCodeAt(j))) j++;
      let k = j;
      while (isWsNl(s.charCodeAt(k))) k++;
      if (s.charCodeAt(k) !== 61) continue;
      k++;
      while (isWsNl(s.charCodeAt(k))) k++;
      const q = s.charCodeAt(k);
      if (q === 34 || q === 39) {
        const close = find(q === 34 ? '"' : "'", k + 1);
        if (close < 0) return fail();
        j = close + 1;
      } else {
        const st = k;
        while (k < s.length && isUnquoted(s.charCodeAt(k))) k++;
        if (k === st) return fail();
        j = k;
      }
      if (deadTails.has(j)) return fail();
      tails.push(j);
    }
  };

  /** The index after raw HTML starting at `s[i] === '<'`, or -1. */
  return (i: number): number => {
    const c = s.charCodeAt(i + 1);
    if (c === 33) {
      if (s.startsWith('<!--', i)) {
        if (s.charCodeAt(i + 4) === 62) return i + 5;
        if (s.startsWith('->', i + 4)) return i + 6;
        const end = find('-->', i + 4);
        return end < 0 ? -1 : end + 3;
      }
      if (s.startsWith('<![CDATA[', i)) {
        const end = find(']]>', i + 9);
        return end < 0 ? -1 : end + 3;
      }
      if (isAlpha(s.charCodeAt(i + 2))) {
        const end = find('>', i + 2);
        return end < 0 ? -1 : end + 1;
      }
      return -1;
    }
    if (c === 63) {
      const end = find('?>', i + 2);
      return end < 0 ? -1 : end + 2;
    }
    if (c === 47) {
      if (!isAlpha(s.charCodeAt(i + 2))) return -1;
      let j = i + 3;
      while (isNameChar(s.charCodeAt(j))) j++;
      while (isWsNl(s.charCodeAt(j))) j++;
      return s.charCodeAt(j) === 62 ? j + 1 : -1;
    }
    return isAlpha(c) ? openTag(i) : -1;
  };
}
