import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsHistoryStore } from '../../../adapters/store/fs-history-store.ts';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createCore } from '../../../core/create-core.ts';
import { tempDir } from '../../helpers/app.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('outside edits through the real watcher keep versions', () => {
  it('an edit and a delete by another program are versions by "outside"; the deleted text is in the trash', async () => {
    const t = await tempDir('quire-watch-history-');
    cleanups.push(t.cleanup);
    const vault = join(t.dir, 'vault');
    const store = fsNoteStore({ dir: vault, watch: true, debounceMs: 30 });
    const history = fsHistoryStore({ dir: join(t.dir, 'history'), fsync: false });
    cleanups.push(history.close);
    const core = createCore({
      store,
      clock: { now: () => Date.now() },
      state: memoryStateStore(),
      logger: silentLogger,
      history,
    });
    await core.load();
    const stop = await store.watch!((changes) => void core.notes.applyExternalChanges(changes));
    cleanups.push(stop);
    const h = core.notes.history!;

    await core.notes.create('diary.md', 'written through the API\n');
    await writeFile(join(vault, 'diary.md'), 'rewritten by a sync tool\n');
    await until('the condition', () => h.list('diary.md').length === 2, 10_000);
    expect(h.list('diary.md').map((v) => `${v.change}:${v.by}`)).toEqual(['outside:outside', 'create:api']);

    // The next API write finds the outside text kept already: no second copy of it.
    await core.notes.update('diary.md', { content: 'back through the API\n' });
    expect(h.list('diary.md').map((v) => v.change)).toEqual(['update', 'outside', 'create']);

    await rm(join(vault, 'diary.md'));
    await until('the condition', () => h.listTrash().length === 1, 10_000);
    const [item] = h.listTrash();
    expect(item).toMatchObject({ path: 'diary.md', kind: 'note', by: 'outside' });
    expect(new TextDecoder().decode((await h.trashed(item!.id)).bytes)).toBe('back through the API\n');
    expect(h.list('diary.md')[0]).toMatchObject({ change: 'delete', by: 'outside' });
  });
});
