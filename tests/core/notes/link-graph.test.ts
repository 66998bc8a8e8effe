import { describe, expect, it } from 'vitest';
import { createLinkGraph, type LinkRef } from '../../../core/notes/link-graph.ts';

const wiki = (target: string): LinkRef => ({ target, kind: 'wikilink' });
const md = (target: string): LinkRef => ({ target, kind: 'markdown' });

describe('link graph', () => {
  it('resolves by exact vault path, then by file name case-insensitively', () => {
    const g = createLinkGraph();
    g.set('a/Target.md', []);
    g.set('src.md', [wiki('a/Target'), wiki('target'), wiki('a/Target.md')]);
    expect(g.linksOf('src.md').map((l) => l.path)).toEqual(['a/Target.md', 'a/Target.md', 'a/Target.md']);
    expect(g.backlinksOf('a/Target.md')).toEqual(['src.md']);
  });

  it('picks the shortest path when several notes share a name, and re-resolves when a shorter one appears', () => {
    const g = createLinkGraph();
    g.set('deep/er/n.md', []);
    g.set('deep/n.md', []);
    g.set('src.md', [wiki('n')]);
    expect(g.linksOf('src.md')[0]?.path).toBe('deep/n.md');
    g.set('n.md', []);
    expect(g.linksOf('src.md')[0]?.path).toBe('n.md');
    expect(g.backlinksOf('deep/n.md')).toEqual([]);
    expect(g.backlinksOf('n.md')).toEqual(['src.md']);
    g.remove('n.md');
    expect(g.linksOf('src.md')[0]?.path).toBe('deep/n.md');
  });

  it('matches a partial path as a suffix', () => {
    const g = createLinkGraph();
    g.set('x/proj/plan.md', []);
    g.set('y/plan.md', []);
    g.set('s.md', [wiki('proj/plan')]);
    expect(g.linksOf('s.md')[0]?.path).toBe('x/proj/plan.md');
  });

  it('resolves markdown links relative to the note folder and never outside the vault', () => {
    const g = createLinkGraph();
    g.set('a/b/c.md', []);
    g.set('a/src.md', [md('b/c.md'), md('../../escape.md'), md('./b/c')]);
    expect(g.linksOf('a/src.md').map((l) => l.path)).toEqual(['a/b/c.md', null, 'a/b/c.md']);
  });

  it('keeps unresolved links and resolves them the moment the target appears', () => {
    const g = createLinkGraph();
    g.set('s.md', [wiki('Later')]);
    expect(g.linksOf('s.md')[0]?.path).toBeNull();
    const changed = g.set('folder/later.md', []);
    expect(g.linksOf('s.md')[0]?.path).toBe('folder/later.md');
    expect(changed).toEqual(new Set(['folder/later.md', 's.md']));
    expect(g.backlinksOf('folder/later.md')).toEqual(['s.md']);
  });

  it('updates backlinks when a note changes its links or is removed', () => {
    const g = createLinkGraph();
    g.set('t1.md', []);
    g.set('t2.md', []);
    g.set('s.md', [wiki('t1')]);
    g.set('s.md', [wiki('t2')]);
    expect(g.backlinksOf('t1.md')).toEqual([]);
    expect(g.backlinksOf('t2.md')).toEqual(['s.md']);
    g.remove('s.md');
    expect(g.backlinksOf('t2.md')).toEqual([]);
    g.set('s2.md', [wiki('t2')]);
    g.remove('t2.md');
    expect(g.linksOf('s2.md')[0]?.path).toBeNull();
  });

  it('keeps one element per distinct target and counts backlinks once per source', () => {
    const g = createLinkGraph();
    g.set('t.md', []);
    g.set('s.md', [wiki('t'), wiki('t'), md('t.md')]);
    expect(g.linksOf('s.md').map((l) => l.target)).toEqual(['t', 't.md']);
    expect(g.backlinksOf('t.md')).toEqual(['s.md']);
    g.set('s.md', [md('t.md')]);
    expect(g.backlinksOf('t.md')).toEqual(['s.md']);
  });

  it('touches only the notes that name the changed file', () => {
    const g = createLinkGraph();
    for (let i = 0; i < 500; i++) g.set(`n${i}.md`, [wiki(`n${(i + 1) % 500}`)]);
    const changed = g.set('fresh.md', [wiki('n1')]);
    expect(changed).toEqual(new Set(['fresh.md', 'n1.md']));
  });

  describe('links to files (attachments)', () => {
    const embed = (target: string): LinkRef => ({ target, kind: 'embed' });

    it('resolves by exact path, then relative to the note, then by name, shortest path first', () => {
      const g = createLinkGraph();
      g.addFiles([
        'Attachments/chart.png',
        'Projects/Assets/chart.png',
        'Projects/img/a b.png',
        'deep/er/folder/chart.png',
      ]);
      g.set('Projects/Plan.md', [
        embed('Attachments/chart.png'),
        md('img/a b.png'),
        md('../Attachments/chart.png'),
        embed('chart.png'),
        embed('Assets/chart.png'),
        md('/Attachments/chart.png'),
        embed('CHART.PNG'),
        md('../../chart.png'),
        embed('missing.png'),
      ]);
      expect(g.linksOf('Projects/Plan.md').map((l) => l.path)).toEqual([
        'Attachments/chart.png',
        'Projects/img/a b.png',
        'Attachments/chart.png',
        'Attachments/chart.png', // by name: the shortest of three paths (in characters, as for notes)
        'Projects/Assets/chart.png', // a partial path matches as a suffix
        'Attachments/chart.png',
        'Attachments/chart.png',
        null, // leaves the vault
        null,
      ]);
      expect(g.backlinksOf('Attachments/chart.png')).toEqual(['Projects/Plan.md']);
    });

    it('re-resolves when a file is added, moved or removed, and comes back when it is re-created', () => {
      const g = createLinkGraph();
      g.set('n.md', [embed('pic.png'), md('a/pic.png')]);
      expect(g.linksOf('n.md').map((l) => l.path)).toEqual([null, null]);
      expect([...g.addFiles(['a/pic.png'])]).toEqual(['n.md']);
      expect(g.linksOf('n.md').map((l) => l.path)).toEqual(['a/pic.png', 'a/pic.png']);
      g.removeFiles(['a/pic.png']);
      g.addFiles(['b/pic.png']);
      expect(g.linksOf('n.md').map((l) => l.path)).toEqual(['b/pic.png', null]);
      expect(g.backlinksOf('a/pic.png')).toEqual([]);
      expect([...g.removeFiles(['b/pic.png'])]).toEqual(['n.md']);
      expect(g.linksOf('n.md').map((l) => l.path)).toEqual([null, null]);
      g.addFiles(['a/pic.png']);
      expect(g.linksOf('n.md').map((l) => l.path)).toEqual(['a/pic.png', 'a/pic.png']);
    });

    it('prefers a file to a note for a target with an extension, and falls back to a note named with dots', () => {
      const g = createLinkGraph();
      g.addFiles(['report.pdf']);
      g.set('report.pdf.md', []);
      g.set('v1.2.md', []);
      g.set('n.md', [wiki('report.pdf'), wiki('v1.2'), wiki('report')]);
      expect(g.linksOf('n.md').map((l) => l.path)).toEqual(['report.pdf', 'v1.2.md', null]);
    });
  });

  it('keeps a hub linked from hundreds of notes exact through changes (small bags become counts)', () => {
    const g = createLinkGraph();
    g.set('hub.md', []);
    for (let i = 0; i < 300; i++) g.set(`s${i}.md`, [wiki('hub'), wiki('Hub.md'), wiki(`s${i + 1}`)]);
    expect(g.backlinksOf('hub.md')).toHaveLength(300);
    for (let i = 0; i < 300; i += 2) g.set(`s${i}.md`, [wiki('other')]);
    expect(g.backlinksOf('hub.md')).toHaveLength(150);
    expect(g.backlinksOf('hub.md')[0]).toBe('s1.md');
    // Removing the hub re-resolves every link naming it; a new hub in a folder takes them all.
    g.remove('hub.md');
    expect(g.linksOf('s1.md')[0]?.path).toBeNull();
    g.set('deep/hub.md', []);
    expect(g.backlinksOf('deep/hub.md')).toHaveLength(150);
    expect(g.linksOf('s3.md').map((l) => l.path)).toEqual(['deep/hub.md', 'deep/hub.md', 's4.md']);
    for (let i = 1; i < 300; i += 2) g.remove(`s${i}.md`);
    expect(g.backlinksOf('deep/hub.md')).toEqual([]);
  });
});
