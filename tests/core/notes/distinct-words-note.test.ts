/**
 * The largest note the limits admit, of distinct words (about half a million of them: the worst
 * case for the index, every word a new term), through the notes service as the Node server runs
 * it: the fs store, the history, the analyzer threads (its terms made there and sent packed).
 * Written, found by one of its words, rewritten (the old words gone), deleted (found no more).
 * How long the event loop is held meanwhile is a benchmark (bench/search-budget.ts), not a test.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzePool } from '../../../adapters/node/analyze-pool.ts';
import { fsHistoryStore } from '../../../adapters/store/fs-history-store.ts';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { createHistory } from '../../../core/history/history.ts';
import { analyzeNote } from '../../../core/notes/markdown/analyzer.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { tempDir } from '../../helpers/app.ts';
import { silentLogger } from '../../helpers/logger.ts';

const clock = { now: () => Date.now() };
const MiB = 1024 * 1024;

/** Distinct lowercase words (base 26, 7 letters: no two alike, none a stop word), `chars` long. */
function distinctWords(chars: number, salt: number): string {
  const out: string[] = [];
  let len = 0;
  for (let i = 0; len < chars; i++) {
    let n = i * 7919 + salt;
    let w = '';
    for (let k = 0; k < 7; k++) {
      w += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    }
    out.push(w);
    len += w.length + 1;
  }
  return out.join(' ');
}

describe('a 4 MiB note of distinct words', () => {
  const pool = analyzePool({ threads: 1, fallback: async (t) => t.map((x) => analyzeNote(x)) });
  afterAll(() => pool.close());

  it('is written, found, rewritten and deleted through the notes service', async () => {
    const tmp = await tempDir('quire-distinct-');
    try {
      const history = createHistory({
        store: fsHistoryStore({ dir: join(tmp.dir, 'history'), fsync: false }),
        clock,
        logger: silentLogger,
      });
      await history.load();
      const notes = createNoteService({
        store: fsNoteStore({ dir: join(tmp.dir, 'vault'), watch: false, fsync: false }),
        clock,
        analyze: pool.analyze,
        history,
      });
      await notes.load();
      await notes.create('small.md', '# Small\nsome ordinary words');

      const first = distinctWords(4 * MiB - 64, 1);
      const words = first.split(' ');
      expect(words.length).toBeGreaterThan(400_000);
      expect(new Set(words).size).toBe(words.length);
      const created = await notes.create('big.md', `# Big\n${first}`);
      expect(created.wordCount).toBe(words.length + 1);
      const probe = words[123_457]!;
      expect((await notes.search(probe, 5)).map((h) => h.path)).toEqual(['big.md']);
      expect((await notes.search('ordinary', 5)).map((h) => h.path)).toEqual(['small.md']);

      const second = distinctWords(4 * MiB - 64, 2);
      const next = second.split(' ')[200_003]!;
      expect(first.includes(next)).toBe(false);
      const updated = await notes.update('big.md', { content: `# Big\n${second}` });
      expect(updated.checksum).not.toBe(created.checksum);
      expect((await notes.search(next, 5)).map((h) => h.path)).toEqual(['big.md']);
      // The words of the text it replaced are gone (a sweep or not: removed notes never match).
      expect(second.includes(probe)).toBe(false);
      expect((await notes.search(probe, 5)).map((h) => h.path)).toEqual([]);

      await notes.remove('big.md');
      await notes.saveCache();
      expect((await notes.search(next, 5)).map((h) => h.path)).toEqual([]);
      expect((await notes.search('ordinary', 5)).map((h) => h.path)).toEqual(['small.md']);
      await expect(notes.get('big.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    } finally {
      await tmp.cleanup();
    }
  }, 120_000);
});
