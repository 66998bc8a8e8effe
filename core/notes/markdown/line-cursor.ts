/**
 * Where the block reader is on the current line: character offset and column (tabs stop every
 * 4 columns, and a tab may be partly consumed by a container), and the next non-blank character.
 */
export class LineCursor {
  ln = '';
  offset = 0;
  column = 0;
  partialTab = false;
  /** The next character that is not a space or tab, its column, and the columns up to it. */
  nn = 0;
  nnCol = 0;
  indent = 0;
  /** Whether only spaces and tabs remain. */
  blank = false;

  startLine(ln: string): void {
    this.ln = ln;
    this.offset = 0;
    this.column = 0;
    this.partialTab = false;
  }

  findNextNonspace(): void {
    const ln = this.ln;
    let i = this.offset;
    let cols = this.column;
    for (;;) {
      const c = ln.charCodeAt(i);
      if (c === 32) {
        i++;
        cols++;
      } else if (c === 9) {
        i++;
        cols += 4 - (cols % 4);
      } else break;
    }
    this.blank = i >= ln.length;
    this.nn = i;
    this.nnCol = cols;
    this.indent = cols - this.column;
  }

  /** Moves on `count` characters, or `count` columns when `columns` (a tab may be split). */
  advanceOffset(count: number, columns: boolean): void {
    const ln = this.ln;
    while (count > 0 && this.offset < ln.length) {
      if (ln.charCodeAt(this.offset) === 9) {
        const toTab = 4 - (this.column % 4);
        if (columns) {
          this.partialTab = toTab > count;
          const adv = toTab > count ? count : toTab;
          this.column += adv;
          if (!this.partialTab) this.offset++;
          count -= adv;
        } else {
          this.partialTab = false;
          this.column += toTab;
          this.offset++;
          count--;
        }
      } else {
        this.partialTab = false;
        this.offset++;
        this.column++;
        count--;
      }
    }
  }

  advanceNextNonspace(): void {
    this.offset = this.nn;
    this.column = this.nnCol;
    this.partialTab = false;
  }
}
