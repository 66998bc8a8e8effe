/**
 * Search quality cannot silently regress: a small labelled vault of our own
 * (tests/fixtures/search-vault, questions.json beside the notes) searched through the note
 * service, with hit@5 and MRR@10 held above thresholds (the full evaluation over real vaults
 * is bench/search-eval, see docs/reference/search.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../../adapters/store/memory-note-store.ts';
import { readVault } from '../../../../bench/search-eval/vault.ts';
import { createNoteService } from '../../../../core/notes/service.ts';

const dir = fileURLToPath(new URL('../../../fixtures/search-vault', import.meta.url));

describe('search quality on the fixture vault', () => {
  it('finds the labelled note in the top 5 for >= 90% of questions, MRR@10 >= 0.8, typos included', async () => {
    const notes = createNoteService({
      store: memoryNoteStore({ files: readVault(dir) }),
      clock: { now: () => 0 },
    });
    await notes.load();
    const questions = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) as {
      q: string;
      kind: string;
      relevant: string[];
    }[];
    expect(questions.length).toBeGreaterThanOrEqual(30);
    let rr = 0;
    let typoHits = 0;
    let typos = 0;
    const missed: string[] = [];
    for (const q of questions) {
      const got = (await notes.search(q.q, 10)).map((h) => h.path);
      const rank = got.findIndex((p) => q.relevant.includes(p));
      const hit = rank >= 0 && rank < 5;
      if (!hit) missed.push(q.q);
      if (rank >= 0) rr += 1 / (rank + 1);
      if (q.kind === 'typo') {
        typos++;
        if (hit) typoHits++;
      }
    }
    expect(missed.length / questions.length, `missed: ${missed.join('; ')}`).toBeLessThanOrEqual(0.1);
    expect(rr / questions.length).toBeGreaterThanOrEqual(0.8);
    expect(typoHits / typos).toBeGreaterThanOrEqual(0.8);
  });
});
