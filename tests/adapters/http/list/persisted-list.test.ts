/**
 * The gzip'd list kept across restarts: a warm start answers from the persisted
 * chunks, byte for byte what a fresh build gives; a note changed while the server was down is
 * never served stale; a damaged or truncated file is ignored and the list is built again.
 */
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../../adapters/http/app.ts';
import { createCompressedList } from '../../../../adapters/http/list/compressed-list.ts';
import {
  decodePersistedList,
  LIST_KEY,
  type ListStore,
  stateListStore,
} from '../../../../adapters/http/list/persisted-list.ts';
import { memoryNoteStore } from '../../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../../adapters/store/memory-state-store.ts';
import type { NoteSummary } from '../../../../core/notes/note-index.ts';
import { createNoteService } from '../../../../core/notes/service.ts';
import type { NoteStore, StateStore } from '../../../../core/ports.ts';
import { silentLogger } from '../../../helpers/logger.ts';
import { until } from '../../../helpers/wait.ts';

const summary = (i: number, extra = ''): NoteSummary => ({
  path: `folder ${i % 9}/note ${String(i).padStart(5, '0')}.md`,
  title: `Note ${i}${extra}`,
  tags: [`t${i % 5}`],
  links: [
    {
      target: `note ${i + 1}`,
      path: `folder ${(i + 1) % 9}/note ${String(i + 1).padStart(5, '0')}.md`,
      kind: 'wikilink',
      type: 'note',
    },
  ],
  backlinks: [],
  wordCount: i,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  checksum: `${extra ? 'b' : 'a'}${String(i).padStart(63, '0')}`,
});
const sorted = (xs: NoteSummary[]) =>
  [...xs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
/** The same summaries as new objects, as a restarted index hands them out. */
const copies = (xs: readonly NoteSummary[]) => xs.map((s) => structuredClone(s));
const text = (b: Uint8Array) => new TextDecoder().decode(b);

async function firstRun(items: NoteSummary[], state: StateStore, key?: string) {
  const store = stateListStore(state)!;
  const list = createCompressedList({ store, ...(key ? { key: async () => key } : {}) });
  list.update(1, items);
  const body = await list.gzipAsync(zlib);
  await until('the list saved', () => list.work().saved > 0);
  return { list, body, store };
}

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
const fileOf = async (state: StateStore): Promise<Uint8Array> =>
  (await state.getRange!(LIST_KEY, 0, (await state.byteSize!(LIST_KEY))!))!;
/**
 * The same list in the layout of a version before the key (never released): no key in the header
 * (16 bytes, not 48), version 1, and the CRC-32 of everything before it recomputed.
 */
function toVersion1(v2: Uint8Array): Uint8Array {
  const body = new Uint8Array(v2.length - 4 - 32);
  body.set(v2.subarray(0, 16));
  body.set(v2.subarray(48, v2.length - 4), 16);
  new DataView(body.buffer).setUint32(4, 1, true);
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  new DataView(out.buffer).setUint32(body.length, zlib.crc32(body), true);
  return out;
}

describe('the persisted list', () => {
  it('answers a warm start from the persisted chunks, byte for byte a fresh build, without deflating them', async () => {
    const items = sorted(Array.from({ length: 3000 }, (_, i) => summary(i)));
    const state = memoryStateStore();
    const { body } = await firstRun(items, state);
    expect(await state.byteSize!(LIST_KEY)).toBeGreaterThan(0);

    const warm = createCompressedList({ store: stateListStore(state) });
    warm.update(7, copies(items));
    const again = await warm.gzipAsync(zlib);
    expect(warm.work().restored).toBe(warm.chunkCount());
    // Only the head and the tail of the answer (two tiny parts) are deflated.
    expect(warm.work().deflated).toBe(2);
    expect(Buffer.from(again).equals(Buffer.from(body))).toBe(true);
    const fresh = createCompressedList();
    fresh.update(1, items);
    expect(Buffer.from(again).equals(Buffer.from(fresh.gzip(zlib)))).toBe(true);
  });

  it('never serves a note changed while the server was down: its chunk (and the next) are deflated again', async () => {
    const items = sorted(Array.from({ length: 3000 }, (_, i) => summary(i)));
    const state = memoryStateStore();
    await firstRun(items, state);
    // Changed while down: one note's checksum and title, one note gone, one new.
    const changed = sorted([
      ...copies(items)
        .map((s) => (s.path === items[1500]!.path ? summary(Number(s.wordCount), ' changed') : s))
        .filter((s) => s.path !== items[2200]!.path),
      summary(99_999),
    ]);
    const warm = createCompressedList({ store: stateListStore(state) });
    warm.update(2, changed);
    const gz = await warm.gzipAsync(zlib);
    const expected = JSON.stringify({ success: true, data: changed });
    expect(text(zlib.gunzipSync(gz))).toBe(expected);
    expect(text(zlib.gunzipSync(gz))).toContain('changed');
    const { restored } = warm.work();
    expect(restored).toBeGreaterThan(warm.chunkCount() - 8);
    expect(restored).toBeLessThan(warm.chunkCount());
    // Once polished, the same bytes as a fresh build of the changed list.
    await warm.polishNow();
    const fresh = createCompressedList();
    fresh.update(2, changed);
    expect(Buffer.from(await warm.gzipAsync(zlib)).equals(Buffer.from(fresh.gzip(zlib)))).toBe(true);
  });

  it('answers a warm start whole when the list key matches: no summary built, nothing serialized', async () => {
    const items = sorted(Array.from({ length: 3000 }, (_, i) => summary(i)));
    const state = memoryStateStore();
    const { body } = await firstRun(items, state, KEY_A);
    expect(decodePersistedList(await fileOf(state))?.key).toBe(KEY_A);

    const warm = createCompressedList({
      store: stateListStore(state),
      key: async (g) => (g === 7 ? KEY_A : null),
    });
    let built = 0;
    // The index hands out the same summary objects until a note changes.
    const held = copies(items);
    warm.update(7, () => {
      built++;
      return held;
    });
    const again = await warm.gzipAsync(zlib);
    expect(Buffer.from(again).equals(Buffer.from(body))).toBe(true);
    expect(built).toBe(0);
    expect(warm.work()).toMatchObject({ whole: 1, serialized: 0, summaries: 0, deflated: 2 });
    expect(text(await warm.identityAsync(zlib))).toBe(JSON.stringify({ success: true, data: items }));
    // Brotli waits for the chunks (gzip answers meanwhile).
    expect(warm.brotli(zlib)).toBeNull();

    // Later the chunks are made and take their parts from the file: nothing deflated.
    await warm.materializeNow(zlib);
    expect(built).toBe(1);
    expect(warm.chunkCount()).toBeGreaterThan(50);
    expect(warm.work().restored).toBe(warm.chunkCount());
    expect(warm.work().deflated).toBe(2);
    expect(Buffer.from(await warm.gzipAsync(zlib)).equals(Buffer.from(body))).toBe(true);

    // A write then re-encodes only its chunk (and the next): the same bytes as a fresh build.
    const changed = held.map((x) => (x.path === items[1500]!.path ? summary(1500, ' changed') : x));
    warm.update(8, changed);
    const gz = await warm.gzipAsync(zlib);
    expect(warm.work().deflated).toBeLessThanOrEqual(4);
    expect(text(zlib.gunzipSync(gz))).toBe(JSON.stringify({ success: true, data: changed }));
    await warm.polishNow();
    const fresh = createCompressedList();
    fresh.update(8, changed);
    expect(Buffer.from(await warm.gzipAsync(zlib)).equals(Buffer.from(fresh.gzip(zlib)))).toBe(true);
  });

  it('builds from the items when the key differs (or a write came first), taking the kept chunks by their bytes', async () => {
    const items = sorted(Array.from({ length: 3000 }, (_, i) => summary(i)));
    const state = memoryStateStore();
    await firstRun(items, state, KEY_A);
    const changed = copies(items).map((x) => (x.path === items[700]!.path ? summary(700, ' changed') : x));
    const warm = createCompressedList({ store: stateListStore(state), key: async () => KEY_B });
    let built = 0;
    warm.update(3, () => {
      built++;
      return changed;
    });
    const gz = await warm.gzipAsync(zlib);
    expect(built).toBe(1);
    expect(warm.work().whole).toBe(0);
    expect(text(zlib.gunzipSync(gz))).toBe(JSON.stringify({ success: true, data: changed }));
    expect(warm.work().restored).toBeGreaterThan(warm.chunkCount() - 8);
    expect(warm.work().restored).toBeLessThan(warm.chunkCount());
  });

  it('refuses a file of another version whole: the list is built again and saved as this one', async () => {
    const items = sorted(Array.from({ length: 2000 }, (_, i) => summary(i)));
    const state = memoryStateStore();
    const { body } = await firstRun(items, state, KEY_A);
    const v1 = toVersion1(await fileOf(state));
    expect(decodePersistedList(v1)).toBeNull();
    const old = memoryStateStore();
    await old.putBytes!(
      LIST_KEY,
      (async function* () {
        yield v1;
      })(),
    );
    const warm = createCompressedList({ store: stateListStore(old), key: async () => KEY_A });
    warm.update(1, () => copies(items));
    const gz = await warm.gzipAsync(zlib);
    expect(warm.work().whole).toBe(0);
    expect(warm.work().restored).toBe(0);
    expect(Buffer.from(gz).equals(Buffer.from(body))).toBe(true);
    await until('saved with the key', async () => decodePersistedList(await fileOf(old))?.key === KEY_A);
  });

  it('ignores a damaged or truncated file and builds the list again', async () => {
    const items = sorted(Array.from({ length: 1500 }, (_, i) => summary(i)));
    const state = memoryStateStore();
    const { body } = await firstRun(items, state);
    const size = (await state.byteSize!(LIST_KEY))!;
    const good = (await state.getRange!(LIST_KEY, 0, size))!;
    expect(decodePersistedList(good)).not.toBeNull();
    const damaged = good.slice();
    damaged[Math.floor(size / 2)]! ^= 0x40;
    const bad: Uint8Array[] = [damaged, good.slice(0, size - 100), good.slice(0, 10), new Uint8Array(0)];
    for (const bytes of bad) {
      expect(decodePersistedList(bytes)).toBeNull();
      const s = memoryStateStore();
      await s.putBytes!(
        LIST_KEY,
        (async function* () {
          yield bytes;
        })(),
      );
      const warm = createCompressedList({ store: stateListStore(s) });
      warm.update(1, copies(items));
      const gz = await warm.gzipAsync(zlib);
      expect(warm.work().restored).toBe(0);
      expect(Buffer.from(gz).equals(Buffer.from(body))).toBe(true);
    }
  });

  it('answers even when the store fails to read or write', async () => {
    const items = sorted(Array.from({ length: 500 }, (_, i) => summary(i)));
    const errors: unknown[] = [];
    const broken: ListStore = {
      load: () => Promise.reject(new Error('read failed')),
      save: () => Promise.reject(new Error('disk full')),
      settled: () => Promise.resolve(),
    };
    const safe: ListStore = { ...broken, load: () => broken.load().catch(() => null) };
    const list = createCompressedList({ store: safe, onError: (e) => errors.push(e) });
    list.update(1, items);
    const gz = await list.gzipAsync(zlib);
    expect(text(zlib.gunzipSync(gz))).toBe(JSON.stringify({ success: true, data: items }));
    await until('the failed save reported', () => errors.length > 0);
  });
});

describe('GET /api/v1/notes across a restart', () => {
  const clock = { now: () => 1_764_000_000_000 };
  function vault(n: number, change = ''): Record<string, string> {
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) {
      files[`f${i % 4}/note-${String(i).padStart(4, '0')}.md`] =
        `# Title ${i}${i === 321 ? change : ''}\n\nBody ${i} links [[note-${String((i * 7 + 1) % n).padStart(4, '0')}]] #t${i % 5}.\n`;
    }
    return files;
  }
  async function start(files: Record<string, string>, state: StateStore) {
    const notes = createNoteService({
      store: memoryNoteStore({ files, clock }),
      clock,
      state: memoryStateStore(),
      logger: silentLogger,
    });
    await notes.load();
    const app = createApp({
      notes,
      version: '0.0.0-test',
      clock,
      logger: silentLogger,
      listStore: stateListStore(state),
    });
    const get = async (headers: Record<string, string> = {}) => {
      const res = await app.request('http://127.0.0.1:3000/api/v1/notes', { headers });
      return new Uint8Array(await res.arrayBuffer());
    };
    return { notes, get, app };
  }

  it('serves the persisted list after a restart, and the changed list when the vault changed while down', async () => {
    const state = memoryStateStore();
    const first = await start(vault(1200), state);
    const gz1 = await first.get({ 'accept-encoding': 'gzip' });
    await until('the list kept', async () => ((await state.byteSize!(LIST_KEY)) ?? 0) > 0);

    const second = await start(vault(1200), state);
    const gz2 = await second.get({ 'accept-encoding': 'gzip' });
    expect(Buffer.from(gz2).equals(Buffer.from(gz1))).toBe(true);
    // Answered whole from the file (the same list key): not one summary was built for it.
    expect(second.notes.memory().summaries).toBe(0);
    // A write before the chunks were made: the next list is the new one, in full.
    const put = await second.app.request('http://127.0.0.1:3000/api/v1/notes/f1%2Fnote-0005.md', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: '# Rewritten after the restart\n' }),
    });
    expect(put.status).toBe(200);
    const after = text(zlib.gunzipSync(await second.get({ 'accept-encoding': 'gzip' })));
    expect(after).toContain('Rewritten after the restart');
    expect(after).toBe(JSON.stringify({ success: true, data: second.notes.list().items }));

    const third = await start(vault(1200, ' edited while down'), state);
    const gz3 = await third.get({ 'accept-encoding': 'gzip' });
    const plain = await third.get();
    expect(text(zlib.gunzipSync(gz3))).toBe(text(plain));
    expect(text(plain)).toContain('Title 321 edited while down');
    expect(text(plain)).toBe(JSON.stringify({ success: true, data: third.notes.list().items }));
  });
});

