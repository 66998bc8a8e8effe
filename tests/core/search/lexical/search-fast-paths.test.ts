/**
 * The search's fast paths give what the plain ways give: the trie walk for typos against the
 * edit distance of every word, snippets from the stretch around the match against flattening the
 * whole note, the top notes kept by a heap against ranking every note, the ASCII scan of words
 * against the Unicode pattern. Inputs are generated from a fixed seed (the same each run).
 */
import { describe, expect, it } from 'vitest';
import { rawMarkup, readableText } from '../../../../core/notes/markdown/readable.ts';
import { createSearchIndex } from '../../../../core/search/lexical/search-index.ts';
import { makeSnippet } from '../../../../core/search/lexical/snippet.ts';
import { tokenize } from '../../../../core/search/lexical/text.ts';
import { editDistance, walkWithin } from '../../../../core/search/lexical/typo-walk.ts';
import { createVocabulary } from '../../../../core/search/lexical/vocabulary.ts';

function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((s / 2 ** 31) * n);
  };
}

describe('search fast paths', () => {
  it('finds by the trie walk exactly the words within k edits (with prefixes of the word as columns)', () => {
    const rnd = random(11);
    const word = (n: number) => Array.from({ length: n }, () => 'abcde'[rnd(5)]).join('');
    let compared = 0;
    for (let round = 0; round < 200; round++) {
      const list = [...new Set(Array.from({ length: 300 }, () => word(1 + rnd(10))))].sort();
      const f = word(3 + rnd(8));
      const k = rnd(3);
      const cols = round % 2 ? [f.length] : [f.length, f.length - 1, f.length - 3].filter((c) => c > 0);
      const got = new Map<string, number>();
      walkWithin(list, f, k, (t, d) => got.set(t, d), cols);
      const want = new Map<string, number>();
      for (const t of list) {
        const d = Math.min(...cols.map((c) => editDistance(f.slice(0, c), t, k)));
        if (d <= k) want.set(t, d);
      }
      expect([...got].sort(), `${f} k=${k}`).toEqual([...want].sort());
      compared += list.length;
    }
    expect(compared).toBeGreaterThan(40_000);
    // Through the vocabulary: a swap of neighbours is one edit, the word itself is not a neighbour.
    const words = ['lighthouse', 'lighthous', 'lightning', 'house', 'salsa'];
    const vocab = createVocabulary(
      () => words,
      () => true,
    );
    expect(vocab.near(['lighthosue'], 2).map((n) => n.term)).toEqual(['lighthouse', 'lighthous']);
    expect(vocab.near(['salsa'], 1)).toEqual([]);
    expect(vocab.prefixed('light')).toEqual(['lighthous', 'lighthouse', 'lightning']);
  });

  it('makes the snippet from the stretch around the match: readable, as the whole note reads there', () => {
    // The whole note made readable, then the passage around the first term: what a short note shows.
    const whole = (body: string, terms: string[], width: number) => {
      const flat = readableText(body.replace(/```[\s\S]*?```/g, '\n'), { code: true });
      const hay = flat.toLowerCase();
      let at = -1;
      for (const t of terms) {
        const i = hay.indexOf(t.toLowerCase());
        if (i >= 0 && (at < 0 || i < at)) at = i;
      }
      const start = at < 0 ? 0 : Math.max(0, at - Math.floor(width / 3));
      const end = Math.min(flat.length, start + width);
      // A code span cut at either end is left out.
      const ticks = (x: string) => x.split('`').length - 1;
      let part = flat.slice(start, end);
      if (ticks(flat.slice(0, start)) % 2) part = part.slice(part.indexOf('`') + 1).trimStart();
      if (ticks(part) % 2) part = part.slice(0, part.lastIndexOf('`')).trimEnd();
      return (start > 0 ? '…' : '') + part + (end < flat.length ? '…' : '');
    };
    const rnd = random(5);
    const pieces = [
      'word ',
      'Tomato ',
      '**bold** ',
      '\n\n',
      '# Heading\n',
      '```js\ncode tomato here\n```\n',
      '> quote ',
      '[[link]] ',
      '[[Some note|alias tomato]] ',
      '![[icon.svg#icon]] ',
      '[a link](https://example.com/tomato) ',
      '    ',
      '`tick` ',
      '```',
      'Ünïcode ',
      'İstanbul ',
      '\n- item ',
    ];
    let compared = 0;
    for (let n = 0; n < 400; n++) {
      let body = '';
      const parts = rnd(300);
      for (let i = 0; i < parts; i++) body += pieces[rnd(pieces.length)];
      for (const terms of [['tomato'], ['quote', 'link'], ['absent'], []]) {
        for (const width of [160, 40]) {
          const snip = makeSnippet(body, terms, width);
          const why = JSON.stringify({ body, terms, width });
          expect(snip.replace(/^…|…$/g, '').length, why).toBeLessThanOrEqual(width);
          expect(rawMarkup(snip), why).toEqual([]);
          expect(snip, why).not.toMatch(/\.svg/);
          // A note that fits in one stretch reads exactly as the whole note does.
          if (body.length < width) expect(snip, why).toBe(whole(body, terms, width));
          compared++;
        }
      }
    }
    expect(compared).toBe(3200);
  });

  it('keeps the same top notes as ranking every note (ties by path), removed and excluded notes left out', () => {
    const rnd = random(3);
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const s = createSearchIndex();
    for (let i = 0; i < 600; i++) {
      const text = Array.from({ length: 1 + rnd(6) }, () => words[rnd(words.length)]).join(' ');
      s.put({ path: `n/${String(i).padStart(3, '0')}.md`, title: `Note ${i % 7}`, tags: '', text });
    }
    for (let i = 0; i < 600; i += 5) s.remove(`n/${String(i).padStart(3, '0')}.md`);
    for (const q of ['alpha', 'beta gamma', 'delta -zeta', 'epsilon alp', 'note gamma']) {
      const all = s.query(q, 10_000);
      expect(all.length, q).toBeGreaterThan(20);
      const sorted = [...all].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
      expect(all).toEqual(sorted);
      expect(all.some((r) => Number(r.path.slice(2, 5)) % 5 === 0)).toBe(false);
      for (const limit of [1, 7, 20]) expect(s.query(q, limit), `${q} ${limit}`).toEqual(all.slice(0, limit));
      const odd = (p: string) => Number(p.slice(2, 5)) % 2 === 1;
      expect(s.query(q, 15, odd)).toEqual(all.filter((r) => odd(r.path)).slice(0, 15));
    }
    // Equal scores: the first paths win at the cut, whatever the order the notes came in.
    const order = Array.from({ length: 40 }, (_, i) => i).sort(() => rnd(3) - 1);
    for (const i of order)
      s.put({ path: `t/${String(i).padStart(2, '0')}.md`, title: 'Same', tags: '', text: 'omega' });
    const tied = s.query('omega', 7);
    expect(new Set(tied.map((r) => r.score)).size).toBe(1);
    expect(tied.map((r) => r.path)).toEqual(
      ['00', '01', '02', '03', '04', '05', '06'].map((n) => `t/${n}.md`),
    );
    expect(s.query('delta -zeta', 10_000).every((r) => !r.terms.includes('zeta'))).toBe(true);
    expect(s.query('beta gamma', 3)[0]!.terms.sort()).toEqual(['beta', 'gamma']);
  });

  it('reads the same words from ASCII text by its scan as by the Unicode pattern', () => {
    const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu;
    const byPattern = (text: string) =>
      [...text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().matchAll(TOKEN)]
        .map((m) => m[0])
        .filter((w) => w.length <= 40);
    const rnd = random(9);
    for (let n = 0; n < 3000; n++) {
      let text = '';
      for (let i = rnd(60); i > 0; i--) text += String.fromCharCode(rnd(128));
      if (n % 10 === 0) text += 'x'.repeat(35 + rnd(10));
      if (n % 7 === 0) text += ' Café 東京 ';
      expect(tokenize(text), JSON.stringify(text)).toEqual(byPattern(text));
    }
  });
});
