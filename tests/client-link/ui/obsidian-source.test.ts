import { describe, expect, it } from 'vitest';
import { locate } from '../../../client-link/src/ui/vault-paths.ts';
import {
  blockOf,
  rewriteObsidian,
  sectionOf,
  taskMarks,
  toggleTask,
  wikiParts,
} from '../../../core/render/obsidian-source.ts';

describe('rewriteObsidian', () => {
  const notes: Record<string, string> = { Plan: 'Projects/Plan.md', 'Projects/Plan': 'Projects/Plan.md' };
  const rw = (s: string) => rewriteObsidian(s, (t) => notes[t] ?? null);

  it('turns wiki-links (aliases with an escaped pipe too) into note links', () => {
    expect(rw('| [[Plan\\|the plan]] |')).toBe('| [the plan](#note=Projects%2FPlan.md) |');
    expect(rw('[[Plan#Goals|goals]]')).toBe('[goals](#note=Projects%2FPlan.md "Goals")');
    expect(rw('[[#Tasks]]')).toBe('[Tasks](#anchor "Tasks")');
    expect(rw('[[report.pdf]]')).toBe('[report.pdf](#file=report.pdf)');
  });
  it('turns embeds and local markdown images into #embed links, leaving remote ones', () => {
    expect(rw('![[Pasted image 1.png|300]]')).toBe('[300](#embed=Pasted%20image%201.png%7C300)');
    expect(rw('![c](<a/chart (1).png>)')).toBe('[c](#embed=a%2Fchart%20%281%29.png%7Cmd)');
    expect(rw('![c](a/chart.png)')).toBe('[c](#embed=a%2Fchart.png%7Cmd)');
    expect(rw('![c](https://example.com/x.png)')).toBe('![c](https://example.com/x.png)');
  });
  it('drops %% comments %% (inline and across lines) and leaves code alone', () => {
    expect(rw('a %% [[Plan]] #tag %% b')).toBe('a  b');
    expect(rw('x\n%%\n[[Plan]]\n%%\ny')).toBe('x\ny');
    expect(rw('```\n[[Plan]] %% c %%\n```')).toBe('```\n[[Plan]] %% c %%\n```');
    expect(rw('`[[Plan]]` and [[Plan]]')).toBe('`[[Plan]]` and [Plan](#note=Projects%2FPlan.md)');
  });
  it('never touches code or math at any nesting (callouts, quotes, lists, indented code)', () => {
    const callout = '> [!example] Code\n> ```md\n> [[Plan]] ![[x.png]] %% c %% #tag ^id\n> ```';
    expect(rw(callout)).toBe(callout);
    const nested = '> > [!note]\n> > ~~~\n> > [[Plan]]\n> > ~~~';
    expect(rw(nested)).toBe(nested);
    const list = '- item\n\n  ```\n  [[Plan]]\n  ```\n\n      [[Plan]] indented';
    expect(rw(list)).toBe(list);
    expect(rw('> `[[Plan]]` [[Plan]]')).toBe('> `[[Plan]]` [Plan](#note=Projects%2FPlan.md)');
    expect(rw('$a\\,b [[Plan]]$ and $$\\,$$')).toBe('$a\\,b [[Plan]]$ and $$\\,$$');
    expect(rw('$$\nx\\,y #tag\n$$')).toBe('$$\nx\\,y #tag\n$$');
  });
  it('turns inline #tags (nested too) into tag links, not headings, anchors or numbers', () => {
    expect(rw('see #tag/nested and #a-b_c.')).toBe(
      'see [#tag/nested](#tag=tag%2Fnested) and [#a-b_c](#tag=a-b_c).',
    );
    expect(rw('#start')).toBe('[#start](#tag=start)');
    expect(rw('## Heading #1 x#y [[Plan#Goals]]')).toBe(
      '## Heading #1 x#y [Plan › Goals](#note=Projects%2FPlan.md "Goals")',
    );
    expect(rw('`#code`')).toBe('`#code`');
  });
  it('turns inline footnotes into GFM footnotes', () => {
    expect(rw('Said^[an aside] once.')).toBe('Said[^quire-inline-1] once.\n\n[^quire-inline-1]: an aside');
  });
  it('marks block ids', () => {
    expect(rw('- Ship it ^goal-1')).toBe('- Ship it [](#block=goal-1)');
  });
});

describe('tasks inside code at any nesting', () => {
  it('are not tasks', () => {
    const src = '> [!todo]\n> ```\n> - [ ] code\n> ```\n> - [ ] real';
    expect(taskMarks(src)).toEqual([src.lastIndexOf('[ ]') + 1]);
  });
});

describe('tasks, sections and blocks', () => {
  const src = '# T\n- [ ] one\n```\n- [ ] code\n```\n> - [x] quoted\n1. [ ] numbered\n- [ ]no';
  it('finds task marks outside code and toggles exactly one', () => {
    const marks = taskMarks(src);
    expect(marks.map((i) => src[i])).toEqual([' ', 'x', ' ']);
    expect(toggleTask(src, marks[1]!)).toContain('> - [ ] quoted');
    expect(toggleTask(src, marks[0]!)).toBe(src.replace('- [ ] one', '- [x] one'));
  });
  it('cuts a heading section and a block', () => {
    const doc = '# A\nx\n## Goals\n- g ^g1\n### Sub\ns\n## Next\nn';
    expect(sectionOf(doc, 'goals')).toBe('## Goals\n- g ^g1\n### Sub\ns');
    expect(sectionOf(doc, 'none')).toBeNull();
    expect(blockOf(doc, 'g1')).toBe('- g ^g1');
    expect(blockOf('p1\np2 ^b\n\nq', 'b')).toBe('p1\np2 ^b');
  });
  it('splits wiki parts', () => {
    expect(wikiParts('Note#^id|alias')).toEqual({ target: 'Note', subpath: '^id', alias: 'alias' });
    expect(wikiParts('Note\\|a')).toEqual({ target: 'Note', subpath: '', alias: 'a' });
  });
});

describe('locate (the server resolves, the workspace looks up)', () => {
  const link = (target: string, path: string | null, type: 'note' | 'file') =>
    ({ target, path, type, kind: 'embed' }) as const;
  const note = {
    links: [
      link('x.png', 'img/x.png', 'file'),
      link('Plan', 'a/Plan.md', 'note'),
      link('gone.pdf', null, 'file'),
    ],
  };
  it("takes the path and type of the note's own links, the exact target first, then case-insensitively", () => {
    expect(locate(note, 'x.png')).toEqual({ path: 'img/x.png', kind: 'file' });
    expect(locate(note, ' X.PNG ')).toEqual({ path: 'img/x.png', kind: 'file' });
    expect(locate(note, 'Plan')).toEqual({ path: 'a/Plan.md', kind: 'note' });
    expect(locate(note, 'gone.pdf')).toBeNull();
    expect(locate(note, 'nope.png')).toBeNull();
    expect(locate(note, '')).toBeNull();
  });
});
