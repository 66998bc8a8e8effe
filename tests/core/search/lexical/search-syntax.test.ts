/** The query syntax (docs/reference/search.md) through the note service, attachments by name, typos, fields, CJK. */
import { describe, expect, it } from 'vitest';
import { memoryFileStore } from '../../../../adapters/store/memory-file-store.ts';
import { memoryNoteStore } from '../../../../adapters/store/memory-note-store.ts';
import { createNoteService } from '../../../../core/notes/service.ts';
import { typoBudget } from '../../../../core/search/lexical/expansion.ts';
import { parseQuery } from '../../../../core/search/lexical/query.ts';
import { editDistance } from '../../../../core/search/lexical/typo-walk.ts';

async function setup() {
  const store = memoryNoteStore({
    files: {
      'Garden/Tomatoes.md':
        '---\ntags: [garden/vegetables]\n---\n# Tomatoes\n\nRed fruit that needs full sun.\n',
      'Garden/Roses.md': '---\ntags: [garden]\n---\n# Roses\n\nPrune roses in full sun, in early spring.\n',
      'Kitchen/Salsa.md':
        '---\ntags: [kitchen]\n---\n# Salsa\n\nChop tomatoes, onion and chili. Full sun not needed.\n',
      'Kitchen/Soup.md': '# Soup\n\nA tomato soup, then a sun salad.\n',
      'Notes/Heading.md': '# Misc\n\n## Lighthouse keeping\n\nNothing else.\n',
      'Notes/Body.md': '# Other\n\nThe lighthouse is far away, a lighthouse in the fog.\n',
      'Lighthouse.md': '# Lighthouse\n\nAbout it.\n',
      'Alias.md': '---\naliases: [Beacon tower]\n---\nPlain text.\n',
      'Travel/Japan.md': '# Japan\n\n東京の地下鉄は便利です。\n',
      'Travel/Kyoto.md': '# Kyoto\n\n京都の寺。\n',
    },
  });
  const files = memoryFileStore({
    files: { 'assets/garden-plan.png': 'png', 'docs/tax return 2024.pdf': 'pdf' },
  });
  const notes = createNoteService({ store, files, clock: { now: () => 0 } });
  await notes.load();
  const paths = async (q: string) => (await notes.search(q, 20)).map((h) => h.path);
  return { notes, paths };
}

