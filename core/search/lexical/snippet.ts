/**
 * Search snippets: the words around a match as a person reads them (readable.ts), never the
 * note's syntax; code spans keep their backticks, so code reads as code. Only a stretch of whole lines around the match is read (a query makes up to a
 * hundred snippets of notes of any size), so a snippet costs the same for a line and for 4 MiB.
 */
import { readableText } from '../../notes/markdown/readable.ts';

/** Longest a line is taken whole around the match; past it the stretch is cut inside the line. */
const MAX_LINE = 1_000;

const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Fenced code of `body` as `[start, end)` pairs (a fence runs from one ``` to the next). */
function fencesOf(body: string): number[] {
  const fences: number[] = [];
  for (let i = body.indexOf('```'); i >= 0; ) {
    const close = body.indexOf('```', i + 3);
    if (close < 0) break;
    fences.push(i, close + 3);
    i = body.indexOf('```', close + 3);
  }
  return fences;
}

/** Where the first of `terms` occurs in `body` outside fenced code (any case); -1 when none does. */
function firstMatch(body: string, terms: string[], fences: number[]): number {
  const inFence = (i: number) => {
    for (let k = 0; k < fences.length && fences[k]! <= i; k += 2) if (i < fences[k + 1]!) return true;
    return false;
  };
  let at = -1;
  const lower = body.toLowerCase();
  // Lowercasing keeps positions in nearly every note; where it does not (rare letters), a pattern.
  const same = lower.length === body.length;
  for (const t of terms) {
    if (!t) continue;
    const needle = t.toLowerCase();
    const re = same ? null : new RegExp(literal(t), 'giu');
    const next = (from: number): { i: number; n: number } | null => {
      if (!re) {
        const i = lower.indexOf(needle, from);
        return i < 0 ? null : { i, n: needle.length };
      }
      re.lastIndex = from;
      const m = re.exec(body);
      return m ? { i: m.index, n: m[0].length } : null;
    };
    for (let m = next(0); m && (at < 0 || m.i < at); m = next(m.i + 1)) {
      if (!inFence(m.i) && !inFence(m.i + m.n - 1)) {
        at = m.i;
        break;
      }
    }
  }
  return at;
}

/** `i` moved back to the start of its line (at most MAX_LINE characters back). */
const lineStart = (body: string, i: number): number =>
  i <= 0 ? 0 : Math.max(i - MAX_LINE, body.lastIndexOf('\n', i - 1) + 1);

/** `i` moved on to the end of its line (at most MAX_LINE characters on). */
function lineEnd(body: string, i: number): number {
  const nl = body.indexOf('\n', i);
  return Math.min(nl < 0 ? body.length : nl, i + MAX_LINE);
}

/** `body[a, b)` as readable text, fenced code that overlaps it taken out. */
function readable(body: string, a: number, b: number, fences: number[]): string {
  let raw = '';
  let p = a;
  for (let k = 0; k < fences.length && fences[k]! < b; k += 2) {
    if (fences[k + 1]! <= p) continue;
    if (fences[k]! > p) raw += body.slice(p, fences[k]);
    raw += '\n';
    p = Math.max(p, fences[k + 1]!);
  }
  if (p < b) raw += body.slice(p, b);
  return readableText(raw, { code: true });
}

/**
 * A short passage of `body` around the first of `terms` it contains (outside fenced code), as
 * readable text: `…` marks text left out before or after it.
 */
export function makeSnippet(body: string, terms: string[], width = 160): string {
  const fences = fencesOf(body);
  const at = firstMatch(body, terms, fences);
  const n = body.length;
  let a = at < 0 ? 0 : lineStart(body, Math.max(0, at - 2 * width));
  let b = lineEnd(body, Math.min(n, (at < 0 ? 0 : at) + 4 * width));
  for (;;) {
    const text = readable(body, a, b, fences);
    const i = at < 0 ? -1 : indexOfAny(text, terms);
    const okBefore = a === 0 || i < 0 || i > width / 3;
    const okAfter = b === n || text.length - Math.max(i, 0) > width;
    if (okBefore && okAfter) return around(text, i, width, a > 0, b < n);
    if (!okBefore) a = lineStart(body, Math.max(0, a - 4 * (at - a) - width));
    if (!okAfter) b = lineEnd(body, Math.min(n, b + 4 * (b - a) + 1));
  }
}

/** The first position of any of `terms` in `text` (any case); -1 when none is there. */
function indexOfAny(text: string, terms: string[]): number {
  let at = -1;
  for (const t of terms) {
    if (!t) continue;
    const m = new RegExp(literal(t), 'iu').exec(text);
    if (m && (at < 0 || m.index < at)) at = m.index;
  }
  return at;
}

const ticks = (s: string): number => s.match(/`/g)?.length ?? 0;

/**
 * `width` characters of `text` from a third of it before `i` (from its start when `i` < 0). A
 * code span cut at either end is left out, so no lone backtick shows.
 */
function around(text: string, i: number, width: number, less: boolean, more: boolean): string {
  const start = i < 0 ? 0 : Math.max(0, i - Math.floor(width / 3));
  const end = Math.min(text.length, start + width);
  let part = text.slice(start, end);
  if (ticks(text.slice(0, start)) % 2 === 1) part = part.slice(part.indexOf('`') + 1).trimStart();
  if (ticks(part) % 2 === 1) part = part.slice(0, part.lastIndexOf('`')).trimEnd();
  return (start > 0 || (less && text) ? '…' : '') + part + (end < text.length || more ? '…' : '');
}
