import { describe, expect, it } from 'vitest';
import { fsHistoryStore } from '../../../adapters/store/fs-history-store.ts';
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { createCore } from '../../../core/create-core.ts';
import { createFileService } from '../../../core/files/service.ts';
import { unifiedDiff } from '../../../core/history/diff.ts';
import { createHistory } from '../../../core/history/history.ts';
import type { HistoryStore } from '../../../core/ports.ts';
import { tempDir } from '../../helpers/app.ts';
import { silentLogger } from '../../helpers/logger.ts';

const DAY = 86_400_000;
const enc = new TextEncoder();
const dec = new TextDecoder();

function clockAt(start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t++ };
  return c;
}

async function coreWith(history: HistoryStore, files: Record<string, string> = {}, clock = clockAt()) {
  const store = memoryNoteStore({ files });
  const core = createCore({ store, clock, logger: silentLogger, history });
  await core.load();
  return { core, store, clock, h: core.history! };
}

describe('the history core', () => {
  it('prunes by age and by bytes, and the trash by its retention; compaction keeps the rest readable', async () => {
    const mem = memoryHistoryStore();
    const { core, clock, h } = await coreWith(mem, { 'a.md': 'a0' });
    await core.notes.update('a.md', { content: 'old '.repeat(50) });
    clock.t += 100 * DAY;
    await core.notes.update('a.md', { content: 'new '.repeat(60) });
    await core.notes.create('b.md', 'b');
    await core.notes.remove('b.md');
    expect(h.list('a.md').map((v) => v.change)).toEqual(['update', 'update', 'baseline']);
    const limits = { maxAgeMs: 90 * DAY, maxBytes: 1024 ** 3, trashMs: 30 * DAY };
    const before = await mem.size();
    expect(await h.prune(limits)).toEqual({ versions: 2, trash: 0 });
    expect(h.list('a.md').map((v) => v.change)).toEqual(['update']);
    expect(await mem.size()).toBeLessThan(before);
    const latest = h.list('a.md')[0]!;
    expect(dec.decode((await h.get('a.md', latest.id)).bytes)).toBe('new '.repeat(60));
    // By bytes: a tiny budget drops the oldest versions first.
    await core.notes.update('a.md', { content: 'third' });
    expect((await h.prune({ ...limits, maxBytes: 10 })).versions).toBeGreaterThan(0);
    expect(h.list('a.md').at(-1)?.checksum).not.toBe(latest.checksum);
    // Trash retention.
    expect(h.listTrash().map((t) => t.path)).toEqual(['b.md']);
    clock.t += 31 * DAY;
    expect((await h.prune(limits)).trash).toBe(1);
    expect(h.listTrash()).toEqual([]);
    // A fresh history over the same store reads the compacted journal.
    const again = createHistory({ store: mem, clock });
    await again.load();
    expect(again.list('a.md')).toEqual(h.list('a.md'));
  });

  it('outside edits and deletes the watcher sees are kept, by "outside"', async () => {
    const { core, store, h } = await coreWith(memoryHistoryStore(), { 'o.md': 'one' });
    await store.write('o.md', enc.encode('two'));
    await core.notes.applyExternalChanges([{ path: 'o.md', kind: 'changed' }]);
    expect(h.list('o.md').map((v) => `${v.change}:${v.by}`)).toEqual(['outside:outside']);
    await store.remove('o.md');
    await core.notes.applyExternalChanges([{ path: 'o.md', kind: 'removed' }]);
    const [item] = h.listTrash();
    expect(item).toMatchObject({ path: 'o.md', by: 'outside', kind: 'note' });
    expect(dec.decode((await h.trashed(item!.id)).bytes)).toBe('two');
  });

  it('attachments: versions up to the size limit, trash on delete, history follows a move', async () => {
    const clock = clockAt();
    const history = createHistory({ store: memoryHistoryStore(), clock, maxFileBytes: 8 });
    await history.load();
    const files = createFileService({ store: memoryFileStore({}), clock, history });
    const body = (b: Uint8Array) => new Blob([b as Uint8Array<ArrayBuffer>]).stream();
    await files.put('p.png', body(new Uint8Array([1, 2, 3])), { by: 'key:k' });
    await files.put('p.png', body(new Uint8Array([4, 5, 6])), { by: 'key:k' });
    await files.put('big.bin', body(new Uint8Array(100)), { by: 'key:k' });
    expect(history.list('p.png').map((v) => `${v.change}:${v.by}`)).toEqual(['update:key:k', 'create:key:k']);
    expect(history.list('big.bin')).toEqual([]);
    await files.move('p.png', 'q.png');
    expect(history.list('q.png')).toHaveLength(2);
    await files.remove('q.png', undefined, 'key:k');
    const [item] = history.listTrash();
    expect(item).toMatchObject({ path: 'q.png', kind: 'file', by: 'key:k' });
    await files.put('q.png', body(new Uint8Array([9])), {});
    expect(await files.restore('q.png', (await history.trashed(item!.id)).bytes)).toBe('q (restored).png');
  });

  it('the fs store survives a restart, drops a torn journal line, and compacts with one rename', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const clock = clockAt();
      const s1 = fsHistoryStore({ dir, fsync: false });
      const { core, h } = await coreWith(s1, { 'f.md': 'x'.repeat(500) }, clock);
      await core.notes.update('f.md', { content: 'y'.repeat(500) });
      // The update's version line is written off its path (gathered); let it reach the journal.
      await core.notes.drain();
      await s1.appendJournal('{"t":"v","id":"torn'); // a crash mid-append
      await s1.close();
      const s2 = fsHistoryStore({ dir, fsync: false });
      const again = createHistory({ store: s2, clock });
      await again.load();
      expect(again.list('f.md').map((v) => v.checksum)).toEqual(h.list('f.md').map((v) => v.checksum));
      const oldest = again.list('f.md').at(-1)!;
      expect(dec.decode((await again.get('f.md', oldest.id)).bytes)).toBe('x'.repeat(500));
      // The next record after the torn line is read back too.
      await again.record('f.md', enc.encode('after the tear'), 'api', 'update');
      await s2.close();
      const s2b = fsHistoryStore({ dir, fsync: false });
      const reread = createHistory({ store: s2b, clock });
      await reread.load();
      expect(reread.list('f.md')[0]?.size).toBe('after the tear'.length);
      // Compressed: 1,000 bytes of versions take far less.
      // Stored as is on the write's path; a compaction deflates: 1,000+ bytes of versions take far less.
      expect(await s2b.size()).toBeGreaterThan(1000);
      await reread.prune({ maxAgeMs: 1e12, maxBytes: 1e12, trashMs: 1e12, compressAfterBytes: 0 });
      expect(await s2b.size()).toBeLessThan(800);
      expect(dec.decode((await reread.get('f.md', oldest.id)).bytes)).toBe('x'.repeat(500));
      clock.t += 91 * DAY;
      await reread.record('f.md', enc.encode('z'), 'api', 'update');
      await reread.prune({ maxAgeMs: 90 * DAY, maxBytes: 1e9, trashMs: 30 * DAY });
      await s2b.close();
      const s3 = fsHistoryStore({ dir, fsync: false });
      const third = createHistory({ store: s3, clock });
      await third.load();
      expect(third.list('f.md').map((v) => v.size)).toEqual([1]);
      await s3.close();
    } finally {
      await cleanup();
    }
  });

  it('a unified diff with context and hunks', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const b = a.replace('line 3', 'line three').replace('line 15', 'line fifteen');
    const d = unifiedDiff(a, b, 'a', 'b');
    expect(d.split('\n').filter((l) => l.startsWith('@@'))).toEqual(['@@ -1,7 +1,7 @@', '@@ -13,7 +13,7 @@']);
    expect(d).toContain('-line 3\n+line three');
    expect(unifiedDiff(a, a, 'a', 'b')).toBe('');
  });
});
