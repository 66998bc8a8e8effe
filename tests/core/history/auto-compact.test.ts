/**
 * The background compaction by size: past the threshold of bytes stored uncompressed,
 * the store compacts on its own, beside the writes, and every version reads back unchanged (also
 * after a reload from disk).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsHistoryStore } from '../../../adapters/store/fs-history-store.ts';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { createHistory } from '../../../core/history/history.ts';
import { tempDir } from '../../helpers/app.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

const clock = { now: () => Date.now() };
const text = (i: number, e: number) => `# Note ${i}\n\n${`word${i} `.repeat(120)}\nedit ${e}\n`;
const enc = new TextEncoder();

describe('background compaction by size', () => {
  it('compacts on its own past the threshold, writes go on, every version is unchanged', async () => {
    const tmp = await tempDir('quire-autocompact-');
    try {
      const dir = join(tmp.dir, 'history');
      const store = fsHistoryStore({ dir, fsync: false });
      const h = createHistory({
        store,
        clock,
        logger: silentLogger,
        autoCompact: { minBytes: 64 * 1024, fraction: 0.25 },
      });
      await h.load();
      const written = new Map<string, string[]>();
      const write = async (i: number, e: number) => {
        const t = text(i, e);
        await h.record(`n/${i}.md`, enc.encode(t), 'test', 'update');
        written.set(`n/${i}.md`, [...(written.get(`n/${i}.md`) ?? []), t]);
      };
      // ~40 KiB stored as is: under the 64 KiB threshold, nothing happens.
      for (let e = 0; e < 40; e++) await write(e % 10, e);
      const packs = async () => (await readdir(dir)).filter((f) => f.startsWith('pack-'));
      expect(await packs()).toEqual(['pack-0']);
      expect(h.compacting()).toBeNull();
      // Past it, it starts on its own (no prune, no timer); writes go on while it runs.
      let e = 40;
      await until(
        'the condition',
        async () => {
          await write(e % 10, e);
          e++;
          return (await packs()).some((p) => p !== 'pack-0') && h.compacting() === null;
        },
        20_000,
      );
      const before = (await store.size()) as number;
      expect(before).toBeLessThan(100 * 1024);

      const check = async (hist: typeof h) => {
        for (const [path, texts] of written) {
          const list = hist.list(path);
          expect(list.length).toBe(texts.length);
          const got = await Promise.all(
            list.map(async (v) => new TextDecoder().decode((await hist.get(path, v.id)).bytes)),
          );
          expect(got.reverse()).toEqual(texts);
        }
      };
      await check(h);
      await store.close();
      // Read back from disk: the same.
      const again = createHistory({
        store: fsHistoryStore({ dir, fsync: false }),
        clock,
        autoCompact: false,
      });
      await again.load();
      await check(again);
    } finally {
      await tmp.cleanup();
    }
  }, 60_000);

  it('autoCompact: false leaves the store as written until a prune', async () => {
    const tmp = await tempDir('quire-autocompact-');
    try {
      const dir = join(tmp.dir, 'history');
      const store = fsHistoryStore({ dir, fsync: false });
      const h = createHistory({ store, clock, autoCompact: false });
      await h.load();
      for (let e = 0; e < 100; e++)
        await h.record(`n/${e % 10}.md`, enc.encode(text(e % 10, e)), 't', 'update');
      expect(h.compacting()).toBeNull();
      expect(await readdir(dir)).toContain('pack-0');
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it('writes do not wait for the deflating: a record answers while the compaction reads', async () => {
    const inner = memoryHistoryStore();
    let gate: Promise<void> | null = null;
    let open = () => {};
    const store = {
      ...inner,
      readBlob: async (o: number, l: number) => {
        if (gate) await gate;
        return inner.readBlob(o, l);
      },
    };
    const h = createHistory({ store, clock, autoCompact: { minBytes: 8 * 1024, fraction: 0 } });
    await h.load();
    gate = new Promise((r) => {
      open = r;
    });
    let e = 0;
    while (h.compacting() === null)
      await h.record(`n/${e % 5}.md`, enc.encode(text(e % 5, e++)), 't', 'update');
    // The compaction is held in its reading; a write (and a durable one) still answers.
    await h.record('late.md', enc.encode('late'), 't', 'create');
    await h.trash('gone.md', 'note', enc.encode('gone'), 't');
    expect(h.compacting()).not.toBeNull();
    open();
    await h.compacting();
    expect(new TextDecoder().decode((await h.get('late.md', h.list('late.md')[0]!.id)).bytes)).toBe('late');
    expect(h.listTrash().map((t) => t.path)).toEqual(['gone.md']);
    const last = h.list(`n/${(e - 1) % 5}.md`)[0]!;
    expect(new TextDecoder().decode((await h.get(`n/${(e - 1) % 5}.md`, last.id)).bytes)).toBe(
      text((e - 1) % 5, e - 1),
    );
    // Reloaded from the compacted store: the same.
    const again = createHistory({ store: inner, clock, autoCompact: false });
    await again.load();
    expect(again.list('late.md').length).toBe(1);
    expect(again.listTrash().length).toBe(1);
  });
});
