import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64 } from '../../../../core/search/lexical/persist.ts';
import { createSearchIndex } from '../../../../core/search/lexical/search-index.ts';
import { makeSnippet } from '../../../../core/search/lexical/snippet.ts';
import { tokenize } from '../../../../core/search/lexical/text.ts';

const doc = (path: string, text: string, title = '', tags = '') => ({ path, title, tags, text });

describe('search index', () => {
  it('tokenizes case- and accent-insensitively, CJK one character each', () => {
    expect(tokenize('Crème BRÛLÉE, naïve-café 42 東京')).toEqual([
      'creme',
      'brulee',
      'naive',
      'cafe',
      '42',
      '東',
      '京',
    ]);
  });

  it('ranks by BM25 with title and tags weighted; any word may match, notes with more of them first', () => {
    const s = createSearchIndex();
    s.put(doc('body.md', 'apple banana'));
    s.put(doc('title.md', 'banana', 'Apple'));
    s.put(doc('tag.md', 'banana cherry', '', 'apple'));
    s.put(doc('none.md', 'cherry'));
    expect(s.query('apple', 10).map((h) => h.path)).toEqual(['title.md', 'tag.md', 'body.md']);
    // Any word may match (all-words-or-nothing found nothing for questions); covering both ranks first.
    expect(s.query('apple cherry', 10).map((h) => h.path)[0]).toBe('tag.md');
    expect(s.query('apple cherry', 10)).toHaveLength(4);
    expect(s.query('durian', 10)).toEqual([]);
    expect(s.query('apple', 1)).toHaveLength(1);
  });

  it('matches the last word as a prefix, exact words first', () => {
    const s = createSearchIndex();
    s.put(doc('a.md', 'tomatosoup grow'));
    s.put(doc('b.md', 'tomato sauce'));
    const hits = s.query('tomat', 10);
    expect(hits.map((h) => h.path).sort()).toEqual(['a.md', 'b.md']);
    expect(s.query('tomato', 10).map((h) => h.path)).toEqual(['b.md', 'a.md']);
    expect(s.query('tomato', 10)[1]?.terms).toEqual(['tomatosoup']);
  });

  it('forgets replaced and removed notes', () => {
    const s = createSearchIndex();
    s.put(doc('a.md', 'zebra'));
    s.put(doc('a.md', 'giraffe'));
    expect(s.query('zebra', 5)).toEqual([]);
    expect(s.query('giraffe', 5).map((h) => h.path)).toEqual(['a.md']);
    s.remove('a.md');
    expect(s.has('a.md')).toBe(false);
    expect(s.query('giraffe', 5)).toEqual([]);
  });

  it('survives serialization, and a corrupt blob gives an empty index', () => {
    const s = createSearchIndex();
    s.put(doc('a.md', 'alpha beta', 'Title'));
    s.put(doc('b.md', 'beta gamma __proto__ constructor'));
    const back = createSearchIndex(s.serialize());
    expect(back.query('beta', 5)).toEqual(s.query('beta', 5));
    expect(back.query('constructor', 5).map((h) => h.path)).toEqual(['b.md']);
    back.remove('a.md');
    expect(back.query('alpha', 5)).toEqual([]);
    expect(createSearchIndex('{oops').has('a.md')).toBe(false);
  });

  it('makes a snippet around the first matching term', () => {
    const body = `${'filler '.repeat(40)}the **Tomatoes** need sun ${'more '.repeat(40)}`;
    const snip = makeSnippet(body, ['tomatoes'], 60);
    expect(snip).toMatch(/^….*Tomatoes need sun.*…$/);
    expect(snip.length).toBeLessThanOrEqual(62);
  });

  it('keeps postings as varint lists: large ids and weights, sweeps of removed notes, captures that stay put', () => {
    const s = createSearchIndex();
    const heavy = 'word '.repeat(70_000);
    for (let i = 0; i < 3000; i++) s.put(doc(`n${i}.md`, i === 2999 ? heavy : `word w${i}`));
    expect(s.query('w2500', 5).map((h) => h.path)).toEqual(['n2500.md']);
    expect(s.query('word', 1).map((h) => h.path)).toEqual(['n2999.md']);
    const before = s.capture();
    for (let i = 0; i < 2000; i++) s.remove(`n${i}.md`);
    for (let i = 0; i < 20; i++) s.put(doc(`n${i}.md`, `again${i}`));
    expect(s.deadBytes).toBeGreaterThan(2000 * 6);
    for (const _ of s.sweep());
    expect(s.deadBytes).toBe(0);
    expect(s.query('w10', 5).map((h) => h.path)).not.toContain('n10.md');
    expect(s.query('again7', 5).map((h) => h.path)).toEqual(['n7.md']);
    expect(s.query('word', 2000)).toHaveLength(1000);
    // The capture taken before still reads as the index it was.
    const back = createSearchIndex({
      docs: before.docs,
      terms: before.terms.map(([t, b, c, l]) => [t, c, l, bytesToBase64(b)]),
    });
    expect(back.query('w10', 5)[0]?.path).toBe('n10.md');
    expect(back.query('word', 5000)).toHaveLength(3000);
    expect(createSearchIndex(s.serialize()).query('word', 5000)).toHaveLength(1000);
  });

  it('encodes base64 like the standard', () => {
    for (const n of [0, 1, 2, 3, 4, 255, 1000]) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 37) % 256);
      expect(bytesToBase64(b)).toBe(Buffer.from(b).toString('base64'));
      expect([...base64ToBytes(bytesToBase64(b))]).toEqual([...b]);
    }
  });
});
