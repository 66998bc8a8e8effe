/**
 * The block reader: CommonMark's line-by-line algorithm (block quotes, list items, fenced and
 * indented code, HTML blocks, ATX and setext headings, thematic breaks, paragraphs with lazy
 * continuation), keeping only what the index reads: paragraphs, headings and definitions.
 */

import {
  ATX,
  atxContent,
  BREAK,
  BULLET,
  FENCE_OPEN,
  isSpTab,
  listItemStart,
  maybeSpecial,
  ORDERED,
  rebase,
  SETEXT,
} from './block-lines.ts';
import { takeDefinitions } from './definitions.ts';
import { htmlBlockEnds, htmlBlockStart } from './html-block.ts';
import { LineCursor } from './line-cursor.ts';
import { Paragraph } from './paragraph.ts';
import type { Definitions, InlineBlock } from './types.ts';

/** Deeper container nesting is read as text (the reference parser refuses such notes anyway). */
export const MAX_NESTING = 100;

interface Container {
  quote: boolean;
  /** List items: columns the content is indented by. */
  width: number;
  /** List items: no block inside yet. */
  empty: boolean;
}

const LEAF_NONE = 0;
const LEAF_PARA = 1;
const LEAF_FENCE = 2;
const LEAF_CODE = 3;
const LEAF_HTML = 4;

/** Reads `src` into its paragraphs and headings (in order) and its definitions. */
export function readBlocks(src: string): { blocks: InlineBlock[]; defs: Definitions } {
  const r = new BlockReader();
  const total = src.length;
  let pos = 0;
  while (pos <= total) {
    let eol = pos;
    while (eol < total) {
      const c = src.charCodeAt(eol);
      if (c === 10 || c === 13) break;
      eol++;
    }
    r.line(src.slice(pos, eol), pos);
    pos = src.charCodeAt(eol) === 13 && src.charCodeAt(eol + 1) === 10 ? eol + 2 : eol + 1;
  }
  r.closeLeaf();
  return { blocks: r.blocks, defs: r.defs };
}

/** The reader's state between lines: the open containers and the open leaf block. */
class BlockReader {
  readonly blocks: InlineBlock[] = [];
  readonly defs: Definitions = new Map();
  private readonly stack: Container[] = [];
  private leaf = LEAF_NONE;
  private fenceCh = '';
  private fenceLen = 0;
  private htmlKind = 0;
  private readonly para = new Paragraph();
  private readonly cur = new LineCursor();
  private lineOff = 0;
  private matched = 0;
  private openedNew = false;
  private unmatchedClosed = true;
  // The reference's rule for list items: a line "interrupts" when all containers continue and a
  // paragraph or indented code is open; it holds for every container opened on that line.
  private interruptsFlow = false;

  private closePara(): void {
    this.leaf = LEAF_NONE;
    const { content, lines } = this.para.take();
    const at = takeDefinitions(content, this.defs);
    if (at >= content.length) return;
    this.blocks.push(at === 0 ? { depth: 0, content, lines } : rebase(content, lines, at, 0));
  }

  closeLeaf(): void {
    if (this.leaf === LEAF_PARA) this.closePara();
    this.leaf = LEAF_NONE;
  }

  private markNotEmpty(): void {
    for (const c of this.stack) c.empty = false;
  }

  private closeUnmatched(): void {
    if (this.unmatchedClosed) return;
    this.closeLeaf();
    this.stack.length = this.matched;
    this.unmatchedClosed = true;
  }

  /** Closes what a new block start ends: the unmatched containers and the open leaf. */
  private startBlock(): void {
    this.closeUnmatched();
    this.closeLeaf();
    this.markNotEmpty();
  }

  private paraTip(): boolean {
    return this.leaf === LEAF_PARA && this.unmatchedClosed && !this.openedNew;
  }

