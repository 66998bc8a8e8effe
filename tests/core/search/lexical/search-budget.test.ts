import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../../adapters/store/memory-note-store.ts';
import { analyzeMarkdown } from '../../../../core/notes/markdown/remark.ts';
import { createNoteService } from '../../../../core/notes/service.ts';
import { createSearchIndex } from '../../../../core/search/lexical/search-index.ts';
import { TYPO_WORDS, TYPO_WORK } from '../../../../core/search/lexical/typo-budget.ts';

/** Deterministic words of random letters (a vocabulary as large and as shapeless as can be). */
function randomWords(seed: number) {
  let x = seed;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  return (n: number) => {
    let w = '';
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(next() * 26));
    return w;
  };
}

/** A body of distinct random words of about `chars` characters. */
function distinctText(word: (n: number) => string, chars: number): string {
  const out: string[] = [];
  let len = 0;
  while (len < chars) {
    const w = word(7 + (out.length % 4));
    out.push(w);
    len += w.length + 1;
  }
  return out.join(' ');
}

/**
 * Security, fourth round: a large note rewritten then deleted must not leave its postings and
 * words in memory (the sweep was triggered by a count of notes), and a query of many misspelt
 * words must not hold the event loop for seconds (typo look-ups had no budget).
 */
describe('search index memory and typo budget', () => {
  it('gives back a rewritten then deleted large note: dead bytes swept, vocabulary and estimate back to their start', () => {
    const word = randomWords(11);
    const s = createSearchIndex();
    for (let i = 0; i < 50; i++)
      s.put({ path: `n${i}.md`, title: `Note ${i}`, tags: '', text: distinctText(word, 2000) });
    s.query('warm', 5);
    // Lists as a sweep leaves them (no unused buffer ends), so the figures compare like for like.
    for (const _ of s.sweep());
    const bytes0 = s.approxBytes();
    const vocab0 = s.vocabularySize;
    for (let r = 0; r < 4; r++)
      s.put({ path: 'big.md', title: 'Big', tags: '', text: distinctText(word, 256 * 1024) });
    s.remove('big.md');
    expect(s.deadBytes).toBeGreaterThan(4 * 1024 * 1024);
    expect(s.needsUpkeep).toBe(true);
    for (const _ of s.upkeep());
    expect(s.needsUpkeep).toBe(false);
    expect(s.deadBytes).toBe(0);
    // Within the slots of the notes' table the 7 ids took (ids only grow).
    expect(s.approxBytes()).toBeLessThanOrEqual(bytes0 + 7 * 8);
    expect(s.vocabularySize).toBe(vocab0);
    expect(s.query('warm', 5)).toEqual([]);
  });

  it('sweeps in the timed save of a service without a cache: health figure back near its start', async () => {
    const word = randomWords(5);
    const files = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`n${i}.md`, `# Note ${i}\n${distinctText(word, 1500)}`]),
    );
    let now = 1_700_000_000_000;
    const notes = createNoteService({
      store: memoryNoteStore({ files }),
      clock: { now: () => now },
      analyze: async (texts) => texts.map(analyzeMarkdown),
    });
    await notes.load();
    const start = notes.memory().search;
    for (let r = 0; r < 4; r++) {
      const body = distinctText(word, 400 * 1024);
      if (r === 0) await notes.create('big.md', body);
      else await notes.update('big.md', { content: body });
    }
    await notes.remove('big.md');
    now += 60_000;
    expect(notes.memory().search).toBeGreaterThan(start * 4);
    await notes.saveCache();
    now += 60_000;
    expect(notes.memory().search).toBeLessThanOrEqual(start * 1.05);
  }, 60_000);

  it('caps typo look-ups per query (words and rows) on a large vocabulary; ordinary typos still found', () => {
    const word = randomWords(3);
    const s = createSearchIndex();
    for (let i = 0; i < 300; i++)
      s.put({ path: `r${i}.md`, title: '', tags: '', text: distinctText(word, 2400) });
    s.put({
      path: 'light.md',
      title: 'Lighthouse keeping',
      tags: '',
      text: 'The lighthouse keeper trims the lamp.',
    });
    s.query('warm', 5);
    expect(s.vocabularySize).toBeGreaterThan(60_000);
    const misspelt = Array.from({ length: 60 }, () => word(8)).join(' ');
    s.query(misspelt, 20);
    expect(s.lastTypo.words).toBe(TYPO_WORDS);
    expect(s.lastTypo.rows).toBeLessThanOrEqual(TYPO_WORDS * (TYPO_WORK + 8 * 200));
    // One edit, a swap of neighbours, two edits: found within the budget.
    for (const q of ['lighthose', 'lighthosue', 'ligthohuse']) {
      expect(s.query(q, 3)[0]?.path, q).toBe('light.md');
      expect(s.lastTypo.rows).toBeLessThanOrEqual(TYPO_WORK + 8 * 200);
    }
  });

  it('yields to the event loop between the words a search looks up as misspellings', async () => {
    const word = randomWords(9);
    const files = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`n${i}.md`, distinctText(word, 1000)]),
    );
    const notes = createNoteService({
      store: memoryNoteStore({ files }),
      clock: { now: () => 1_700_000_000_000 },
    });
    await notes.load();
    let turns = 0;
    let done = false;
    const spin = () => {
      turns++;
      if (!done) setTimeout(spin, 0);
    };
    setTimeout(spin, 0);
    await notes.search(Array.from({ length: 12 }, () => word(8)).join(' '), 10);
    done = true;
    expect(turns).toBeGreaterThanOrEqual(TYPO_WORDS - 1);
  });
});
