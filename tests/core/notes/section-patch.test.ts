import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  locateTarget,
  type PatchOperation,
  type PatchTarget,
  applySectionPatch as patch,
} from '../../../core/notes/section-patch.ts';

const NOTE = [
  '---',
  'title: Journal',
  'tags: [daily]',
  'status: draft # keep this comment',
  '---',
  '# Day',
  '',
  'first line',
  '',
  '```md',
  '# Not a heading',
  '## Sub',
  '```',
  '',
  '## Sub',
  'sub text ^abc123',
  '',
  '- item one ^li-1',
  '- item two',
  '',
  '# Other',
  '',
  '## Sub',
  'other sub',
  '',
  '# Day',
  'again',
].join('\r\n');

const op = (
  operation: PatchOperation['operation'],
  target: PatchTarget,
  content: unknown,
  createTarget?: boolean,
) => ({
  operation,
  target,
  content,
  createTarget,
});

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as { code: string }).code;
  }
  return 'no error';
};

describe('section patch: headings', () => {
  const unique = NOTE.replace('# Day\r\nagain', '# Later\r\nagain');

  it('appends at the end of a section, before the next heading of the same or a higher level', () => {
    const out = patch(unique, op('append', { type: 'heading', path: ['Other', 'Sub'] }, 'added'));
    expect(out).toBe(unique.replace('other sub\r\n', 'other sub\r\nadded\r\n'));
  });

  it('prepends right after the heading line, and appends after nested sections', () => {
    const pre = patch(unique, op('prepend', { type: 'heading', path: ['Day', 'Sub'] }, 'first\nsecond'));
    expect(pre).toBe(unique.replace('## Sub\r\nsub text', '## Sub\r\nfirst\r\nsecond\r\nsub text'));
    const app = patch(unique, op('append', { type: 'heading', path: ['Day'] }, 'end of day'));
    expect(app).toBe(unique.replace('- item two\r\n', '- item two\r\nend of day\r\n'));
  });

  it('replaces the body and keeps the heading line; heading-like lines in code are not headings', () => {
    const out = patch(unique, op('replace', { type: 'heading', path: ['Day', 'Sub'] }, 'new body\n'));
    expect(out).toBe(
      unique.replace('sub text ^abc123\r\n\r\n- item one ^li-1\r\n- item two\r\n', 'new body\r\n'),
    );
    // `## Sub` inside the fence is not a child of Day: the one outside code is the only match.
    expect(codeOf(() => patch(unique, op('append', { type: 'heading', path: ['Not a heading'] }, 'x')))).toBe(
      'TARGET_NOT_FOUND',
    );
  });

  it('409 CONFLICT names the candidates of an ambiguous path; 404 for a missing one', () => {
    let details: any;
    try {
      patch(NOTE, op('append', { type: 'heading', path: ['Day'] }, 'x'));
    } catch (err) {
      expect((err as { code: string }).code).toBe('CONFLICT');
      details = (err as { details: unknown }).details;
    }
    expect(details.candidates.map((c: { line: number }) => c.line)).toEqual([6, 26]);
    expect(codeOf(() => patch(NOTE, op('append', { type: 'heading', path: ['Other', 'Nope'] }, 'x')))).toBe(
      'TARGET_NOT_FOUND',
    );
  });

  it('createTarget appends the missing headings at the end of the parent', () => {
    const out = patch(unique, op('append', { type: 'heading', path: ['Other', 'New'] }, 'hello', true));
    expect(out).toBe(unique.replace('other sub\r\n', 'other sub\r\n## New\r\nhello\r\n'));
    const root = patch('# A\nbody', op('append', { type: 'heading', path: ['B'] }, 'b text', true));
    expect(root).toBe('# A\nbody\n# B\nb text\n');
  });
});