describe('search syntax', () => {
  it('matches any word, notes with more of the query first', async () => {
    const { paths } = await setup();
    const got = await paths('how do I grow tomatoes in full sun');
    expect(got[0]).toBe('Garden/Tomatoes.md');
    expect(got).toContain('Garden/Roses.md');
  });

  it('"exact phrase" keeps only notes holding the words side by side', async () => {
    const { paths } = await setup();
    expect((await paths('"full sun"')).sort()).toEqual([
      'Garden/Roses.md',
      'Garden/Tomatoes.md',
      'Kitchen/Salsa.md',
    ]);
    expect(await paths('"sun full"')).toEqual([]);
    expect(await paths('"tomato soup"')).toEqual(['Kitchen/Soup.md']);
  });

  it('-word and -"phrase" exclude notes', async () => {
    const { paths } = await setup();
    expect(await paths('sun -roses')).not.toContain('Garden/Roses.md');
    expect(await paths('sun -roses')).toContain('Garden/Tomatoes.md');
    expect(await paths('sun -"full sun"')).toEqual(['Kitchen/Soup.md']);
  });

  it('OR lets either word cover the same place in the query', async () => {
    const { paths } = await setup();
    const got = await paths('salsa OR roses');
    expect(got.slice(0, 2).sort()).toEqual(['Garden/Roses.md', 'Kitchen/Salsa.md']);
    const parsed = parseQuery('salsa OR roses');
    expect(parsed.clauses).toHaveLength(1);
    expect(parsed.clauses[0]?.alts).toEqual(['salsa', 'rose']);
  });

  it('tag: keeps notes with the tag or one nested under it; path: keeps a folder', async () => {
    const { paths } = await setup();
    expect((await paths('tag:garden')).sort()).toEqual(['Garden/Roses.md', 'Garden/Tomatoes.md']);
    expect(await paths('tag:garden/vegetables sun')).toEqual(['Garden/Tomatoes.md']);
    expect(await paths('sun tag:#kitchen')).toEqual(['Kitchen/Salsa.md']);
    expect(await paths('sun -tag:garden')).not.toContain('Garden/Roses.md');
    expect((await paths('sun path:garden')).sort()).toEqual(['Garden/Roses.md', 'Garden/Tomatoes.md']);
    expect(await paths('path:"Travel" 東京')).toEqual(['Travel/Japan.md', 'Travel/Kyoto.md']);
    expect(await paths('sun path:gar')).toEqual([]);
  });

  it('file: matches file names; attachments are found by name with type "file"', async () => {
    const { notes, paths } = await setup();
    expect(await paths('file:salsa')).toEqual(['Kitchen/Salsa.md']);
    const plan = await notes.search('garden plan');
    const file = plan.find((h) => h.path === 'assets/garden-plan.png');
    expect(file).toMatchObject({ type: 'file', title: 'garden-plan.png', tags: [] });
    expect(plan.find((h) => h.path === 'Garden/Tomatoes.md')?.type).toBe('note');
    expect((await notes.search('file:tax')).map((h) => [h.path, h.type])).toEqual([
      ['docs/tax return 2024.pdf', 'file'],
    ]);
    expect(await paths('tax retur')).toContain('docs/tax return 2024.pdf');
    // A tag filter or a phrase is about notes: attachments have neither.
    expect(await paths('garden tag:garden')).not.toContain('assets/garden-plan.png');
  });

  it('bad syntax is never an error: it reads as plain words', async () => {
    const { notes, paths } = await setup();
    for (const q of [
      '"full sun',
      'tag:',
      'path:',
      'file:',
      '-',
      'OR',
      'OR OR',
      '"',
      '-"',
      '((sun',
      'sun OR',
      '-roses',
    ]) {
      await expect(notes.search(q), q).resolves.toBeInstanceOf(Array);
    }
    expect(await paths('"full sun')).toContain('Garden/Tomatoes.md');
    expect(await paths('-roses')).toEqual(['Garden/Roses.md']);
    expect(await paths('((salsa')).toEqual(['Kitchen/Salsa.md']);
  });

  it('tolerates typos bounded by word length, and matches the last word as a prefix', async () => {
    const { paths } = await setup();
    expect((await paths('tomatos'))[0]).toBe('Garden/Tomatoes.md');
    expect((await paths('lighthosue'))[0]).toBe('Lighthouse.md');
    expect(await paths('slasa')).toContain('Kitchen/Salsa.md');
    expect(await paths('sop')).toEqual([]); // three letters: no typo allowed
    expect(await paths('lightho')).toContain('Lighthouse.md');
    expect(typoBudget(3)).toBe(0);
    expect(typoBudget(5)).toBe(1);
    expect(typoBudget(9)).toBe(2);
    expect(editDistance('salsa', 'slasa', 1)).toBe(1);
    expect(editDistance('kitchen', 'garden', 2)).toBe(3);
  });

  it('weighs the title over aliases and headings over the body', async () => {
    const { paths } = await setup();
    expect(await paths('lighthouse')).toEqual(['Lighthouse.md', 'Notes/Heading.md', 'Notes/Body.md']);
    expect((await paths('beacon tower'))[0]).toBe('Alias.md');
  });

  it('keeps CJK working: one character a word, notes with the whole sequence first', async () => {
    const { paths } = await setup();
    expect((await paths('地下鉄'))[0]).toBe('Travel/Japan.md');
    expect((await paths('京都'))[0]).toBe('Travel/Kyoto.md');
  });
});
