import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import {
  createNoteIndex,
  type IndexEntry,
  parseIndexCache,
  snapshotParts,
} from '../../../core/notes/note-index.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { canHoldBinary, readBinaryCache, SNAPSHOT_KEY } from '../../../core/notes/snapshot-cache.ts';
import type { StateStore } from '../../../core/ports.ts';

const clock = { now: () => Date.parse('2025-01-01T00:00:00Z') };

function vault(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    files[`f${i % 7}/note ${i}.md`] =
      `---\ntags: [t${i % 5}]\n---\n# Note ${i}\n\nWords w${i} and [[note ${(i + 1) % n}]] [x](../f1/note ${i % 9}.md) #inline${i % 3}\n`;
  }
  return files;
}

/** A memory store without byte ranges: the JSON layout, as on Workers KV. */
function jsonOnlyStateStore(): StateStore {
  const { putBytes: _a, getRange: _b, byteSize: _c, ...rest } = memoryStateStore();
  return rest;
}

/** The snapshot as stored: the binary's bytes, or the JSON text. */
async function snapshotOf(state: StateStore): Promise<string | null> {
  if (canHoldBinary(state)) {
    const size = await state.byteSize(SNAPSHOT_KEY);
    return size === null ? null : Buffer.from((await state.getRange(SNAPSHOT_KEY, 0, size))!).toString('hex');
  }
  return state.get('index-cache.json');
}

/** The cache as the loader reads it (either layout), with `journal` in place of the stored one. */
async function cacheOf(
  state: StateStore,
  journal?: string,
): Promise<{
  gen: number;
  entries: Pick<Map<string, IndexEntry>, 'get' | 'has' | 'size'>;
  journaled: number;
  search: unknown;
} | null> {
  if (canHoldBinary(state)) {
    const size = await state.byteSize(SNAPSHOT_KEY);
    if (size === null) return null;
    const view = journal === undefined ? state : { ...state, get: async () => journal };
    return readBinaryCache(view as typeof state, size, 'index-journal.log');
  }
  return parseIndexCache(
    await state.get('index-cache.json'),
    journal ?? (await state.get('index-journal.log')),
  );
}

