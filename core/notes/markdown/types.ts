/** Shared types of the index parse (core/notes/markdown/). */
export type { LinkKind, LinkOccurrence, MarkdownAnalysis } from './remark.ts';

/** A leaf block whose inline content the index reads: a paragraph (depth 0) or a heading (1 to 6). */
export interface InlineBlock {
  depth: number;
  /** The inline content: each line without its container prefix and leading white space, joined by \n. */
  content: string;
  /** Flat pairs per content line: [index in `content` where the line starts, offset in the source]. */
  lines: number[];
}

/**
 * Link reference definitions, by normalized label. Every definition is recorded and the last one
 * written gives the destination (what today's reader does), while any of them makes the label defined.
 */
export type Definitions = Map<string, string>;

/** What the inline reader reports, in document order, for one block. */
export interface InlineSink {
  /** A text node as the reference parser would make it (escapes and references decoded). */
  text(value: string, inLink: boolean): void;
  /** An inline code span's value. */
  code(value: string): void;
  /** A link (`url` decoded) or a resolved reference; `start`/`end` are source offsets. */
  link(url: string, start: number, end: number): void;
}
