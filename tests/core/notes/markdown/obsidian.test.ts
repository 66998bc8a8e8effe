/**
 * Obsidian-flavoured markdown in the index parse, read alike by both readers: comments, block ids,
 * block references, heading links, nested tags, and links and images to vault files.
 */
import { describe, expect, it } from 'vitest';
import { hiddenSpans } from '../../../../core/notes/markdown/parts.ts';
import { analyzePlain } from '../../../../core/notes/markdown/plain.ts';
import { analyzeMarkdown } from '../../../../core/notes/markdown/remark.ts';
import { analyzeMarkdownFast } from '../../../../core/notes/markdown/scan.ts';

const READERS = [
  ['fast', analyzeMarkdownFast],
  ['reference', analyzeMarkdown],
  ['plain', (raw: string) => analyzePlain(raw, [])],
] as const;
const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe.each(READERS)('the %s reader', (_name, analyze) => {
  it('reads %% comments (inline, block, unclosed) as nothing: no link, tag or word', () => {
    const md = [
      'Before %%hidden [[Inline]] #inl words%% after [[Seen]] #seen.',
      '',
      '%%',
      'A block comment with [[Block]], ![[pic.png]] and #blocktag.',
      '',
      '# Not a heading',
      '%%',
      '',
      'Tail. %% unclosed [[Rest]] #rest',
    ].join('\n');
    const a = analyze(md);
    expect(a.links.map((l) => l.target)).toEqual(['Seen']);
    expect(a.tags).toEqual(['seen']);
    expect(a.title).toBeNull();
    for (const w of ['hidden', 'words', 'Block', 'comment', 'heading', 'unclosed', 'rest'])
      expect(words(a.text), w).not.toContain(w);
    expect(a.wordCount).toBe(5); // Before, after, Seen, seen (the tag's word), Tail
    const seen = a.links[0]!;
    expect(md.slice(seen.start, seen.end)).toBe('[[Seen]]');
  });

  it('keeps %% inside code as code (a mermaid fence does not open a comment)', () => {
    const md =
      '```mermaid\n%% a mermaid comment\ngraph TD\n```\n\nVisible [[After]] text, and `%%` in a code span.\n';
    const a = analyze(md);
    expect(a.links.map((l) => l.target)).toEqual(['After']);
    expect(words(a.text)).toContain('Visible');
    expect(words(a.text)).toContain('span.');
  });

  it('reads ^block-ids at the end of a line as nothing, and keeps block references in `heading`', () => {
    const md =
      'A paragraph to cite. ^para-1\n\n- a point ^pt-2\n\n| a | b |\n\n^table-id\n\nSee [[Note#^para-1|it]] and 2^10 stays.\n';
    const a = analyze(md);
    for (const id of ['para-1', '^para-1', 'pt-2', '^pt-2', 'table-id', '^table-id'])
      expect(words(a.text), id).not.toContain(id);
    expect(a.links).toMatchObject([{ target: 'Note', heading: '^para-1', alias: 'it', kind: 'wikilink' }]);
    expect(a.text).toContain('2^10');
    expect(a.tags).toEqual([]);
  });

  it('reads heading links, and a same-note heading link is not a tag', () => {
    const a = analyze('Go to [[Plan#Goals]], [[#Tasks]] or [there](Plan.md#Goals).\n');
    expect(a.links.map((l) => [l.target, l.heading])).toEqual([
      ['Plan', 'Goals'],
      ['', 'Tasks'],
      ['Plan.md', 'Goals'],
    ]);
    expect(a.tags).toEqual([]);
  });

  it('keeps nested tags whole', () => {
    expect(analyze('#project/alpha and #project/beta/sub and #area\n').tags).toEqual([
      'project/alpha',
      'project/beta/sub',
      'area',
    ]);
  });

  it('records embeds, links and images to files with their offsets', () => {
    const md =
      '![[diagram.svg|120]] [[report.pdf]] ![chart](../Attachments/chart%202.png) [pdf](/a%20b.pdf) ![web](https://e.example/x.png)\n';
    const a = analyze(md);
    expect(a.links.map((l) => [l.target, l.kind])).toEqual([
      ['diagram.svg', 'embed'],
      ['report.pdf', 'wikilink'],
      ['../Attachments/chart 2.png', 'markdown'],
      ['/a b.pdf', 'markdown'],
    ]);
    expect(a.links.map((l) => md.slice(l.start, l.end))).toEqual([
      '![[diagram.svg|120]]',
      '[[report.pdf]]',
      '![chart](../Attachments/chart%202.png)',
      '[pdf](/a%20b.pdf)',
    ]);
  });
});

describe('hiddenSpans', () => {
  const spans = (raw: string) => {
    const s = hiddenSpans(raw, 0);
    const out: string[] = [];
    for (let i = 0; i < s.length; i += 2) out.push(raw.slice(s[i], s[i + 1]));
    return out;
  };
  it('finds comments and block ids outside code, and nothing in a note without either', () => {
    expect(spans('plain text\n')).toEqual([]);
    expect(spans('a %%b%% c %%d\ne%% f ^id\n')).toEqual(['%%b%%', '%%d\ne%%', '^id']);
    expect(spans('`%%` and ``%% ` %%`` then %%x%%')).toEqual(['%%x%%']);
    expect(spans('~~~\n%% no\n~~~\n> ```\n> x ^no\n> ```\nyes ^b-1  \n')).toEqual(['^b-1']);
    expect(spans('a^b\n^ok\nx ^not an id\n')).toEqual(['^ok']);
    expect(spans('open %% to the end\n\nstill hidden')).toEqual(['%% to the end\n\nstill hidden']);
  });
});
