/**
 * Where a note's code and math are, found by the same parser that renders the note (micromark with
 * GFM and math): fenced and indented code blocks and inline code at any nesting (inside callouts,
 * quotes, list items), and `$...$` / `$$...$$` math. The Obsidian rewrite (obsidian-source.ts)
 * never touches these ranges, so a `[[link]]` in code inside a callout is shown as typed.
 */
import { parse, postprocess, preprocess } from 'micromark';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';

/** The syntax extensions the note renderer uses (markdown.ts), shared so both parse alike. */
export const noteSyntax = () => [gfm(), math()];

const KEPT = new Set(['codeFenced', 'codeIndented', 'codeText', 'mathFlow', 'mathText']);

/** `[start, end)` offsets of `source` that are code or math, sorted and disjoint. */
export function codeRanges(source: string): [number, number][] {
  const events = postprocess(
    parse({ extensions: noteSyntax() })
      .document()
      .write(preprocess()(source, undefined, true)),
  );
  const out: [number, number][] = [];
  let end = -1;
  for (const [kind, token] of events) {
    if (kind !== 'enter' || !KEPT.has(token.type) || token.start.offset < end) continue;
    end = token.end.offset;
    out.push([token.start.offset, end]);
  }
  return out;
}

/** One line cut into pieces outside (`code: false`) and inside code ranges. */
export interface Piece {
  text: string;
  code: boolean;
}

/** Splits the line starting at `offset` by `ranges` (from `codeRanges`); `from` is a cursor into it. */
export function piecesOf(
  line: string,
  offset: number,
  ranges: [number, number][],
  from: { i: number },
): Piece[] {
  const pieces: Piece[] = [];
  const lineEnd = offset + line.length;
  while (from.i < ranges.length && ranges[from.i]![1] <= offset) from.i++;
  let at = offset;
  for (let k = from.i; k < ranges.length; k++) {
    const [s, e] = ranges[k]!;
    if (s >= lineEnd) break;
    if (s > at) pieces.push({ text: line.slice(at - offset, s - offset), code: false });
    const stop = Math.min(e, lineEnd);
    if (stop > Math.max(s, at))
      pieces.push({ text: line.slice(Math.max(s, at) - offset, stop - offset), code: true });
    at = Math.max(at, stop);
    if (e > lineEnd) break;
  }
  if (at < lineEnd || pieces.length === 0) pieces.push({ text: line.slice(at - offset), code: false });
  return pieces;
}
