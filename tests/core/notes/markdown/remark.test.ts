import { describe, expect, it } from 'vitest';
import { analyzeMarkdown, splitFrontmatter } from '../../../../core/notes/markdown/remark.ts';

describe('analyzeMarkdown', () => {
  it('reads frontmatter and takes the title from it first', () => {
    const a = analyzeMarkdown('---\ntitle: From FM\ntags: [x, y]\n---\n# Heading\nbody\n');
    expect(a.title).toBe('From FM');
    expect(a.frontmatter).toEqual({ title: 'From FM', tags: ['x', 'y'] });
    expect(a.bodyStart).toBe('---\ntitle: From FM\ntags: [x, y]\n---\n'.length);
  });

  it('falls back to the first level-1 heading outside code', () => {
    const a = analyzeMarkdown('```\n# not this\n```\n## Second\n# The *Title* [[Link|Alias]]\n');
    expect(a.title).toBe('The Title Alias');
  });

  it('returns a null title when there is neither frontmatter title nor H1', () => {
    expect(analyzeMarkdown('## only h2\ntext').title).toBeNull();
  });

  it('takes tags from a comma/space separated string, from `tag`, and inline, deduplicated case-insensitively', () => {
    const a = analyzeMarkdown(
      '---\ntags: "Alpha, beta gamma"\ntag: "#delta"\n---\nText #alpha #Epsilon and #nested/tag.\n',
    );
    expect(a.tags).toEqual(['Alpha', 'beta', 'gamma', 'delta', 'Epsilon', 'nested/tag']);
  });

  it('ignores tags in code, in links, in headings markup, in URLs and purely numeric ones', () => {
    const md = [
      '# Heading',
      '`#incode` and',
      '```',
      '#fenced',
      '```',
      '[#inlink](https://x.example/#frag) see https://x.example/#anchor #123 #real',
    ].join('\n');
    expect(analyzeMarkdown(md).tags).toEqual(['real']);
  });

  it('finds wiki-links, aliases, headings and embeds in document order, and not inside code', () => {
    const md = 'See [[A]], [[folder/B|bee]] and [[C#Part]] and ![[D.png]].\n\n`[[E]]`\n\n```\n[[F]]\n```\n';
    const links = analyzeMarkdown(md).links.map(({ target, kind, heading, alias }) => ({
      target,
      kind,
      heading,
      alias,
    }));
    expect(links).toEqual([
      { target: 'A', kind: 'wikilink', heading: undefined, alias: undefined },
      { target: 'folder/B', kind: 'wikilink', heading: undefined, alias: 'bee' },
      { target: 'C', kind: 'wikilink', heading: 'Part', alias: undefined },
      { target: 'D.png', kind: 'embed', heading: undefined, alias: undefined },
    ]);
  });

  it('records markdown links and images to notes and files with raw offsets, and skips external URLs', () => {
    const md =
      'Go [there](../x/My%20Note.md#h) or [web](https://e.example) or [pic](a.png) or [bare](other) ![i](<b c.svg>) ![w](https://e.example/i.png)\n';
    const a = analyzeMarkdown(md);
    expect(a.links.map((l) => [l.target, l.kind, l.heading])).toEqual([
      ['../x/My Note.md', 'markdown', 'h'],
      ['a.png', 'markdown', undefined],
      ['other', 'markdown', undefined],
      ['b c.svg', 'markdown', undefined],
    ]);
    const first = a.links[0]!;
    expect(md.slice(first.start, first.end)).toBe('[there](../x/My%20Note.md#h)');
  });

  it('maps offsets back to the raw text after wiki-links', () => {
    const md = '---\na: 1\n---\n[[One]] text [[Two|2]] [m](m.md)';
    const a = analyzeMarkdown(md);
    expect(a.links.map((l) => md.slice(l.start, l.end))).toEqual(['[[One]]', '[[Two|2]]', '[m](m.md)']);
  });

  it('counts words of the body without frontmatter, code and markup', () => {
    const md =
      '---\ntitle: not counted here\n---\n# Two words\n\nOne **two** three, [four five](x.md) [[six]]\n\n```\ncode code code\n```\n`inline code`\n';
    expect(analyzeMarkdown(md).wordCount).toBe(8);
  });

  it('never throws on invalid YAML: frontmatter is {} and a warning is reported', () => {
    const a = analyzeMarkdown('---\ntitle: [unclosed\n  bad: : :\n---\n# Still Here\n');
    expect(a.frontmatter).toEqual({});
    expect(a.title).toBe('Still Here');
    expect(a.warnings.join(' ')).toMatch(/Invalid YAML/);
  });

  it('warns about non-text tags and a frontmatter that is not a map', () => {
    expect(analyzeMarkdown('---\ntags: [ok, {a: 1}]\n---\n').warnings.length).toBe(1);
    expect(analyzeMarkdown('---\n- just\n- a list\n---\n').warnings[0]).toMatch(/not a key\/value map/);
  });

  it('takes `created` only when it is a valid date', () => {
    expect(analyzeMarkdown('---\ncreated: 2024-03-05\n---\n').created).toBe('2024-03-05T00:00:00.000Z');
    expect(analyzeMarkdown('---\ncreated: yesterday\n---\n').created).toBeNull();
  });

  it('does not evaluate YAML tags or explode on aliases', () => {
    const bomb = `---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\nok`;
    const a = analyzeMarkdown(bomb);
    expect(a.warnings.length).toBeGreaterThan(0);
    expect(a.frontmatter).toEqual({});
    expect(analyzeMarkdown('---\nx: !!js/function "function(){}"\n---\n').frontmatter).not.toHaveProperty(
      'x',
      expect.any(Function),
    );
  });

  it('splits the frontmatter block byte for byte', () => {
    expect(splitFrontmatter('---\na: 1\n---\nbody')).toEqual({ block: '---\na: 1\n---\n', body: 'body' });
    expect(splitFrontmatter('no fm')).toEqual({ block: '', body: 'no fm' });
  });
});
