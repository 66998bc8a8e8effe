import { describe, expect, it } from 'vitest';
import { countTextYielding, createSearchIndex } from '../../../core/notes/search.ts';

describe("counting a large note's words ahead, with pauses (issue 31, item 8)", () => {
  it('indexes exactly what put counts itself, pausing between slices', async () => {
    const words = ['alpha', 'Été', '日記', 'beta-gamma', 'x'.repeat(50), 'delta42'];
    const text = Array.from({ length: 40_000 }, (_, i) => words[i % words.length])
      .map((w, i) => (i % 7 ? `${w} ` : `${w}\n`))
      .join('');
    const doc = { path: 'big.md', title: 'Big alpha', tags: 'alpha tagged', text };
    let pauses = 0;
    const counted = await countTextYielding(text, async () => {
      pauses++;
    });
    expect(pauses).toBeGreaterThan(3);
    const a = createSearchIndex();
    const b = createSearchIndex();
    a.track(true);
    b.track(true);
    a.put(doc);
    b.put(doc, counted);
    expect(a.termsOf('big.md')?.length).toBeGreaterThan(5);
    expect(b.termsOf('big.md')).toEqual(a.termsOf('big.md'));
    for (const q of ['alpha', 'ete', '日', 'delta42', 'tagged'])
      expect(b.query(q, 10)).toEqual(a.query(q, 10));
  });
});
