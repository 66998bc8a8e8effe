import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { analyzeMarkdown } from '../../../core/notes/markdown/remark.ts';
import { createNoteService } from '../../../core/notes/service.ts';

const clock = { now: () => Date.parse('2025-01-01T00:00:00Z') };

/**
 * A note of 128 Ki characters or more is indexed in steps with turns of the event loop between them
 * (a move must never stall the event loop for long): once the write answers, its links, backlinks
 * and words are all in the index, and the words of the text it replaced are gone.
 */
describe('indexing a large note', () => {
  it('has its graph and its search words up to date when the write answers', async () => {
    const store = memoryNoteStore({ files: { 'a.md': '# A', 'b.md': '# B' } });
    const notes = createNoteService({
      store,
      state: memoryStateStore(),
      clock,
      analyze: async (texts) => texts.map(analyzeMarkdown),
    });
    await notes.load();
    const big = (word: string, target: string) =>
      Array.from({ length: 40_000 }, (_, i) => (i % 2 ? `[[${target}]]` : word)).join(' ');
    expect(big('x', 'a').length).toBeGreaterThan(128 * 1024);

    let turns = 0;
    let done = false;
    const spin = () => {
      turns++;
      if (!done) setTimeout(spin, 0);
    };
    setTimeout(spin, 0);
    await notes.create('hub.md', big('pelican', 'a'));
    done = true;
    // Timers ran while it was indexed.
    expect(turns).toBeGreaterThanOrEqual(3);
    expect((await notes.search('pelican', 5)).map((h) => h.path)).toEqual(['hub.md']);
    expect((await notes.get('a.md')).backlinks.map((b) => b.path)).toEqual(['hub.md']);

    await notes.update('hub.md', { content: big('walrus', 'b') });
    expect((await notes.search('pelican', 5)).map((h) => h.path)).toEqual([]);
    expect((await notes.search('walrus', 5)).map((h) => h.path)).toEqual(['hub.md']);
    expect((await notes.get('a.md')).backlinks).toEqual([]);
    expect((await notes.get('b.md')).backlinks.map((b) => b.path)).toEqual(['hub.md']);
  });

  it('a save between the steps loses nothing: a warm restart finds the new words, not the old', async () => {
    const big = (word: string, target: string) =>
      Array.from({ length: 40_000 }, (_, i) => (i % 2 ? `[[${target}]]` : word)).join(' ');
    const store = memoryNoteStore({ files: { 'a.md': '# A', 'b.md': '# B', 'hub.md': big('pelican', 'a') } });
    const state = memoryStateStore();
    const analyze = async (texts: string[]) => texts.map(analyzeMarkdown);
    const first = createNoteService({ store, state, clock, analyze });
    await first.load();
    expect(await first.saveCache()).toBe(true); // a snapshot: changes are journaled from now on
    let done = false;
    const saver = (async () => {
      while (!done) {
        await first.saveCache();
        await new Promise((r) => setTimeout(r, 0));
      }
    })();
    await first.update('hub.md', { content: big('walrus', 'b') });
    done = true;
    await saver;
    await first.saveCache();

    const second = createNoteService({ store, state, clock, analyze });
    await second.load();
    expect((await second.search('walrus', 5)).map((h) => h.path)).toEqual(['hub.md']);
    expect((await second.search('pelican', 5)).map((h) => h.path)).toEqual([]);
    expect((await second.get('b.md')).backlinks.map((b) => b.path)).toEqual(['hub.md']);
  });
});
