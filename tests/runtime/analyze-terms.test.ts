import { afterAll, describe, expect, it } from 'vitest';
import { analyzePool } from '../../adapters/node/analyze-pool.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import { toEntry } from '../../core/notes/note-index.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { noteTitle } from '../../core/notes/title.ts';
import { docTerms } from '../../core/search/lexical/doc-terms.ts';
import { searchDocOf } from '../../core/search/lexical/fields.ts';

/**
 * To take work off a large vault's start, a load's search terms are made on the analyzer threads
 * (beside the parse) instead of the main thread. They must be exactly the terms the main thread
 * makes, and a vault loaded through the threads must answer every search as one loaded in place
 * (differential).
 */
const notes: Record<string, string> = {
  'a.md':
    '---\ntitle: Alpha Plan\naliases: [First, "The A"]\ntags: [work/q3, plan]\n---\n# Heading one\nRunning runners ran to the [[b]] and #inline tags.\n## Second heading\nMore words: the quick brown fox.',
  'folder/b.md':
    '# Bravo\nNo frontmatter, a link to [[a]] and ![[pic.png]]. Über naïve café 日本語のテキスト.',
  'folder/deeper/c.md': 'No title at all; the file name stands. To do: write, writing, written.',
  'empty.md': '',
  'x/To do.md': '# To do\nthe and of',
};
const paths = Object.keys(notes);
for (let i = 0; i < 40; i++) {
  paths.push(`bulk/n${i}.md`);
  notes[`bulk/n${i}.md`] = `# Bulk ${i}\nWord${i % 7} shared text number ${i} with [[a]] #bulk/${i % 3}`;
}

describe('search terms from the analyzer threads', () => {
  const pool = analyzePool({ threads: 2, minBatch: 1, fallback: async (t) => t.map((x) => analyzeNote(x)) });
  afterAll(() => pool.close());

  it('are the terms the main thread makes, and the plain text stays on the thread', async () => {
    const texts = paths.map((p) => notes[p]!);
    const out = await pool.analyze(texts, paths);
    expect(out).toHaveLength(paths.length);
    for (const [i, path] of paths.entries()) {
      const raw = texts[i]!;
      const a = analyzeNote(raw);
      const entry = toEntry(path, { size: 1, mtimeMs: 1 }, 'x', a, 1);
      const expected = docTerms(searchDocOf(entry, noteTitle(path, entry.titleExplicit), a.text, raw));
      expect(out[i]!.terms).toEqual(expected);
      expect(out[i]!.text).toBe('');
      const { terms: _t, text: _x, ...rest } = out[i]!;
      const { text: _y, ...same } = a;
      expect(rest).toEqual(same);
    }
  });

  it('a vault loaded through the threads answers searches as one loaded in place', async () => {
    const clock = { now: () => 1_700_000_000_000 };
    const threaded = createNoteService({
      store: memoryNoteStore({ files: notes }),
      clock,
      analyze: pool.analyze,
    });
    const inPlace = createNoteService({ store: memoryNoteStore({ files: notes }), clock });
    await Promise.all([threaded.load(), inPlace.load()]);
    let hits = 0;
    for (const q of [
      'alpha',
      'run',
      'heading',
      'first',
      'work',
      'q3',
      'to do',
      'café',
      'bulk',
      'word3',
      'shared number',
      'deeper',
      'brav',
      'the',
    ]) {
      const [a, b] = await Promise.all([threaded.search(q, 50), inPlace.search(q, 50)]);
      expect(JSON.stringify(a), q).toBe(JSON.stringify(b));
      hits += a.length;
    }
    expect(hits).toBeGreaterThan(20);
  });
});
