import { describe, expect, it } from 'vitest';
import { linkingLines, plainLine } from '../../../client-link/src/ui/backlinks.ts';
import { headingsOf, linkCandidates } from '../../../client-link/src/ui/editor.ts';
import { renderNote } from '../../../client-link/src/ui/markdown.ts';
import { notesTagged } from '../../../client-link/src/ui/tags.ts';
import { codeRanges } from '../../../core/render/code-ranges.ts';

const note = (content: string) => renderNote({ content, links: [], title: 'T' });

describe('renderNote: math', () => {
  it('keeps TeX as written (`\\,` too) for KaTeX, inline and display', () => {
    expect(note('Thin $a\\,b$ space')).toBe('<p>Thin <span class="math math-inline">a\\,b</span> space</p>');
    expect(note('$$\n\\int x\\,dx < 1\n$$')).toBe('<div class="math math-display">\\int x\\,dx &lt; 1</div>');
  });
  it('leaves prices alone: a `$` followed or closed by a space is text, as in Obsidian', () => {
    expect(note('It costs $5 and $10.')).toBe('<p>It costs $5 and $10.</p>');
  });
});

describe('codeRanges', () => {
  it('finds code at any nesting, and math', () => {
    const src = '> [!x]\n> ```\n> [[a]]\n> ```\n\n- `b` $c$';
    expect(codeRanges(src).map(([s, e]) => src.slice(s, e))).toEqual(['```\n> [[a]]\n> ```', '`b`', '$c$']);
  });
});

describe('backlinks context', () => {
  it('shows the linking line as readable text', () => {
    expect(plainLine('- [ ] See [[Plan|the plan]] and **bold** ^id')).toBe('See the plan and bold');
    expect(linkingLines('one\nA line with [[Plan]].\nother [[Else]]', ['Plan'])).toEqual([
      'A line with Plan.',
    ]);
    expect(linkingLines('[x](Plan.md) here', ['Plan.md'])).toEqual(['x here']);
  });
});

describe('editor completion', () => {
  const summary = (path: string, title: string) => ({ path, title }) as never;
  it('offers titles and the shortest unambiguous target', () => {
    const c = linkCandidates(
      [summary('a/Plan.md', 'Plan'), summary('b/Plan.md', 'Plan B'), summary('Solo.md', 'Solo')],
      ['img/x.png'],
    );
    expect(c.filter((x) => x.kind === 'note').map((x) => [x.label, x.insert])).toEqual([
      ['Plan', 'a/Plan'],
      ['Plan B', 'b/Plan'],
      ['Solo', 'Solo'],
      ['b/Plan', 'b/Plan'],
    ]);
    expect(c.find((x) => x.kind === 'file')?.insert).toBe('x.png');
    expect(headingsOf('# One\ntext\n## Two ##\n```\n# not\n```')).toEqual(['One', 'Two']);
  });

  it('offers each alias, inserted as target|alias', () => {
    const c = linkCandidates(
      [summary('a/Plan.md', 'Plan'), summary('b/Plan.md', 'Plan B')],
      [],
      new Map([['b/Plan.md', ['Second plan', 'Backup']]]),
    );
    expect(c.filter((x) => x.detail?.startsWith('alias')).map((x) => [x.label, x.insert, x.detail])).toEqual([
      ['Second plan', 'b/Plan|Second plan', 'alias of Plan B'],
      ['Backup', 'b/Plan|Backup', 'alias of Plan B'],
    ]);
  });
});

describe('tags', () => {
  it('lists notes with the tag or a tag nested under it', () => {
    const n = (path: string, tags: string[]) => ({ path, title: path, tags }) as never;
    const found = notesTagged(
      [n('b', ['project/alpha/beta']), n('a', ['Project/Alpha']), n('c', ['projects'])],
      'project/alpha',
    );
    expect(found.map((x: { path: string }) => x.path)).toEqual(['a', 'b']);
  });
});
