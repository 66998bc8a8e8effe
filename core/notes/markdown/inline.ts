/**
 * The inline reader: code spans, escapes, character references, autolinks, raw HTML, links and
 * images (inline and by reference), emphasis runs and line breaks, read left to right in one pass
 * with CommonMark's bracket and delimiter stacks. It reports text nodes where the reference
 * parser would make them, code spans, and links with their source offsets.
 */
import { backtickFinder, codeValue } from './code-span.ts';
import { type Delim, delimAt, processEmphasis } from './emphasis.ts';
import { autolinkAt, htmlScanner } from './html-inline.ts';
import {
  AUTOLINK,
  BOUND,
  CLOSE,
  CODE,
  DELIM,
  emit,
  OPEN,
  type Piece,
  sourceOffset,
  TEXT,
} from './inline-emit.ts';
import {
  charRef,
  isAsciiPunct,
  isWs,
  MAX_LABEL,
  normalizeLabel,
  scanDestination,
  scanLabel,
  scanTitle,
} from './syntax.ts';
import type { Definitions, InlineBlock, InlineSink } from './types.ts';

interface Bracket {
  piece: Piece;
  image: boolean;
  /** Index in `s` after the opening bracket. */
  after: number;
  /** The delimiter stack's height when it was opened. */
  delims: number;
}

