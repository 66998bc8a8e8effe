/**
 * The gzip'd list kept across restarts (issue 33): a warm start answers from the persisted
 * chunks, byte for byte what a fresh build gives; a note changed while the server was down is
 * never served stale; a damaged or truncated file is ignored and the list is built again.
 */
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../adapters/http/app.ts';
import { createCompressedList } from '../../../adapters/http/compressed-list.ts';
import {
  decodePersistedList,
  LIST_KEY,
  type ListStore,
  stateListStore,
} from '../../../adapters/http/persisted-list.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import type { NoteSummary } from '../../../core/notes/note-index.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import type { StateStore } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

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

async function firstRun(items: NoteSummary[], state: StateStore) {
  const store = stateListStore(state)!;
  const list = createCompressedList({ store });
  list.update(1, items);
  const body = await list.gzipAsync(zlib);
  await until('the list saved', () => list.work().saved > 0);
  return { list, body, store };
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
    return { notes, get };
  }

  it('serves the persisted list after a restart, and the changed list when the vault changed while down', async () => {
    const state = memoryStateStore();
    const first = await start(vault(1200), state);
    const gz1 = await first.get({ 'accept-encoding': 'gzip' });
    await until('the list kept', async () => ((await state.byteSize!(LIST_KEY)) ?? 0) > 0);

    const second = await start(vault(1200), state);
    const gz2 = await second.get({ 'accept-encoding': 'gzip' });
    expect(Buffer.from(gz2).equals(Buffer.from(gz1))).toBe(true);

    const third = await start(vault(1200, ' edited while down'), state);
    const gz3 = await third.get({ 'accept-encoding': 'gzip' });
    const plain = await third.get();
    expect(text(zlib.gunzipSync(gz3))).toBe(text(plain));
    expect(text(plain)).toContain('Title 321 edited while down');
    expect(text(plain)).toBe(JSON.stringify({ success: true, data: third.notes.list().items }));
  });
});
