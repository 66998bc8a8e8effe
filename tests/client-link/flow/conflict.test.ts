import { describe, expect, it } from 'vitest';
import {
  compareLines,
  conflictsIn,
  keepBoth,
  withConflictLines,
  withoutConflictLine,
} from '../../../client-link/src/flow/conflict.ts';
import { conflictLine } from '../../../core/notes/merge/update.ts';

const COPY = 'dir/Plan (conflict 2026-12-07 001203).md';

describe("a note's conflict line", () => {
  it('is found as the server writes it, with the copy it links', () => {
    const note = `---\ntags: [a]\n---\n${conflictLine(COPY)}# Plan\n\nText.\n`;
    expect(conflictsIn(note)).toEqual([{ line: conflictLine(COPY).trimEnd(), copy: COPY }]);
    expect(conflictsIn('# Plan\n\n> [!warning] Something else [[x]].\n')).toEqual([]);
  });

  it('is removed with the blank line after it, and nothing else', () => {
    const note = `---\ntags: [a]\n---\n${conflictLine(COPY)}# Plan\n\nText.\n`;
    expect(withoutConflictLine(note, COPY)).toBe('---\ntags: [a]\n---\n# Plan\n\nText.\n');
    const other = 'dir/Plan (conflict 2026-12-07 001203 2).md';
    const two = `${conflictLine(other)}${conflictLine(COPY)}Body\n`;
    expect(conflictsIn(two).map((c) => c.copy)).toEqual([other, COPY]);
    expect(withoutConflictLine(two, COPY)).toBe(`${conflictLine(other)}Body\n`);
    expect(withoutConflictLine('no line\n', COPY)).toBe('no line\n');
  });
});

describe('comparing and keeping both', () => {
  it('lines common to both once; where they differ, the note then the copy', () => {
    const d = compareLines('a\nb\nc\nd', 'a\nB\nc\nd\ne');
    expect(d).toEqual([
      { side: 'both', text: 'a' },
      { side: 'note', text: 'b' },
      { side: 'copy', text: 'B' },
      { side: 'both', text: 'c' },
      { side: 'both', text: 'd' },
      { side: 'copy', text: 'e' },
    ]);
  });

  it("keeps every body line of both, under the note's frontmatter", () => {
    const note = '---\ntitle: N\n---\n# T\n\none\ntwo\n';
    const copy = '---\ntitle: C\n---\n# T\n\none\nthree\n';
    expect(keepBoth(note, copy)).toBe('---\ntitle: N\n---\n# T\n\none\ntwo\nthree\n');
    expect(keepBoth('same\n', 'same\n')).toBe('same\n');
  });

  it("taking a copy's text keeps the note's other conflict lines linked, under the copy's frontmatter", () => {
    const other = conflictLine('dir/Plan (conflict 2026-12-07 001203 2).md').trimEnd();
    const copy = '---\ntags: [b]\n---\n# Plan\n\nMine.\n';
    expect(withConflictLines(copy, [other])).toBe(`---\ntags: [b]\n---\n${other}\n\n# Plan\n\nMine.\n`);
    expect(withConflictLines(`${other}\n\nMine.\n`, [other])).toBe(`${other}\n\nMine.\n`);
  });
});
