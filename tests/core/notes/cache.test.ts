import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createNoteIndex, parseIndexCache } from '../../../core/notes/note-index.ts';
import { createNoteService } from '../../../core/notes/service.ts';

const clock = { now: () => Date.parse('2025-01-01T00:00:00Z') };

function vault(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    files[`f${i % 7}/note ${i}.md`] =
      `---\ntags: [t${i % 5}]\n---\n# Note ${i}\n\nWords w${i} and [[note ${(i + 1) % n}]] [x](../f1/note ${i % 9}.md) #inline${i % 3}\n`;
  }
  return files;
}

describe('the index cache', () => {
  it('is written in pieces and reloads to the same index without parsing a note', async () => {
    const store = memoryNoteStore({ files: vault(1500) });
    const state = memoryStateStore();
    const s1 = createNoteService({ store, state, clock });
    await s1.load();
    expect(await s1.saveCache()).toBe(true);
    expect(await s1.saveCache()).toBe(false);

    const text = (await state.get('index-cache.json'))!;
    const parsed = parseIndexCache(text)!;
    expect(parsed.entries.size).toBe(1500);
    const index = createNoteIndex(parsed.search);
    expect([...index.serializeParts()].length).toBeGreaterThan(2);
    expect(index.search.query('w42', 5)[0]?.path).toBe('f0/note 42.md');

    let parsedNotes = 0;
    const s2 = createNoteService({
      store,
      state,
      clock,
      analyze: async (texts) => {
        parsedNotes += texts.length;
        return [];
      },
    });
    await s2.load();
    expect(parsedNotes).toBe(0);
    expect(JSON.stringify(s2.list().items)).toBe(JSON.stringify(s1.list().items));
    expect((await s2.search('w42'))[0]?.path).toBe('f0/note 42.md');
    expect(s2.status().bytes).toBe(s1.status().bytes);
  });

  it('waits for writes in flight and never saves half a write', async () => {
    const store = memoryNoteStore({ files: vault(300) });
    const state = memoryStateStore();
    const s1 = createNoteService({ store, state, clock });
    await s1.load();
    const writes = Array.from({ length: 20 }, (_, i) =>
      s1.update(`f0/note ${i * 7}.md`, { content: `# New ${i}\nfresh${i}` }),
    );
    const saved = s1.saveCache();
    await Promise.all(writes);
    await saved;
    await s1.saveCache();
    const s2 = createNoteService({ store, state, clock });
    await s2.load();
    expect((await s2.search('fresh13')).map((h) => h.path)).toEqual(['f0/note 91.md']);
    expect(JSON.stringify(s2.list().items)).toBe(JSON.stringify(s1.list().items));
  });

  it('rejects a cache of the former layout (search as a string of JSON)', () => {
    expect(
      parseIndexCache(JSON.stringify({ v: 2, entries: [], search: '{"docs":[],"terms":{}}' })),
    ).toBeNull();
    // 3: entries parsed before the index read Obsidian's comments, block ids and file links.
    expect(parseIndexCache('{"v":3,"entries":[],"search":{"docs":[],"terms":{}}}')).toBeNull();
    expect(parseIndexCache('{"v":4,"entries":[],"search":{"docs":[],"terms":{}}}')).not.toBeNull();
  });
});
