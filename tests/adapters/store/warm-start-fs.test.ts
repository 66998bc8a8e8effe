/**
 * The warm start served from the snapshot, on the file stores and with the watcher: what
 * changed on disk while the server was down (a note edited, one removed, one added, an empty
 * folder, an attachment a link names) is in the index once the start is ready (the lifecycle's
 * `ready`), and the watcher the check's walk armed reports what changes after it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsFileStore } from '../../../adapters/store/fs-file-store.ts';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../../adapters/store/fs-state-store.ts';
import { sha256Hex } from '../../../core/crypto.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { startLifecycle } from '../../../deploy/shared/lifecycle.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

let dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

function service(vault: string, state: string) {
  const store = fsNoteStore({ dir: vault, debounceMs: 20 });
  const notes = createNoteService({
    store,
    files: fsFileStore({ dir: vault }),
    state: fsStateStore({ dir: state }),
    clock: { now: () => Date.now() },
    logger: silentLogger,
  });
  return { store, notes };
}

describe('the warm start from the snapshot, on disk', () => {
  it('finds what changed while down before ready, and the watcher reports what changes after', async () => {
    const root = await mkdtemp(join(tmpdir(), 'quire-warm-start-'));
    dirs.push(root);
    const vault = join(root, 'vault');
    const state = join(root, 'state');
    const files: Record<string, string> = {
      'top.md': '# Top\n[[a]] ![[pic.png]]',
      'notes/a.md': '# A\n[[b]]',
      'notes/b.md': '# B',
      'notes/deep/c.md': '# C',
    };
    for (const [p, text] of Object.entries(files)) {
      await mkdir(join(vault, p, '..'), { recursive: true });
      await writeFile(join(vault, p), text);
    }
    await mkdir(join(vault, 'was-empty'), { recursive: true });
    const first = service(vault, state);
    await first.notes.load();
    await first.notes.saveCache();

    // While the server is down.
    await writeFile(join(vault, 'notes/a.md'), '# A, edited while down\n[[c]]');
    await rm(join(vault, 'notes/b.md'));
    await writeFile(join(vault, 'notes/deep/added.md'), '# Added');
    await mkdir(join(vault, 'fresh/empty'), { recursive: true });
    await rm(join(vault, 'was-empty'), { recursive: true });
    await writeFile(join(vault, 'pic.png'), 'png');

    const { store, notes } = service(vault, state);
    const life = startLifecycle({
      notes,
      store,
      logger: silentLogger,
      reconcileSeconds: 3600,
      shutdownGraceMs: 100,
      app: { feed: { close() {} }, channels: { close: async () => {} }, plugins: { stop: async () => {} } },
    });
    try {
      await life.ready;
      const items = notes.list().items;
      const byPath = new Map(items.map((n) => [n.path, n]));
      expect([...byPath.keys()].sort()).toEqual([
        'notes/a.md',
        'notes/deep/added.md',
        'notes/deep/c.md',
        'top.md',
      ]);
      expect(byPath.get('notes/a.md')?.checksum).toBe(await sha256Hex('# A, edited while down\n[[c]]'));
      expect(byPath.get('notes/a.md')?.links.map((l) => l.path)).toEqual(['notes/deep/c.md']);
      expect(byPath.get('top.md')?.links.map((l) => l.path)).toEqual(['notes/a.md', 'pic.png']);
      const folders = JSON.stringify(notes.tree(''));
      expect(folders).toContain('fresh');
      expect(folders).toContain('empty');
      expect(folders).not.toContain('was-empty');
      // The watcher is up on folders the check's walk armed.
      await writeFile(join(vault, 'notes/deep/c.md'), '# C, edited after the start\n[[top]]');
      await until(
        'the edit after the start',
        () => notes.list().items.find((n) => n.path === 'notes/deep/c.md')?.links.length === 1,
        5_000,
      );
    } finally {
      await life.stop('test');
    }
  });
});