const SPECIAL = /[\\`&<[\]!*_\n]/g;

/** Reads one paragraph's or heading's inline content and reports it to `sink`. */
export function readInline(block: InlineBlock, defs: Definitions, sink: InlineSink): void {
  const s = block.content;
  const r: Reading = { s, defs, pieces: [], delims: [], brackets: [], linkFloor: 0 };
  const { pieces, delims, brackets } = r;
  // Built on first use: most blocks have no code span and no `<`.
  let findTicks: ((len: number, from: number) => number) | null = null;
  let html: ((i: number) => number) | null = null;
  const text = (t: string): void => {
    if (t) pieces.push({ k: TEXT, s: t });
  };

  let i = 0;
  let plain = 0;
  const flushPlain = (to: number): void => {
    if (to > plain) text(s.slice(plain, to));
  };
  while (i < s.length) {
    SPECIAL.lastIndex = i;
    const m = SPECIAL.exec(s);
    if (!m) break;
    i = m.index;
    const c = s.charCodeAt(i);
    let next = i + 1;
    let piece: Piece | null = null;
    if (c === 92) {
      const n = s.charCodeAt(i + 1);
      if (n === 10) piece = { k: BOUND, s: '' };
      else if (isAsciiPunct(n)) piece = { k: TEXT, s: s[i + 1]! };
      if (piece) next = i + 2;
    } else if (c === 96) {
      let j = i;
      while (s.charCodeAt(j) === 96) j++;
      findTicks ??= backtickFinder(s);
      const close = findTicks(j - i, j);
      if (close < 0) piece = { k: TEXT, s: s.slice(i, j) };
      else piece = { k: CODE, s: codeValue(s.slice(j, close)) };
      next = close < 0 ? j : close + (j - i);
    } else if (c === 38) {
      const r = charRef(s, i);
      if (r) {
        piece = { k: TEXT, s: r[0] };
        next = i + r[1];
      }
    } else if (c === 60) {
      const auto = autolinkAt(s, i);
      if (auto) {
        piece = { k: AUTOLINK, s: auto[0] };
        next = auto[1];
      } else {
        html ??= htmlScanner(s);
        const end = html(i);
        if (end > 0) {
          piece = { k: BOUND, s: '' };
          next = end;
        }
      }
    } else if (c === 91 || (c === 33 && s.charCodeAt(i + 1) === 91)) {
      const image = c === 33;
      next = image ? i + 2 : i + 1;
      piece = { k: OPEN, s: image ? '![' : '[', image: false, url: null, start: i };
      if (brackets.length < r.linkFloor) r.linkFloor = brackets.length;
      brackets.push({ piece, image, after: next, delims: delims.length });
    } else if (c === 93) {
      flushPlain(i);
      plain = i;
      const done = closeBracket(r, i);
      if (done > 0) {
        i = plain = done;
        continue;
      }
      piece = { k: TEXT, s: ']' };
    } else if (c === 42 || c === 95) {
      let j = i;
      while (s.charCodeAt(j) === c) j++;
      const d = delimAt(s, i, j - i);
      piece = d.canOpen || d.canClose ? { k: DELIM, s: '', d } : { k: TEXT, s: s.slice(i, j) };
      if (d.canOpen || d.canClose) delims.push(d);
      next = j;
    } else if (c === 10) {
      let t = i;
      let spaces = 0;
      let tabs = false;
      while (t > plain && (s.charCodeAt(t - 1) === 32 || s.charCodeAt(t - 1) === 9)) {
        if (s.charCodeAt(t - 1) === 9) tabs = true;
        else spaces++;
        t--;
      }
      flushPlain(t);
      plain = i + 1;
      pieces.push(spaces >= 2 && !tabs ? { k: BOUND, s: '' } : { k: TEXT, s: '\n' });
      i = i + 1;
      continue;
    }
    if (!piece) {
      i = next;
      continue;
    }
    flushPlain(i);
    pieces.push(piece);
    i = plain = next;
  }
  flushPlain(s.length);
  processEmphasis(delims, 0);
  emit(pieces, sink, (at) => sourceOffset(block, at));
}

/** One block's reading state that a closing bracket reads and changes. */
interface Reading {
  s: string;
  defs: Definitions;
  pieces: Piece[];
  delims: Delim[];
  brackets: Bracket[];
  /** Link brackets below this height are inactive: a link was made after them (links do not nest). */
  linkFloor: number;
}

/** Handles `]` at `at`: the index after the link or image it closes, or -1. */
function closeBracket(r: Reading, at: number): number {
  const { s, defs, brackets } = r;
  const top = brackets[brackets.length - 1];
  if (!top) return -1;
  if (!top.image && brackets.length - 1 < r.linkFloor) {
    brackets.pop();
    return -1;
  }
  const own = at - top.after > MAX_LABEL ? '' : normalizeLabel(s.slice(top.after, at));
  const defined = own !== '' && defs.has(own);
  let end = -1;
  let url: string | null = null;
  const n = s.charCodeAt(at + 1);
  if (n === 40) {
    const res = resourceAt(s, at + 1);
    if (res) [url, end] = res;
  } else if (n === 91) {
    const after = scanLabel(s, at + 1);
    const ref = after > 0 ? normalizeLabel(s.slice(at + 2, after - 1)) : '';
    if (ref && defs.has(ref)) [url, end] = [defs.get(ref)!, after];
    else if (defined && s.charCodeAt(at + 2) === 93) [url, end] = [defs.get(own)!, at + 3];
    else if (defined) {
      brackets.pop();
      return -1;
    }
  }
  if (end < 0 && defined && (n !== 91 || end >= 0)) [url, end] = [defs.get(own)!, at + 1];
  if (end < 0) {
    brackets.pop();
    return -1;
  }
  processEmphasis(r.delims, top.delims);
  brackets.pop();
  top.piece.image = top.image;
  top.piece.url = url;
  top.piece.end = end;
  r.pieces.push({ k: CLOSE, s: '', image: top.image });
  if (!top.image) r.linkFloor = brackets.length;
  return end;
}

/** `(destination "title")` at `at` of `s`: [url, index after `)`], or null. */
function resourceAt(s: string, at: number): [string, number] | null {
  let j = at + 1;
  while (isWs(s.charCodeAt(j))) j++;
  if (s.charCodeAt(j) === 41) return ['', j + 1];
  const dest = scanDestination(s, j);
  if (!dest) return null;
  j = dest[1];
  const ws = j;
  while (isWs(s.charCodeAt(j))) j++;
  if (j > ws) {
    const t = scanTitle(s, j);
    if (t >= 0) {
      j = t;
      while (isWs(s.charCodeAt(j))) j++;
    }
  }
  return s.charCodeAt(j) === 41 ? [dest[0], j + 1] : null;
}
