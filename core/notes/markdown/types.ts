/** Shared types of the index parse (core/notes/markdown/). */

/** How a link was written. */
export type LinkKind = 'wikilink' | 'embed' | 'markdown';

/** One link occurrence as written in a note, with its place in the raw text. */
export interface LinkOccurrence {
  /** The note reference as written, without heading or alias (`folder/Note`, `../a.md`). */
  target: string;
  kind: LinkKind;
  heading?: string;
  alias?: string;
  /** Offsets in the raw file text of the whole link (`[[...]]`, `![[...]]` or `[...](...)`). */
  start: number;
  end: number;
}

/** Everything the index needs from one note's text. Pure data, serializable. */
export interface MarkdownAnalysis {
  frontmatter: Record<string, unknown>;
  /** Offset in the raw text where the body starts (0 without frontmatter). */
  bodyStart: number;
  /** Title from frontmatter or the first level-1 heading; null means "use the file name". */
  title: string | null;
  tags: string[];
  /**
   * Every link occurrence to a note or a vault file in document order (wiki-links and embeds,
   * markdown links and images; code, comments and external URLs excluded).
   */
  links: LinkOccurrence[];
  wordCount: number;
  /** Frontmatter `created` as ISO 8601 when it is a valid date. */
  created: string | null;
  warnings: string[];
  /** Plain text of the body, for full-text search. */
  text: string;
}

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