describe('section patch: blocks, frontmatter, document', () => {
  it('block: replaces the paragraph or list item text, keeps the marker; appends after it', () => {
    expect(patch(NOTE, op('replace', { type: 'block', id: 'abc123' }, 'swapped'))).toBe(
      NOTE.replace('sub text ^abc123', 'swapped ^abc123'),
    );
    expect(patch(NOTE, op('replace', { type: 'block', id: 'li-1' }, 'first item'))).toBe(
      NOTE.replace('- item one ^li-1', '- first item ^li-1'),
    );
    expect(patch(NOTE, op('append', { type: 'block', id: 'li-1' }, '- item 1.5'))).toBe(
      NOTE.replace('- item one ^li-1\r\n', '- item one ^li-1\r\n- item 1.5\r\n'),
    );
    expect(patch(NOTE, op('prepend', { type: 'block', id: 'abc123' }, 'before'))).toBe(
      NOTE.replace('sub text ^abc123', 'before\r\nsub text ^abc123'),
    );
    expect(codeOf(() => patch(NOTE, op('append', { type: 'block', id: 'nope' }, 'x')))).toBe(
      'TARGET_NOT_FOUND',
    );
    const table = '| a | b |\n|---|---|\n| 1 | 2 |\n^tbl\n\nafter\n';
    expect(patch(table, op('replace', { type: 'block', id: 'tbl' }, '| c |\n|---|\n'))).toBe(
      '| c |\n|---|\n^tbl\n\nafter\n',
    );
  });

  it('frontmatter: replace sets any JSON value; append/prepend grow a list; the rest stays byte for byte', () => {
    expect(patch(NOTE, op('replace', { type: 'frontmatter', key: 'title' }, 'Log'))).toBe(
      NOTE.replace('title: Journal', 'title: Log'),
    );
    expect(patch(NOTE, op('replace', { type: 'frontmatter', key: 'status' }, { a: 1 }))).toBe(
      NOTE.replace('status: draft # keep', 'status:\r\n  a: 1 # keep'),
    );
    expect(patch(NOTE, op('append', { type: 'frontmatter', key: 'tags' }, 'work'))).toBe(
      NOTE.replace('tags: [daily]', 'tags:\r\n  - daily\r\n  - work'),
    );
    expect(patch(NOTE, op('prepend', { type: 'frontmatter', key: 'title' }, 'x'))).toBe(
      NOTE.replace('title: Journal', 'title:\r\n  - x\r\n  - Journal'),
    );
    expect(patch(NOTE, op('replace', { type: 'frontmatter', key: 'new' }, 3))).toBe(
      NOTE.replace('keep this comment\r\n', 'keep this comment\r\nnew: 3\r\n'),
    );
    expect(patch('body\n', op('replace', { type: 'frontmatter', key: 'k' }, true))).toBe(
      '---\nk: true\n---\nbody\n',
    );
  });

  it('document: append at the end, prepend after the frontmatter, replace the body', () => {
    expect(patch(NOTE, op('append', { type: 'document' }, 'tail'))).toBe(`${NOTE}\r\ntail\r\n`);
    expect(patch(NOTE, op('prepend', { type: 'document' }, 'head'))).toBe(
      NOTE.replace('---\r\n# Day', '---\r\nhead\r\n# Day'),
    );
    expect(patch(NOTE, op('replace', { type: 'document' }, 'only'))).toBe(
      `${NOTE.slice(0, NOTE.indexOf('# Day'))}only`,
    );
  });
});

