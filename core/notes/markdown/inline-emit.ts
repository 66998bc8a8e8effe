/** The inline reader's pieces, and how they become text nodes, code spans and links. */
import type { Delim } from './emphasis.ts';
import type { InlineBlock, InlineSink } from './types.ts';

export const TEXT = 0;
export const CODE = 1;
export const BOUND = 2;
export const DELIM = 3;
export const OPEN = 4;
export const CLOSE = 5;
export const AUTOLINK = 6;

export interface Piece {
  k: number;
  s: string;
  d?: Delim;
  /** OPEN: '[' or '!['; a link (or an image when `image`) when `end` is set, else literal. */
  image?: boolean;
  url?: string | null;
  start?: number;
  end?: number;
}

/** The source offset of index `at` of the block's content. */
export function sourceOffset(block: InlineBlock, at: number): number {
  const l = block.lines;
  let lo = 0;
  let hi = l.length / 2 - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (l[mid * 2]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return l[lo * 2 + 1]! + (at - l[lo * 2]!);
}

/** Walks the pieces into text nodes, code spans and links (nothing inside an image is reported). */
export function emit(pieces: Piece[], sink: InlineSink, offset: (at: number) => number): void {
  let buf = '';
  let inLink = 0;
  let inImage = 0;
  const flush = (): void => {
    if (buf && !inImage) sink.text(buf, inLink > 0);
    buf = '';
  };
  for (const p of pieces) {
    switch (p.k) {
      case TEXT:
        buf += p.s;
        break;
      case CODE:
        flush();
        if (!inImage) sink.code(p.s);
        break;
      case BOUND:
        flush();
        break;
      case DELIM: {
        const d = p.d!;
        if (d.closes) flush();
        buf += String.fromCharCode(d.ch).repeat(d.n);
        if (d.opens) flush();
        break;
      }
      case OPEN:
        if (p.end === undefined) buf += p.s;
        else {
          flush();
          if (p.image) {
            // An image to a vault file is a link too (nothing inside its description is).
            if (!inImage && p.url) sink.link(p.url, offset(p.start!), offset(p.end));
            inImage++;
          } else {
            if (!inImage && p.url) sink.link(p.url, offset(p.start!), offset(p.end));
            inLink++;
          }
        }
        break;
      case CLOSE:
        flush();
        if (p.image) inImage--;
        else inLink--;
        break;
      case AUTOLINK:
        flush();
        if (!inImage) sink.text(p.s, true);
        break;
    }
  }
  flush();
}
