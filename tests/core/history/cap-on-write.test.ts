/**
 * HISTORY_MAX_BYTES holds at all times, not only after the hourly prune: a write that takes the
 * store past the cap prunes the oldest versions at once (security review, fourth round, finding 9:
 * the history grew 1.6 MiB/s while the vault held one note).
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsHistoryStore } from '../../../adapters/store/fs-history-store.ts';
import { createHistory } from '../../../core/history/history.ts';
import { tempDir } from '../../helpers/app.ts';
import { silentLogger } from '../../helpers/logger.ts';

const clock = { now: () => Date.now() };
const enc = new TextEncoder();
const DAY = 86_400_000;

describe('HISTORY_MAX_BYTES on write', () => {
  it('many versions of one note keep the store under the cap without an hourly prune', async () => {
    const tmp = await tempDir('quire-history-cap-');
    try {
      const store = fsHistoryStore({ dir: join(tmp.dir, 'history'), fsync: false });
      const cap = 256 * 1024;
      const h = createHistory({
        store,
        clock,
        logger: silentLogger,
        limits: { maxAgeMs: 90 * DAY, maxBytes: cap, trashMs: 30 * DAY },
      });
      await h.load();
      // Incompressible versions of about 6 KiB: 200 of them are 1.2 MiB, nearly five times the cap.
      const version = 6 * 1024;
      let last = '';
      for (let i = 0; i < 200; i++) {
        last = `# One note\n\n${randomBytes(version / 2).toString('hex')}\n`;
        await h.record('one.md', enc.encode(last), 'test', 'update', undefined, true);
        // Within one version (and its journal line) of the cap, after every write.
        expect(await store.size()).toBeLessThanOrEqual(cap + version + 1024);
      }
      await h.flush();
      await h.compacting();
      expect(await store.size()).toBeLessThanOrEqual(cap + version + 1024);
      // The newest versions are the ones kept, and they read back.
      const list = h.list('one.md');
      expect(list.length).toBeGreaterThan(10);
      expect(list.length).toBeLessThan(200);
      expect(new TextDecoder().decode((await h.get('one.md', list[0]!.id)).bytes)).toBe(last);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a trash larger than the cap (never pruned by bytes) does not make every write prune', async () => {
    const tmp = await tempDir('quire-history-cap-');
    try {
      const dir = join(tmp.dir, 'history');
      const store = fsHistoryStore({ dir, fsync: false });
      const cap = 256 * 1024;
      const h = createHistory({
        store,
        clock,
        logger: silentLogger,
        autoCompact: false,
        limits: { maxAgeMs: 90 * DAY, maxBytes: cap, trashMs: 30 * DAY },
      });
      await h.load();
      await h.trash('big.md', 'note', new Uint8Array(randomBytes(cap * 1.3)), 'test');
      // Each compaction writes a new pack: count them over 40 small writes.
      const generation = async () =>
        Math.max(...(await readdir(dir)).filter((f) => f.startsWith('pack-')).map((f) => Number(f.slice(5))));
      const first = await generation();
      for (let i = 0; i < 40; i++)
        await h.record('small.md', enc.encode(`v${i} ${randomBytes(256).toString('hex')}`), 'test', 'update');
      await h.flush();
      expect(await generation()).toBeLessThanOrEqual(first + 2);
      expect(h.listTrash().map((t) => t.path)).toEqual(['big.md']);
    } finally {
      await tmp.cleanup();
    }
  });
});
