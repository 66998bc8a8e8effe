import { describe, expect, it } from 'vitest';
import { relativePath, rewriteLinks, rewriteLinksYielding } from '../../../core/notes/link-rewrite.ts';
import { analyzeNote } from '../../../core/notes/markdown/analyzer.ts';

/** Rewrites every link of `text` (written in `src`) whose target is in `targets` to point at `to`. */
const rewrite = (text: string, src: string, targets: string[], to: string, nameIsUnique = true) =>
  rewriteLinks(text, src, analyzeNote(text).links, (l) => targets.includes(l.target), { to, nameIsUnique });

describe('link rewriting', () => {
  it('rewrites wiki-links and embeds, keeping heading, alias and the embed mark', () => {
    const text = 'See [[Old]], [[Old#Part|the part]] and ![[Old]]; not [[Other]].';
    expect(rewrite(text, 'a.md', ['Old'], 'deep/New.md')).toBe(
      'See [[New]], [[New#Part|the part]] and ![[New]]; not [[Other]].',
    );
  });

  it('writes the full path when the new name is not unique, and keeps a written .md', () => {
    expect(rewrite('[[Old]] [[Old.md]]', 'a.md', ['Old', 'Old.md'], 'deep/New.md', false)).toBe(
      '[[deep/New]] [[deep/New.md]]',
    );
  });

  it('rewrites markdown links relative to the source folder, with anchors and encoding', () => {
    const text = 'A [link](../old.md#Top) and [abs](/old.md) and [ext](https://x.test/old.md).';
    expect(rewrite(text, 'notes/a.md', ['../old.md', '/old.md'], 'new place/n (1).md')).toBe(
      'A [link](../new%20place/n%20%281%29.md#Top) and [abs](/new%20place/n%20%281%29.md) and [ext](https://x.test/old.md).',
    );
  });

  it('rewrites embeds, links and images to a moved file, keeping its extension, size and alias', () => {
    const text =
      '![[chart.png|200]] [[Media/chart.png#page=2|the chart]] ![c](../Media/chart.png "t") %%![[chart.png]]%%';
    expect(
      rewrite(
        text,
        'notes/a.md',
        ['chart.png', 'Media/chart.png', '../Media/chart.png'],
        'Archive/chart 2.png',
      ),
    ).toBe(
      '![[chart 2.png|200]] [[Archive/chart 2.png#page=2|the chart]] ![c](../Archive/chart%202.png "t") %%![[chart.png]]%%',
    );
    expect(
      rewrite(
        '![x](<Pasted image 1.png> "t") [n](<a b.md#h>)',
        'a.md',
        ['Pasted image 1.png', 'a b.md'],
        'img/p 2.png',
      ),
    ).toBe('![x](img/p%202.png "t") [n](img/p%202.png#h)');
    expect(rewrite('![[chart.png]]', 'a.md', ['chart.png'], 'Archive/chart.png', false)).toBe(
      '![[Archive/chart.png]]',
    );
  });

  it('leaves links in code, reference definitions and unrelated text alone', () => {
    const text = '`[[Old]]`\n\n```\n[[Old]]\n```\n\n[ref][r]\n\n[r]: old.md\n\n[[Old]]';
    expect(rewrite(text, 'a.md', ['Old', 'old.md'], 'New.md')).toBe(
      '`[[Old]]`\n\n```\n[[Old]]\n```\n\n[ref][r]\n\n[r]: old.md\n\n[[New]]',
    );
  });

  it('returns the same text when nothing points at the moved note', () => {
    const text = 'no [[links]] here';
    expect(rewrite(text, 'a.md', ['Old'], 'New.md')).toBe(text);
  });

  it('is one pass: 200,000 links in one note are rewritten, and the yielding form pauses and agrees', async () => {
    const text = Array.from({ length: 200_000 }, (_, i) => (i % 2 ? '[[t]]' : '[[t|x]]')).join(' ');
    const links = analyzeNote(text).links;
    expect(links).toHaveLength(200_000);
    const opts = { to: 'moved/u.md', nameIsUnique: true };
    const sync = rewriteLinks(text, 'a.md', links, () => true, opts);
    let pauses = 0;
    const pause = async () => {
      pauses++;
    };
    const yielding = await rewriteLinksYielding(text, 'a.md', links, () => true, { ...opts, pause });
    expect(yielding).toBe(sync);
    expect(pauses).toBeGreaterThan(10);
    expect(sync.startsWith('[[u|x]] [[u]] [[u|x]]')).toBe(true);
    expect(sync.match(/\[\[u/g)).toHaveLength(200_000);
  });

  it('computes relative paths between folders', () => {
    expect(relativePath('a/b', 'a/c/n.md')).toBe('../c/n.md');
    expect(relativePath('', 'x/n.md')).toBe('x/n.md');
    expect(relativePath('a', 'a/n.md')).toBe('n.md');
  });
});