describe('GET /api/v1/notes before the index is ready, with a list kept from the last run', () => {
  const clock = { now: () => 1_764_000_000_000 };
  const files: Record<string, string> = {};
  for (let i = 0; i < 900; i++) {
    files[`f${i % 4}/note-${String(i).padStart(4, '0')}.md`] =
      `# Title ${i}\n\nBody ${i} links [[note-${String((i * 7 + 1) % 900).padStart(4, '0')}]] #t${i % 5}.\n`;
  }

  /** A state store whose snapshot body is read only once `open` is called: the index stays unbuilt. */
  function gated(state: StateStore) {
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    const gate = { store: state, open, asked: false };
    gate.store = {
      ...state,
      getRange: async (key, offset, length) => {
        if (key === 'index-snapshot.bin' && offset > 0) {
          gate.asked = true;
          await opened;
        }
        return state.getRange!(key, offset, length);
      },
    };
    return gate;
  }

  function serve(state: StateStore, listState: StateStore, store: NoteStore) {
    const notes = createNoteService({
      store,
      clock,
      state,
      logger: silentLogger,
    });
    const app = createApp({
      notes,
      version: '0.0.0-test',
      clock,
      logger: silentLogger,
      listStore: stateListStore(listState),
    });
    const get = (path = '/api/v1/notes', headers: Record<string, string> = { 'accept-encoding': 'gzip' }) =>
      app.request(`http://127.0.0.1:3000${path}`, { headers });
    return { notes, get };
  }

  /** A first run: its gzip list answered and kept, then the index saved (as a stop does). */
  async function firstRun(state: StateStore, store = memoryNoteStore({ files, clock })) {
    const run = serve(state, state, store);
    await run.notes.load();
    const gz = new Uint8Array(await (await run.get()).arrayBuffer());
    await until('the list kept', async () => ((await state.byteSize!(LIST_KEY)) ?? 0) > 0);
    await run.notes.saveCache();
    return { run, gz, store };
  }

  it('answers 503 with Retry-After in every shape until the index is the vault, then the vault', async () => {
    const state = memoryStateStore();
    const { store } = await firstRun(state);
    // Changed while the server was down: the kept list (and the snapshot) no longer is the vault.
    await store.write('f1/note-0001.md', new TextEncoder().encode('# Changed while down\n'));
    const gate = gated(state);
    const second = serve(gate.store, state, store);
    const loading = second.notes.load();
    await until('the snapshot asked for', () => gate.asked);
    for (const res of [
      await second.get(),
      await second.get('/api/v1/notes', {}),
      await second.get('/api/v1/notes?fields=path'),
      await second.get('/api/v1/notes?format=columns'),
      await second.get('/api/v1/tags'),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_READY');
    }
    gate.open();
    await loading;
    const ready = await second.get();
    expect(ready.status).toBe(200);
    const body = text(zlib.gunzipSync(new Uint8Array(await ready.arrayBuffer())));
    expect(body).toContain('Changed while down');
    expect(body).toBe(JSON.stringify({ success: true, data: second.notes.list().items }));
  });
});
