/**
 * The warm start (core/notes/loading.ts): the index is built from the snapshot and checked against
 * the vault's walk before it is ready; nothing is answered from the snapshot alone. A note changed,
 * added or removed while the server was down is the vault's from the first answer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { sha256Hex } from '../../../core/crypto.ts';
import type { NoteEvent } from '../../../core/notes/context.ts';
import { createNoteService, type NoteService } from '../../../core/notes/service.ts';
import { readSnapshotIndex, SECTION } from '../../../core/notes/snapshot.ts';
import { canHoldBinary, readBinaryCache, SNAPSHOT_KEY } from '../../../core/notes/snapshot-cache.ts';
import { indexFromCache } from '../../../core/notes/warm-start.ts';
import type { NoteStore, StateStore } from '../../../core/ports.ts';
import type { LazySearch } from '../../../core/search/lexical/persist.ts';
import { createSearchIndex } from '../../../core/search/lexical/search-index.ts';
import { until } from '../../helpers/wait.ts';
import { clock, fixtureNotes, fixtureStores } from './snapshot-vault.ts';

/** A note store whose listing is taken when asked but handed over only once `open()` is called. */
function gated(store: NoteStore) {
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  let asked = 0;
  const wrapped: NoteStore = {
    ...store,
    async list() {
      asked++;
      const listed = await store.list();
      await gate;
      return listed;
    },
  };
  return { store: wrapped, open, asked: () => asked };
}

function picture(s: NoteService) {
  return JSON.stringify({ items: s.list().items, tree: s.tree(''), tags: s.tags() });
}

async function withSnapshot(notes: Record<string, string>): Promise<StateStore> {
  const state = memoryStateStore();
  const first = createNoteService({ ...fixtureStores(notes), state, clock });
  await first.load();
  await first.saveCache();
  return state;
}

const checksumIn = (s: NoteService, path: string) => s.list().items.find((i) => i.path === path)?.checksum;

describe('the warm start from a snapshot', () => {
  it('is not ready until the walk checked the snapshot against the vault; then every read is the vault', async () => {
    const notes = fixtureNotes();
    const state = await withSnapshot(notes);
    // While the server was down: one note changed, one removed, one added.
    const down: Record<string, string> = { ...notes, 'note 6.md': 'changed while down [[note 9]]' };
    delete down['note 0.md'];
    down['area 2/added.md'] = 'added while down [[note 6]]';
    const stores = fixtureStores(down);
    const g = gated(stores.store);
    const s = createNoteService({ ...stores, store: g.store, state, clock });
    expect(s.status().state).toBe('starting');
    const events: NoteEvent[] = [];
    s.subscribe((e) => events.push(e));
    const loading = s.load();
    await until('the walk to start', () => g.asked() > 0);
    // The snapshot is read, the walk not over: nothing is answered from the snapshot alone.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
    expect(s.status().state).not.toBe('ready');
    expect(() => s.list()).toThrow(expect.objectContaining({ code: 'NOT_READY' }));
    await expect(s.get('note 6.md')).rejects.toMatchObject({ code: 'NOT_READY' });
    g.open();
    await until('the index to be ready', () => s.status().state === 'ready');
    expect(checksumIn(s, 'note 6.md')).toBe(await sha256Hex('changed while down [[note 9]]'));
    expect(checksumIn(s, 'area 2/added.md')).toBe(await sha256Hex('added while down [[note 6]]'));
    expect(checksumIn(s, 'note 0.md')).toBeUndefined();
    const cold = createNoteService({ ...fixtureStores(down), clock });
    await cold.load();
    expect(picture(s)).toBe(picture(cold));
    for (const q of ['changed while down', 'added', 'comet3']) {
      const found = async (x: NoteService) => (await x.search(q, 100)).map((h) => h.path).sort();
      expect(await found(s), q).toEqual(await found(cold));
    }
    await loading;
    // A start is no outside change: the index was never another picture.
    expect(events).toEqual([]);
  });

  it('checks a snapshot of another vault, or one written without folders, the same way', async () => {
    const notes = fixtureNotes();
    const named = (vault: string) => {
      const stores = fixtureStores(notes);
      return { ...stores, files: { ...stores.files, vault } };
    };
    const state = memoryStateStore();
    const first = createNoteService({ ...named('/vaults/a'), state, clock });
    await first.load();
    await first.saveCache();
    for (const vault of ['/vaults/b', '/vaults/a']) {
      const stores = named(vault);
      const g = gated(stores.store);
      const s = createNoteService({ ...stores, store: g.store, state, clock });
      const loading = s.load();
      await until('the walk to start', () => g.asked() > 0);
      expect(s.status().state, vault).not.toBe('ready');
      g.open();
      await loading;
      expect(picture(s)).toBe(picture(first));
    }
    // Written without the folders and vault sections (the walk gives both), as the committed
    // snapshot of layout 1 below was.
    const size = (await state.byteSize!(SNAPSHOT_KEY))!;
    const index = await readSnapshotIndex(size, (o, l) => state.getRange!(SNAPSHOT_KEY, o, l));
    expect([...index.sections.keys()].sort()).toEqual(Object.values(SECTION).sort());
    const older = createNoteService({ ...fixtureStores(notes), clock, state: memoryStateStore() });
    await older.load();
    const v1 = new Uint8Array(
      readFileSync(new URL('../../fixtures/index-cache/snapshot-v1.bin', import.meta.url)),
    );
    const old = memoryStateStore();
    await old.putBytes!(
      SNAPSHOT_KEY,
      (async function* () {
        yield v1;
      })(),
    );
    const stores = fixtureStores();
    const g = gated(stores.store);
    const s = createNoteService({ ...stores, store: g.store, state: old, clock });
    const loading = s.load();
    await until('the walk to start', () => g.asked() > 0);
    expect(s.status().state).not.toBe('ready');
    g.open();
    await loading;
    expect(picture(s)).toBe(picture(older));
  });

  it('settles after a quiet spell, not one idle moment between two requests', async () => {
    // Idle at the first look only (a client between two polls), then busy until told otherwise.
    let calls = 0;
    let busy = true;
    const s = createNoteService({
      ...fixtureStores(fixtureNotes()),
      clock,
      busy: () => (calls++ === 0 ? false : busy),
      busyWaitMs: 30,
    });
    let loaded = false;
    const loading = s.load().then(() => {
      loaded = true;
    });
    await until('the host asked about several times', () => calls > 8 || undefined);
    expect(s.status().state).toBe('ready');
    expect(loaded).toBe(false);
    busy = false;
    await loading;
    expect(loaded).toBe(true);
  });

  it('after a cold load, leaves the link map for a quiet spell far longer than the warm check waits', async () => {
    // Busy, with the warm check's wait at 30 ms: a cold load's later work waits for quiet anyway
    // (SETTLE_WAIT_MS): a large vault's first list is built for seconds after ready.
    let busy = true;
    const s = createNoteService({
      ...fixtureStores(fixtureNotes()),
      clock,
      busy: () => busy,
      busyWaitMs: 30,
    });
    let loaded = false;
    const loading = s.load().then(() => {
      loaded = true;
    });
    await until('the index to be ready', () => s.status().state === 'ready');
    for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 15));
    expect(loaded).toBe(false);
    busy = false;
    await loading;
    expect(loaded).toBe(true);
  });

  it('settles once the host is quiet (the timed saves wait for it), at once when the host tells nothing', async () => {
    let busy = false;
    const s = createNoteService({
      ...fixtureStores(fixtureNotes()),
      clock,
      busy: () => busy,
      busyWaitMs: 30,
    });
    await s.load();
    let settled = false;
    busy = true;
    const settling = s.settle().then(() => {
      settled = true;
    });
    for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 15));
    expect(settled).toBe(false);
    busy = false;
    await settling;
    expect(settled).toBe(true);
    const silent = createNoteService({ ...fixtureStores(fixtureNotes()), clock });
    await silent.settle();
  });
});

