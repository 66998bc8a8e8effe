/** The lines of the paragraph being read, and where each starts in the source. */
import { trimEndBlank } from './block-lines.ts';

export class Paragraph {
  private parts: string[] = [];
  private lines: number[] = [];
  private length = 0;

  /** Adds `line` from index `from` on; `lineOffset` is where the line starts in the source. */
  add(line: string, from: number, lineOffset: number): void {
    if (this.parts.length) this.length += 1;
    this.lines.push(this.length, lineOffset + from);
    const part = line.slice(from);
    this.parts.push(part);
    this.length += part.length;
  }

  /** The content (lines joined by \n, trailing blanks removed) and its line map; empties the paragraph. */
  take(): { content: string; lines: number[] } {
    const out = { content: trimEndBlank(this.parts.join('\n')), lines: this.lines };
    this.parts = [];
    this.lines = [];
    this.length = 0;
    return out;
  }
}