  /** Reads one line (`off`: where it starts in the note). */
  line(text: string, off: number): void {
    const cur = this.cur;
    cur.startLine(text);
    this.lineOff = off;
    const allMatched = this.continueContainers();
    this.interruptsFlow = allMatched && (this.leaf === LEAF_PARA || this.leaf === LEAF_CODE);
    if (allMatched && this.insideLeaf()) return;
    this.openedNew = false;
    this.unmatchedClosed = allMatched;
    if (this.openBlocks()) return;
    this.restOfLine();
  }

  /** Step 1: which open containers this line continues (`matched`); true when all of them. */
  private continueContainers(): boolean {
    const { cur, stack } = this;
    this.matched = 0;
    for (; this.matched < stack.length; this.matched++) {
      const c = stack[this.matched]!;
      cur.findNextNonspace();
      if (c.quote) {
        if (cur.indent <= 3 && cur.ln.charCodeAt(cur.nn) === 62) {
          cur.advanceNextNonspace();
          cur.advanceOffset(1, false);
          if (isSpTab(cur.ln.charCodeAt(cur.offset))) cur.advanceOffset(1, true);
        } else break;
      } else if (cur.blank) {
        if (c.empty) break;
        cur.advanceNextNonspace();
      } else if (cur.indent >= c.width) cur.advanceOffset(c.width, true);
      else break;
    }
    return this.matched === stack.length;
  }

  /** Step 2: a line inside fenced code, indented code or an HTML block; true when that took it. */
  private insideLeaf(): boolean {
    const cur = this.cur;
    if (this.leaf === LEAF_FENCE) {
      cur.findNextNonspace();
      if (cur.indent <= 3 && cur.ln[cur.nn] === this.fenceCh) {
        let k = cur.nn;
        while (cur.ln[k] === this.fenceCh) k++;
        if (k - cur.nn >= this.fenceLen && /^[ \t]*$/.test(cur.ln.slice(k))) this.leaf = LEAF_NONE;
      }
      return true;
    }
    if (this.leaf === LEAF_HTML) {
      cur.findNextNonspace();
      if (cur.blank && this.htmlKind >= 6) this.leaf = LEAF_NONE;
      else if (htmlBlockEnds(this.htmlKind, cur.ln.slice(cur.offset))) this.leaf = LEAF_NONE;
      return true;
    }
    if (this.leaf === LEAF_CODE) {
      cur.findNextNonspace();
      if (cur.indent >= 4 || cur.blank) return true;
      this.leaf = LEAF_NONE;
    }
    return false;
  }

  /** Step 3: new block starts, containers first; true when a leaf took the whole line. */
  private openBlocks(): boolean {
    const cur = this.cur;
    for (;;) {
      cur.findNextNonspace();
      if (cur.indent < 4 && !maybeSpecial(cur.ln.charCodeAt(cur.nn))) {
        cur.advanceNextNonspace();
        return false;
      }
      if (cur.indent >= 4) {
        // Not after a paragraph, and not on a lazy line (the reference reads that as paragraph text).
        if (this.leaf === LEAF_PARA || cur.blank) return false;
        this.startBlock();
        cur.advanceOffset(4, true);
        this.leaf = LEAF_CODE;
        return true;
      }
      const rest = cur.ln.slice(cur.nn);
      const ch = rest[0];
      if (ch === '>' && this.stack.length < MAX_NESTING) {
        this.startBlock();
        cur.advanceNextNonspace();
        cur.advanceOffset(1, false);
        if (isSpTab(cur.ln.charCodeAt(cur.offset))) cur.advanceOffset(1, true);
        this.pushContainer({ quote: true, width: 0, empty: false });
        continue;
      }
      const leafTaken = this.leafStart(rest, ch);
      if (leafTaken !== null) return leafTaken;
      if (this.stack.length < MAX_NESTING && listItemStart(rest, this.paraTip() || this.interruptsFlow)) {
        this.startBlock();
        this.openListItem(rest);
        continue;
      }
      cur.advanceNextNonspace();
      return false;
    }
  }

