/**
 * The trusted warm start (issue 33, core/notes/warm-start.ts): a binary snapshot that holds the
 * vault's folders is served before the vault is walked; the walk and the check follow. A note
 * changed while the server was down reads right at once, shows in the list as soon as the check
 * reaches it, and a write made meanwhile is never undone.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { sha256Hex } from '../../../core/crypto.ts';
import type { NoteEvent } from '../../../core/notes/context.ts';
import { createSearchIndex, type LazySearch } from '../../../core/notes/search.ts';
import { createNoteService, type NoteService } from '../../../core/notes/service.ts';
import { FOLDERS_SECTION, readSnapshotIndex } from '../../../core/notes/snapshot.ts';
import { canHoldBinary, readBinaryCache, SNAPSHOT_KEY } from '../../../core/notes/snapshot-cache.ts';
import { indexFromCache } from '../../../core/notes/warm-start.ts';
import type { NoteStore, StateStore } from '../../../core/ports.ts';
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

describe('the warm start from a snapshot with folders', () => {
  it('serves before the vault is walked; notes changed while down read right at once and list right once checked', async () => {
    const notes = fixtureNotes();
    const state = await withSnapshot(notes);
    const snapshotSum = await sha256Hex(notes['note 6.md']!);
    // While the server was down: one note changed, one read at once, one removed, one added.
    const down: Record<string, string> = {
      ...notes,
      'note 6.md': 'changed while down [[note 9]]',
      'note 3.md': 'read first',
    };
    delete down['note 0.md'];
    down['area 2/added.md'] = 'added while down [[note 6]]';
    const stores = fixtureStores(down);
    const g = gated(stores.store);
    const s = createNoteService({ ...stores, store: g.store, state, clock });
    const events: NoteEvent[] = [];
    s.subscribe((e) => events.push(e));
    const loading = s.load();
    await until('the index to be ready', () => s.status().state === 'ready');
    await until('the walk to start', () => g.asked() > 0);
    // Served from the snapshot while the walk waits: the list is the snapshot's picture...
    expect(checksumIn(s, 'note 6.md')).toBe(snapshotSum);
    expect(checksumIn(s, 'area 2/added.md')).toBeUndefined();
    // ...but a read always checks the file.
    expect((await s.get('note 3.md')).content).toBe('read first');
    await expect(s.get('note 0.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    g.open();
    await loading;
    expect(checksumIn(s, 'note 6.md')).toBe(await sha256Hex('changed while down [[note 9]]'));
    expect(checksumIn(s, 'area 2/added.md')).toBe(await sha256Hex('added while down [[note 6]]'));
    const cold = createNoteService({ ...fixtureStores(down), clock });
    await cold.load();
    expect(picture(s)).toBe(picture(cold));
    for (const q of ['changed while down', 'added', 'comet3']) {
      const found = async (x: NoteService) => (await x.search(q, 100)).map((h) => h.path).sort();
      expect(await found(s), q).toEqual(await found(cold));
    }
    // Each difference the check found is told as an outside change.
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'updated', path: 'note 6.md', external: true },
        { type: 'created', path: 'area 2/added.md', external: true },
      ]),
    );
  });

  it('starts the check when the host answers no request (busy), or once the wait runs out', async () => {
    const notes = fixtureNotes();
    const state = await withSnapshot(notes);
    const down = { ...notes, 'note 6.md': 'changed while down' };
    // Busy until told otherwise, with a wait far longer than the test: the check waits for quiet.
    let busy = true;
    const stores = fixtureStores(down);
    const g = gated(stores.store);
    g.open();
    const s = createNoteService({
      ...stores,
      store: g.store,
      state,
      clock,
      busy: () => busy,
      busyWaitMs: 600_000,
    });
    const loading = s.load();
    await until('the index to be ready', () => s.status().state === 'ready');
    // Ready and answering, the walk not started: the host is busy.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 15));
    expect(g.asked()).toBe(0);
    busy = false;
    await loading;
    expect(g.asked()).toBeGreaterThan(0);
    expect(checksumIn(s, 'note 6.md')).toBe(await sha256Hex('changed while down'));

    // Busy all along: the check starts once the wait ran out.
    const always = createNoteService({
      ...fixtureStores(down),
      state,
      clock,
      busy: () => true,
      busyWaitMs: 30,
    });
    await always.load();
    expect(checksumIn(always, 'note 6.md')).toBe(await sha256Hex('changed while down'));
  });

  it('waits for a quiet spell, not one idle moment between two requests', async () => {
    const notes = fixtureNotes();
    const state = await withSnapshot(notes);
    const stores = fixtureStores({ ...notes, 'note 6.md': 'changed while down' });
    const g = gated(stores.store);
    g.open();
    // Idle at the first look only (a client between two polls), then busy until told otherwise.
    let calls = 0;
    let busy = true;
    const s = createNoteService({
      ...stores,
      store: g.store,
      state,
      clock,
      busy: () => (calls++ === 0 ? false : busy),
      busyWaitMs: 600_000,
    });
    const loading = s.load();
    await until('the host asked about several times', () => calls > 8 || undefined);
    expect(s.status().state).toBe('ready');
    expect(g.asked()).toBe(0);
    busy = false;
    await loading;
    expect(g.asked()).toBeGreaterThan(0);
  });

  it('never undoes a write made while the check runs', async () => {
    const notes = fixtureNotes();
    const state = await withSnapshot(notes);
    const down = { ...notes, 'note 5.md': 'theirs, while down' };
    const stores = fixtureStores(down);
    const g = gated(stores.store);
    const s = createNoteService({ ...stores, store: g.store, state, clock });
    const loading = s.load();
    // The walk has listed the vault (note 5 as changed while down) when the write comes in.
    await until('the walk to list the vault', () => g.asked() > 0);
    await until('the index to be ready', () => s.status().state === 'ready');
    await s.update('note 5.md', { content: 'mine, written during the check' });
    g.open();
    await loading;
    expect((await s.get('note 5.md')).content).toBe('mine, written during the check');
    expect(checksumIn(s, 'note 5.md')).toBe(await sha256Hex('mine, written during the check'));
  });

  it('serves a snapshot first only to the vault it was taken of', async () => {
    const notes = fixtureNotes();
    const named = (vault: string) => {
      const stores = fixtureStores(notes);
      return { ...stores, files: { ...stores.files, vault } };
    };
    const state = memoryStateStore();
    const first = createNoteService({ ...named('/vaults/a'), state, clock });
    await first.load();
    await first.saveCache();
    for (const [vault, servedFirst] of [
      ['/vaults/b', false],
      ['/vaults/a', true],
    ] as const) {
      const stores = named(vault);
      const g = gated(stores.store);
      const s = createNoteService({ ...stores, store: g.store, state, clock });
      const loading = s.load();
      await until('the walk to start', () => g.asked() > 0);
      expect(s.status().state === 'ready', vault).toBe(servedFirst);
      g.open();
      await loading;
      expect(s.list().items).toHaveLength(Object.keys(notes).length);
    }
  });

  it('checks a snapshot written without folders before serving it, and replaces it by one with them', async () => {
    const notes = fixtureNotes();
    const state = await withSnapshot(notes);
    // This code writes the section...
    const size = (await state.byteSize!(SNAPSHOT_KEY))!;
    const index = await readSnapshotIndex(size, (o, l) => state.getRange!(SNAPSHOT_KEY, o, l));
    expect(index.sections.has(FOLDERS_SECTION)).toBe(true);
    // ...the committed snapshot of layout 1 (written before it) has none.
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
    // Not served before the walk: the snapshot does not know the vault's empty folders.
    expect(s.status().state).not.toBe('ready');
    g.open();
    await loading;
    expect(picture(s)).toBe(picture(older));
    await s.saveCache();
    const now = (await old.byteSize!(SNAPSHOT_KEY))!;
    const again = await readSnapshotIndex(now, (o, l) => old.getRange!(SNAPSHOT_KEY, o, l));
    expect(again.sections.has(FOLDERS_SECTION)).toBe(true);
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