// Notes built from lines that look like headings, code, blocks and lists, in either line ending.
const piece = fc.oneof(
  fc.constantFrom('# A', '## B', '### C', '# D', '## E'),
  fc.constantFrom('```', '~~~', '# in code?'),
  fc.constantFrom('para ^b1', '- item ^b2', 'text', '', 'more text ^b3', '> quote'),
  fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n`~^#]/g, 'x')),
);
const noteArb = fc
  .record({
    eol: fc.constantFrom('\n', '\r\n'),
    fm: fc.boolean(),
    lines: fc.array(piece, { maxLength: 25 }),
    final: fc.boolean(),
  })
  .map(({ eol, fm, lines, final }) => {
    const body = lines.join(eol) + (final ? eol : '');
    return (fm ? `---${eol}status: draft${eol}n: 1${eol}---${eol}` : '') + body;
  });
const targetArb: fc.Arbitrary<PatchTarget> = fc.oneof(
  fc.constantFrom<PatchTarget>(
    { type: 'document' },
    { type: 'block', id: 'b1' },
    { type: 'block', id: 'b2' },
  ),
  fc
    .array(fc.constantFrom('A', 'B', 'C', 'D', 'E'), { minLength: 1, maxLength: 3 })
    .map((path) => ({ type: 'heading' as const, path })),
);
// Content that is text, not structure (no headings, fences or block markers of its own): it starts
// with a letter, so no list marker (`*`, `+`, `1.`) or definition (`[x]: y`) can open its first line.
const contentArb = fc.string({ maxLength: 20 }).map((s) => `t${s.replace(/[\r\n^#`~>=*+-]/g, ' ')}\nline`);

describe('section patch: properties', () => {
  it('patch then the inverse patch (replace with what was there) restores the file byte for byte', () => {
    fc.assert(
      fc.property(
        noteArb,
        targetArb,
        fc.constantFrom('append', 'prepend', 'replace'),
        contentArb,
        (text, target, o, c) => {
          let span: ReturnType<typeof locateTarget>;
          try {
            span = locateTarget(text, target);
          } catch {
            return; // ambiguous heading path
          }
          fc.pre(span !== null);
          // A block's append and prepend add lines beside the block, outside what replace swaps.
          fc.pre(target.type !== 'block' || o === 'replace');
          // A heading on the last line without a line break gets one (outside the span) when text goes under it.
          fc.pre(!(span!.start === text.length && text.length > 0 && !text.endsWith('\n')));
          const original = text.slice(span!.start, span!.end);
          // Prepended text that ends in a paragraph line, set above a body whose first line is only
          // `-` or `=` characters, becomes a setext heading with that line (CommonMark): the patch made
          // a new section, so no replace of the old one can undo it.
          const lastLine = c.replace(/\s+$/, '').split(/\r?\n/).at(-1) ?? '';
          const firstBodyLine = original.split(/\r?\n/)[0] ?? '';
          fc.pre(
            !(
              o === 'prepend' &&
              target.type !== 'block' &&
              !/\n\s*\n\s*$/.test(c) &&
              /\S/.test(lastLine) &&
              /^ {0,3}(=+|-+)[ \t]*$/.test(firstBodyLine)
            ),
          );
          // A block is one paragraph or item: its new text is one line (a line break would split it).
          const content = target.type === 'block' ? c.replace(/\s+/g, ' ').trim() || 'x' : c;
          const changed = patch(text, { operation: o as PatchOperation['operation'], target, content });
          expect(changed).not.toBe(text);
          // When the patch took away the file's only CRLF line breaks (a block spanning two lines
          // replaced by one line), nothing is left to say the file used CRLF: the inverse patch
          // writes LF, which is right for a file without line breaks, and is not the original bytes.
          fc.pre(!/\r\n/.test(text) || /\r\n/.test(changed));
          const restored = patch(changed, { operation: 'replace', target, content: original });
          expect(restored).toBe(text);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a frontmatter replace and its inverse restore the file; other keys are untouched', () => {
    fc.assert(
      fc.property(noteArb, fc.constantFrom('status', 'n'), fc.jsonValue(), (text, key, value) => {
        fc.pre(text.startsWith('---'));
        const eol = text.includes('\r\n') ? '\r\n' : '\n';
        const changed = patch(text, {
          operation: 'replace',
          target: { type: 'frontmatter', key },
          content: value,
        });
        const other = key === 'status' ? `n: 1${eol}` : `status: draft${eol}`;
        expect(changed).toContain(other);
        expect(changed.slice(changed.indexOf(`${eol}---${eol}`))).toBe(
          text.slice(text.indexOf(`${eol}---${eol}`)),
        );
        const back = patch(changed, {
          operation: 'replace',
          target: { type: 'frontmatter', key },
          content: key === 'status' ? 'draft' : 1,
        });
        expect(back).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