describe.each([
  ['binary (stores that read byte ranges)', memoryStateStore],
  ['JSON (stores without byte ranges, as Workers KV)', jsonOnlyStateStore],
])('the index cache, %s', (_name, memoryStateStore) => {
  it('is written in pieces and reloads to the same index without parsing a note', async () => {
    const store = memoryNoteStore({ files: vault(1500) });
    const state = memoryStateStore();
    const s1 = createNoteService({ store, state, clock });
    await s1.load();
    expect(await s1.saveCache()).toBe(true);
    expect(await s1.saveCache()).toBe(false);

    const parsed = (await cacheOf(state))!;
    expect(parsed.entries.size).toBe(1500);
    const index = createNoteIndex(
      (parsed as unknown as { search: Parameters<typeof createNoteIndex>[0] }).search,
    );
    await index.search.ready();
    expect([...snapshotParts(index.capture(1))].length).toBeGreaterThan(2);
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

  it('rejects a cache of a former layout (3: postings as JSON numbers, no generation; 4: words not stemmed)', () => {
    expect(
      parseIndexCache(JSON.stringify({ v: 2, entries: [], search: '{"docs":[],"terms":{}}' })),
    ).toBeNull();
    // 3: no journal, postings as numbers, and entries parsed before the index read Obsidian's
    // comments, block ids and file links.
    expect(parseIndexCache('{"v":3,"entries":[],"search":{"docs":[],"terms":{}}}')).toBeNull();
    // 4: search postings of unstemmed words, without field bits.
    expect(parseIndexCache('{"v":4,"gen":1,"entries":[],"search":{"docs":[],"terms":[]}}')).toBeNull();
    expect(parseIndexCache('{"v":5,"gen":1,"entries":[],"search":{"docs":[],"terms":[]}}')).not.toBeNull();
  });

  it('journals the notes changed since the snapshot, and a restart loads both without parsing', async () => {
    const store = memoryNoteStore({ files: vault(400) });
    const state = memoryStateStore();
    const s1 = createNoteService({ store, state, clock });
    await s1.load();
    expect(await s1.saveCache()).toBe(true);
    const snapshot = await snapshotOf(state);
    const gen = (await cacheOf(state))!.gen;
    expect(await state.get('index-journal.log')).toBe(`{"v":5,"gen":${gen}}\n`);
    await s1.update('f0/note 7.md', { content: '# Seven\nquasar [[note 8]]' });
    await s1.create('new/fresh.md', 'nebula [[note 7]]');
    await s1.remove('f1/note 8.md');
    expect(await s1.saveCache()).toBe(true);
    // The snapshot did not change; three lines follow the journal's header.
    expect(await snapshotOf(state)).toBe(snapshot);
    const journal = (await state.get('index-journal.log'))!;
    expect(journal.split('\n').filter(Boolean)).toHaveLength(4);
    const parsed = (await cacheOf(state, journal))!;
    expect(parsed.entries.has('f1/note 8.md')).toBe(false);
    expect(parsed.entries.get('new/fresh.md')?.links[0]?.target).toBe('note 7');

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
    expect((await s2.search('quasar')).map((h) => h.path)).toEqual(['f0/note 7.md']);
    expect((await s2.search('nebula')).map((h) => h.path)).toEqual(['new/fresh.md']);
    expect((await s2.search('w8')).map((h) => h.path)).not.toContain('f1/note 8.md');
    expect(await s2.saveCache()).toBe(false);
  });

  it('writes a new snapshot once the journal holds half the vault, and restarts the journal', async () => {
    const store = memoryNoteStore({ files: vault(50) });
    const state = memoryStateStore();
    const s1 = createNoteService({ store, state, clock });
    await s1.load();
    await s1.saveCache();
    // 1,000 lines at least before a new snapshot: 24 rounds of 50 changes.
    for (let round = 0; round < 24; round++) {
      for (let i = 0; i < 50; i++) await s1.update(`f${i % 7}/note ${i}.md`, { content: `r${round}x${i}` });
      await s1.saveCache();
    }
    const journal = (await state.get('index-journal.log'))!;
    const header = JSON.parse(journal.split('\n')[0]!) as { gen: number };
    expect(header.gen).toBeGreaterThan(clock.now());
    const s2 = createNoteService({ store, state, clock });
    await s2.load();
    expect(JSON.stringify(s2.list().items)).toBe(JSON.stringify(s1.list().items));
    expect((await s2.search('r23x49')).map((h) => h.path)).toEqual(['f0/note 49.md']);
  });

  it('ignores a torn journal tail and a journal of another snapshot; the files still decide', async () => {
    const store = memoryNoteStore({ files: vault(60) });
    const state = memoryStateStore();
    const s1 = createNoteService({ store, state, clock });
    await s1.load();
    await s1.saveCache();
    await s1.update('f0/note 0.md', { content: 'pulsar' });
    await s1.update('f1/note 1.md', { content: 'quark' });
    await s1.saveCache();
    const journal = (await state.get('index-journal.log'))!;
    // A crash in the middle of the second line.
    await state.put(
      'index-journal.log',
      journal.slice(0, journal.lastIndexOf('\n', journal.length - 2) + 20),
    );
    const s2 = createNoteService({ store, state, clock });
    await s2.load();
    expect((await s2.search('pulsar')).map((h) => h.path)).toEqual(['f0/note 0.md']);
    // The torn change is re-read from its file (size and mtime differ from the snapshot's entry).
    expect((await s2.search('quark')).map((h) => h.path)).toEqual(['f1/note 1.md']);
    expect(JSON.stringify(s2.list().items)).toBe(JSON.stringify(s1.list().items));
    // A journal of another generation is never applied.
    const stale = (await cacheOf(state, journal.replace(/"gen":\d+/, '"gen":7')))!;
    expect(stale.journaled).toBe(0);
  });

  it('never holds the write lock: a write during a slow snapshot finishes first, and is journaled next', async () => {
    const store = memoryNoteStore({ files: vault(300) });
    const inner = memoryStateStore();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // The snapshot's picture is taken before its bytes are written: once the write has begun,
    // the picture is the one from before the note's update below (without this, the update could
    // land during the save's sweep, before the picture, on a busy machine).
    let writing!: () => void;
    const begun = new Promise<void>((r) => {
      writing = r;
    });
    let ticks = 0;
    const state = {
      ...inner,
      async putPieces(key: string, pieces: AsyncIterable<string>) {
        writing();
        const all: string[] = [];
        for await (const p of pieces) all.push(p);
        await gate;
        await inner.put(key, all.join(''));
      },
      ...(inner.putBytes && {
        async putBytes(key: string, pieces: AsyncIterable<Uint8Array>) {
          writing();
          const all: Uint8Array[] = [];
          for await (const p of pieces) all.push(p.slice());
          await gate;
          await inner.putBytes!(
            key,
            (async function* () {
              yield* all;
            })(),
          );
        },
      }),
    };
    const s1 = createNoteService({ store, state, clock });
    await s1.load();
    const timer = setInterval(() => ticks++, 0);
    const saving = s1.saveCache();
    await begun;
    const wrote = await s1.update('f0/note 0.md', { content: 'meanwhile, the save' });
    expect(wrote.path).toBe('f0/note 0.md');
    release();
    expect(await saving).toBe(true);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    // The snapshot is the picture from before the write; the write is journaled by the next save.
    expect((await cacheOf(state))!.entries.get('f0/note 0.md')?.wordCount).not.toBe(3);
    expect(await s1.saveCache()).toBe(true);
    const s2 = createNoteService({ store, state, clock });
    await s2.load();
    expect((await s2.search('meanwhile')).map((h) => h.path)).toEqual(['f0/note 0.md']);
  });
});
