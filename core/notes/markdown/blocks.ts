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
  const blocks: InlineBlock[] = [];
  const defs: Definitions = new Map();
  const stack: Container[] = [];
  let leaf = LEAF_NONE;
  let fenceCh = '';
  let fenceLen = 0;
  let htmlKind = 0;
  const para = new Paragraph();

  const cur = new LineCursor();
  let lineOff = 0;

  const closePara = (): void => {
    leaf = LEAF_NONE;
    const { content, lines } = para.take();
    const at = takeDefinitions(content, defs);
    if (at >= content.length) return;
    blocks.push(at === 0 ? { depth: 0, content, lines } : rebase(content, lines, at, 0));
  };
  const closeLeaf = (): void => {
    if (leaf === LEAF_PARA) closePara();
    leaf = LEAF_NONE;
  };
  const markNotEmpty = (): void => {
    for (const c of stack) c.empty = false;
  };

  let matched = 0;
  let openedNew = false;
  let unmatchedClosed = true;
  // The reference's rule for list items: a line "interrupts" when all containers continue and a
  // paragraph or indented code is open; it holds for every container opened on that line.
  let interruptsFlow = false;
  const closeUnmatched = (): void => {
    if (unmatchedClosed) return;
    closeLeaf();
    stack.length = matched;
    unmatchedClosed = true;
  };
  const paraTip = (): boolean => leaf === LEAF_PARA && unmatchedClosed && !openedNew;
  const interrupting = (): boolean => paraTip() || interruptsFlow;

  const total = src.length;
  let pos = 0;
  while (pos <= total) {
    let eol = pos;
    while (eol < total) {
      const c = src.charCodeAt(eol);
      if (c === 10 || c === 13) break;
      eol++;
    }
    cur.startLine(src.slice(pos, eol));
    lineOff = pos;
    pos = src.charCodeAt(eol) === 13 && src.charCodeAt(eol + 1) === 10 ? eol + 2 : eol + 1;

    // 1. Which open containers does this line continue?
    matched = 0;
    for (; matched < stack.length; matched++) {
      const c = stack[matched]!;
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
    const allMatched = matched === stack.length;
    interruptsFlow = allMatched && (leaf === LEAF_PARA || leaf === LEAF_CODE);

    // 2. A line inside fenced code, indented code or an HTML block.
    if (allMatched && leaf === LEAF_FENCE) {
      cur.findNextNonspace();
      if (cur.indent <= 3 && cur.ln[cur.nn] === fenceCh) {
        let k = cur.nn;
        while (cur.ln[k] === fenceCh) k++;
        if (k - cur.nn >= fenceLen && /^[ \t]*$/.test(cur.ln.slice(k))) leaf = LEAF_NONE;
      }
      continue;
    }
    if (allMatched && leaf === LEAF_HTML) {
      cur.findNextNonspace();
      if (cur.blank && htmlKind >= 6) leaf = LEAF_NONE;
      else if (htmlBlockEnds(htmlKind, cur.ln.slice(cur.offset))) leaf = LEAF_NONE;
      continue;
    }
    if (allMatched && leaf === LEAF_CODE) {
      cur.findNextNonspace();
      if (cur.indent >= 4 || cur.blank) continue;
      leaf = LEAF_NONE;
    }

    // 3. New block starts.
    openedNew = false;
    unmatchedClosed = allMatched;
    let done = false;
    for (;;) {
      cur.findNextNonspace();
      if (cur.indent < 4 && !maybeSpecial(cur.ln.charCodeAt(cur.nn))) {
        cur.advanceNextNonspace();
        break;
      }
      if (cur.indent >= 4) {
        // Not after a paragraph, and not on a lazy line (the reference reads that as paragraph text).
        if (leaf === LEAF_PARA || cur.blank) break;
        closeUnmatched();
        closeLeaf();
        markNotEmpty();
        cur.advanceOffset(4, true);
        leaf = LEAF_CODE;
        done = true;
        break;
      }
      const rest = cur.ln.slice(cur.nn);
      const ch = rest[0];
      if (ch === '>' && stack.length < MAX_NESTING) {
        closeUnmatched();
        closeLeaf();
        markNotEmpty();
        cur.advanceNextNonspace();
        cur.advanceOffset(1, false);
        if (isSpTab(cur.ln.charCodeAt(cur.offset))) cur.advanceOffset(1, true);
        stack.push({ quote: true, width: 0, empty: false });
        matched = stack.length;
        openedNew = true;
        continue;
      }
      if (ch === '#' && ATX.test(rest)) {
        closeUnmatched();
        closeLeaf();
        markNotEmpty();
        let k = cur.nn;
        while (cur.ln[k] === '#') k++;
        const [s, e] = atxContent(cur.ln, k);
        blocks.push({ depth: k - cur.nn, content: cur.ln.slice(s, e), lines: [0, lineOff + s] });
        done = true;
        break;
      }
      const fence = FENCE_OPEN.exec(rest);
      if (fence) {
        closeUnmatched();
        closeLeaf();
        markNotEmpty();
        leaf = LEAF_FENCE;
        fenceCh = fence[0][0]!;
        fenceLen = fence[0].length;
        done = true;
        break;
      }
      const kind = htmlBlockStart(rest, leaf === LEAF_PARA);
      if (kind) {
        closeUnmatched();
        closeLeaf();
        markNotEmpty();
        leaf = htmlBlockEnds(kind, rest) ? LEAF_NONE : LEAF_HTML;
        htmlKind = kind;
        done = true;
        break;
      }
      if (paraTip() && (ch === '=' || ch === '-') && SETEXT.test(rest)) {
        const { content, lines } = para.take();
        const at = takeDefinitions(content, defs);
        leaf = LEAF_NONE;
        if (at < content.length) {
          blocks.push(rebase(content, lines, at, ch === '=' ? 1 : 2));
          done = true;
          break;
        }
        // Only definitions: no paragraph is left, and the line reads on.
      }
      if ((ch === '*' || ch === '-' || ch === '_') && BREAK.test(rest)) {
        closeUnmatched();
        closeLeaf();
        markNotEmpty();
        done = true;
        break;
      }
      if (stack.length < MAX_NESTING && listItemStart(rest, interrupting())) {
        closeUnmatched();
        closeLeaf();
        markNotEmpty();
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
        stack.push({ quote: false, width: markerOffset + padding, empty: true });
        matched = stack.length;
        openedNew = true;
        continue;
      }
      cur.advanceNextNonspace();
      break;
    }
    if (done) continue;

    // 4. The rest of the line: lazy continuation, a paragraph line, or a cur.blank line.
    if (!unmatchedClosed && !cur.blank && leaf === LEAF_PARA) {
      para.add(cur.ln, cur.nn, lineOff);
      continue;
    }
    closeUnmatched();
    if (cur.blank) {
      if (leaf === LEAF_PARA) closePara();
      continue;
    }
    if (leaf === LEAF_CODE) continue;
    if (leaf !== LEAF_PARA) {
      markNotEmpty();
      leaf = LEAF_PARA;
    }
    cur.findNextNonspace();
    para.add(cur.ln, cur.nn, lineOff);
  }
  closeLeaf();
  return { blocks, defs };
}
