/**
 * The smallest change from one text to another, as edits a Y.Text can apply: a write from
 * outside (REST, MCP, the agent, a file changed on disk) enters an open live document this way,
 * so the cursors and the typing of its editors elsewhere in the note stay where they are.
 */
import { myersHunks } from '../notes/merge/diff3.ts';

/** Replace `del` UTF-16 units at `at` (in the old text) by `ins`. */
export interface TextEdit {
  at: number;
  del: number;
  ins: string;
}

/** Above this product of the two sides' lengths, a changed run of lines is replaced whole, not diffed by words. */
const TOKEN_DIFF_LIMIT = 16_000_000;

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

const SPACE = /\s/;
/** A place between two words of s[lo, hi): its ends, or after white space and before a word. */
const boundary = (s: string, i: number, lo: number, hi: number) =>
  i <= lo || i >= hi || (SPACE.test(s[i - 1]!) && !SPACE.test(s[i]!));

/**
 * Common prefix and suffix of a[a0, a1) and b[b0, b1), never splitting a surrogate pair; with
 * `whole`, cut only between words on both sides (the edit then holds whole words with their
 * spaces, as the tokens of `wordEdits` do).
 */
function trim(
  a: string,
  a0: number,
  a1: number,
  b: string,
  b0: number,
  b1: number,
  whole = false,
): [number, number, number, number] {
  let p = 0;
  const max = Math.min(a1 - a0, b1 - b0);
  while (p < max && a.charCodeAt(a0 + p) === b.charCodeAt(b0 + p)) p++;
  if (p > 0 && p < max && isHigh(a.charCodeAt(a0 + p - 1))) p--;
  while (whole && p > 0 && !(boundary(a, a0 + p, a0, a1) && boundary(b, b0 + p, b0, b1))) p--;
  let s = 0;
  const maxS = max - p;
  while (s < maxS && a.charCodeAt(a1 - 1 - s) === b.charCodeAt(b1 - 1 - s)) s++;
  // A suffix that starts on a low surrogate would cut its pair: give that unit back.
  if (s > 0 && s < maxS && isHigh(a.charCodeAt(a1 - s - 1))) s--;
  while (whole && s > 0 && !(boundary(a, a1 - s, a0 + p, a1) && boundary(b, b1 - s, b0 + p, b1))) s--;
  return [a0 + p, a1 - s, b0 + p, b1 - s];
}

/** The lines of `s` from `from` to `to`, each with its line break, and their start offsets. */
function lines(s: string, from: number, to: number): Pieces {
  const tokens: string[] = [];
  const starts: number[] = [];
  let i = from;
  while (i < to) {
    const nl = s.indexOf('\n', i);
    const end = nl === -1 || nl >= to ? to : nl + 1;
    tokens.push(s.slice(i, end));
    starts.push(i);
    i = end;
  }
  starts.push(to);
  return { tokens, starts };
}

function intern(a: string[], b: string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const id = (t: string): number => {
    let n = ids.get(t);
    if (n === undefined) {
      n = ids.size;
      ids.set(t, n);
    }
    return n;
  };
  const one = (l: string[]) => Int32Array.from(l, id);
  return [one(a), one(b)];
}

/**
 * Words with the white space after them (and white space that starts a line): as tokens, a word
 * and its space go together, so the diff never matches the spaces between words instead of the
 * words themselves (which turned "delete b0 and b1" into "delete b2, insert a new b2").
 */
const TOKEN = /\S+\s*|\s+/gu;

function tokens(s: string, from: number, to: number): Pieces {
  const out: string[] = [];
  const starts: number[] = [];
  for (const m of s.slice(from, to).matchAll(TOKEN)) {
    out.push(m[0]);
    starts.push(from + m.index);
  }
  starts.push(to);
  return { tokens: out, starts };
}

/**
 * Words of a[a0,a1) against b[b0,b1): Myers over words (with their spaces), each changed run then
 * trimmed to what differs, cut only between words. By words, not characters: an insertion is never
 * aligned across the letters of a word it happens to share (inserting "r24 " before "r23 " is not
 * "4 r2" inside "r23"), which a concurrent edit of that word would otherwise tear apart. The price:
 * a word changed in its middle is replaced whole (a cursor inside it goes to its edge).
 */
/** Pieces of a text (lines or words) and where each starts. */
type Pieces = { tokens: string[]; starts: number[] };

/** Each run where the pieces of `a` and `b` differ (Myers' diff), trimmed to the text that differs. */
function* changedRanges(
  a: string,
  pa: Pieces,
  b: string,
  pb: Pieces,
): Generator<[number, number, number, number]> {
  const [ia, ib] = intern(pa.tokens, pb.tokens);
  for (const h of myersHunks(ia, ib))
    yield trim(
      a,
      pa.starts[h.oStart]!,
      pa.starts[h.oEnd]!,
      b,
      pb.starts[h.sStart]!,
      pb.starts[h.sEnd]!,
      true,
    );
}

function wordEdits(
  a: string,
  a0: number,
  a1: number,
  b: string,
  b0: number,
  b1: number,
  out: TextEdit[],
): void {
  if ((a1 - a0) * (b1 - b0) > TOKEN_DIFF_LIMIT || a1 === a0 || b1 === b0) {
    out.push({ at: a0, del: a1 - a0, ins: b.slice(b0, b1) });
    return;
  }
  for (const [x0, x1, y0, y1] of changedRanges(a, tokens(a, a0, a1), b, tokens(b, b0, b1))) {
    // An insertion (or a deletion) is whole words; a replacement keeps what its ends share, never
    // part of a word: "b0" → "o0" is not "b" → "o" (a deletion of "b0" elsewhere would leave "o").
    out.push({ at: x0, del: x1 - x0, ins: b.slice(y0, y1) });
  }
}

/**
 * The edits turning `a` into `b`, in order of position in `a`, none overlapping: lines first
 * (Myers' diff), then words inside each changed run of lines. Applied from the last to the
 * first, each position still means what it meant in `a`.
 */
export function textEdits(a: string, b: string): TextEdit[] {
  if (a === b) return [];
  const [a0, a1, b0, b1] = trim(a, 0, a.length, b, 0, b.length, true);
  const out: TextEdit[] = [];
  for (const [x0, x1, y0, y1] of changedRanges(a, lines(a, a0, a1), b, lines(b, b0, b1))) {
    if (x0 === x1 && y0 === y1) continue;
    wordEdits(a, x0, x1, b, y0, y1, out);
  }
  return out;
}

/** `a` with `edits` applied (what a Y.Text holds after them): for tests and checks. */
export function applyEdits(a: string, edits: readonly TextEdit[]): string {
  let s = a;
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    s = s.slice(0, e.at) + e.ins + s.slice(e.at + e.del);
  }
  return s;
}