  private pushContainer(c: Container): void {
    this.stack.push(c);
    this.matched = this.stack.length;
    this.openedNew = true;
  }

  /**
   * A heading, fence, HTML block, setext underline or thematic break starting `rest`: true when it
   * took the line, false when the line reads on as text (a setext line under definitions only),
   * null when none starts here.
   */
  private leafStart(rest: string, ch: string | undefined): boolean | null {
    const cur = this.cur;
    if (ch === '#' && ATX.test(rest)) {
      this.startBlock();
      let k = cur.nn;
      while (cur.ln[k] === '#') k++;
      const [s, e] = atxContent(cur.ln, k);
      this.blocks.push({ depth: k - cur.nn, content: cur.ln.slice(s, e), lines: [0, this.lineOff + s] });
      return true;
    }
    const fence = FENCE_OPEN.exec(rest);
    if (fence) {
      this.startBlock();
      this.leaf = LEAF_FENCE;
      this.fenceCh = fence[0][0]!;
      this.fenceLen = fence[0].length;
      return true;
    }
    const kind = htmlBlockStart(rest, this.leaf === LEAF_PARA);
    if (kind) {
      this.startBlock();
      this.leaf = htmlBlockEnds(kind, rest) ? LEAF_NONE : LEAF_HTML;
      this.htmlKind = kind;
      return true;
    }
    if (this.paraTip() && (ch === '=' || ch === '-') && SETEXT.test(rest)) {
      const { content, lines } = this.para.take();
      const at = takeDefinitions(content, this.defs);
      this.leaf = LEAF_NONE;
      if (at < content.length) {
        this.blocks.push(rebase(content, lines, at, ch === '=' ? 1 : 2));
        return true;
      }
      // Only definitions: no paragraph is left, and the line reads on.
    }
    if ((ch === '*' || ch === '-' || ch === '_') && BREAK.test(rest)) {
      this.startBlock();
      return true;
    }
    return null;
  }

  /** Opens a list item whose marker starts `rest`, with the content's indent. */
  private openListItem(rest: string): void {
    const cur = this.cur;
    const markerOffset = cur.indent;
    const markerLen = BULLET.test(rest) ? 1 : ORDERED.exec(rest)![0].length;
    cur.advanceNextNonspace();
    cur.advanceOffset(markerLen, true);
    const spacesStartCol = cur.column;
    const spacesStartOffset = cur.offset;
    do {
      cur.advanceOffset(1, true);
    } while (cur.column - spacesStartCol < 5 && isSpTab(cur.ln.charCodeAt(cur.offset)));
    const blankItem = cur.offset >= cur.ln.length;
    const spaces = cur.column - spacesStartCol;
    let padding: number;
    if (spaces >= 5 || spaces < 1 || blankItem) {
      padding = markerLen + 1;
      cur.column = spacesStartCol;
      cur.offset = spacesStartOffset;
      cur.partialTab = false;
      if (isSpTab(cur.ln.charCodeAt(cur.offset))) cur.advanceOffset(1, true);
    } else padding = markerLen + spaces;
    this.pushContainer({ quote: false, width: markerOffset + padding, empty: true });
  }

  /** Step 4: the rest of the line: lazy continuation, a paragraph line, or a blank line. */
  private restOfLine(): void {
    const cur = this.cur;
    if (!this.unmatchedClosed && !cur.blank && this.leaf === LEAF_PARA) {
      this.para.add(cur.ln, cur.nn, this.lineOff);
      return;
    }
    this.closeUnmatched();
    if (cur.blank) {
      if (this.leaf === LEAF_PARA) this.closePara();
      return;
    }
    if (this.leaf === LEAF_CODE) return;
    if (this.leaf !== LEAF_PARA) {
      this.markNotEmpty();
      this.leaf = LEAF_PARA;
    }
    cur.findNextNonspace();
    this.para.add(cur.ln, cur.nn, this.lineOff);
  }
}