describe("the snapshot's search table, taken in steps", () => {
  /** A snapshot of 600 notes and a journal (one note changed, one added after it), as a start reads it. */
  async function lazySearch(): Promise<LazySearch> {
    const notes = fixtureNotes(600);
    const state = memoryStateStore();
    const s = createNoteService({ ...fixtureStores(notes), state, clock });
    await s.load();
    await s.saveCache();
    await s.update('note 6.md', { content: 'changed after the snapshot quasar' });
    await s.create('area 1/later.md', 'added after the snapshot quasar');
    await s.saveCache();
    if (!canHoldBinary(state)) throw new Error('the memory state store reads byte ranges');
    const size = await state.byteSize(SNAPSHOT_KEY);
    const cache = await readBinaryCache(state, size ?? 0, 'index-journal.log');
    const search = cache.search as LazySearch;
    expect(search.journal?.length).toBeGreaterThan(0);
    return search;
  }
  const ranked = async (ix: ReturnType<typeof createSearchIndex>, q: string) => {
    await ix.ready();
    return ix.query(q, 1000).map((h) => [h.path, h.score]);
  };

  it('restoreSteps yields every 256 notes and ends where a load at once does, journal included', async () => {
    const search = await lazySearch();
    const atOnce = createSearchIndex(search);
    const stepped = createSearchIndex();
    let steps = 0;
    for (const _ of stepped.restoreSteps(search)) steps++;
    expect(steps).toBe(Math.ceil(search.docs.length / 256));
    expect(stepped.size).toBe(atOnce.size);
    expect(stepped.has('area 1/later.md')).toBe(true);
    for (const q of ['quasar', 'comet3 nebula', 'note 17', 'über'])
      expect(await ranked(stepped, q), q).toEqual(await ranked(atOnce, q));
    expect((await ranked(stepped, 'quasar')).map(([p]) => p).sort()).toEqual([
      'area 1/later.md',
      'note 6.md',
    ]);
    // Only on an empty index: a second restore would count every note twice.
    expect(() => stepped.restoreSteps(search).next()).toThrow(/not empty/);
  });

  it('indexFromCache yields to the event loop around the steps; a JSON search is taken at once', async () => {
    const search = await lazySearch();
    let pauses = 0;
    const pause = () => {
      pauses++;
      return new Promise<void>((r) => setTimeout(r, 0));
    };
    const index = await indexFromCache(search, pause);
    expect(pauses).toBeGreaterThanOrEqual(2);
    expect(await ranked(index.search, 'quasar comet3')).toEqual(
      await ranked(createSearchIndex(search), 'quasar comet3'),
    );
    pauses = 0;
    const json = createSearchIndex();
    json.put({ path: 'a.md', title: 'a', text: 'quasar', tags: '' });
    const fromJson = await indexFromCache(json.serialize(), pause);
    expect(pauses).toBe(0);
    expect(fromJson.search.has('a.md')).toBe(true);
  });
});
