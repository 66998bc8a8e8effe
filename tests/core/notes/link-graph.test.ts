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

  it('a bulk load (notes by link key built later, in steps or by the first change) re-resolves as a graph built note by note', () => {
    // 1,200 notes with shared names in folders, links by name, path and relative markdown links.
    const notes: [string, LinkRef[]][] = [];
    for (let i = 0; i < 1200; i++) {
      const path = `${['a', 'b/c', 'd'][i % 3]}/n${i % 400}.md`;
      notes.push([
        path,
        [wiki(`n${(i * 7) % 450}`), wiki(`b/c/n${(i * 3) % 400}`), md(`../x${i % 5}.png`), wiki('pic.png')],
      ]);
    }
    // And one note of many links (another way of gathering its keys), some named twice.
    notes.push(['hub/many.md', Array.from({ length: 40 }, (_, k) => wiki(`n${(k * 11) % 30}`))]);
    type Graph = ReturnType<typeof createLinkGraph>;
    // Each kind of change comes first once (the one that must build what the load left), then the rest.
    const ops: ((g: Graph) => unknown)[] = [
      (g) => g.set('zz/n80.md', []),
      (g) => g.set('a/n0.md', [wiki('n6')]),
      (g) => g.remove('b/c/n1.md'),
      (g) => g.addFiles(['a/pic.png', 'x1.png']),
      (g) => g.removeFiles(['d/x2.png']),
      (g) => g.set('b/c/n2.md', [wiki('n80'), wiki('pic')]),
      (g) => g.remove('a/n3.md'),
    ];
    const picture = (g: Graph) =>
      notes.map(([p]) => [p, g.linksOf(p).map((l) => l.path), g.backlinksOf(p).sort()]);
    const byOneNote = (order: number[]) => {
      const g = createLinkGraph();
      g.addFiles(['d/x2.png']);
      for (const [p] of notes) g.set(p, []);
      for (const [p, links] of notes) g.set(p, links);
      for (const k of order) ops[k]!(g);
      return picture(g);
    };
    const bulk = (order: number[], steps: 'none' | 'all' | 'one') => {
      const g = createLinkGraph();
      g.addFiles(['d/x2.png']);
      g.load(notes);
      const it = g.refsSteps();
      let n = 0;
      if (steps === 'all') for (const _ of it) n++;
      if (steps === 'one') it.next();
      for (const k of order) ops[k]!(g);
      // A change halfway through the steps built it at once and ended them.
      if (steps === 'one') expect([...it]).toEqual([]);
      if (steps === 'all') expect(n).toBeGreaterThan(1);
      return picture(g);
    };
    for (let first = 0; first < ops.length; first++) {
      const order = [first, ...ops.keys()].filter((k, i) => i === 0 || k !== first);
      const expected = byOneNote(order);
      for (const steps of ['none', 'all', 'one'] as const)
        expect(bulk(order, steps), `${first} ${steps}`).toEqual(expected);
    }
  });
});
