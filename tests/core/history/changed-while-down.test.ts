/**
 * A note changed or removed while the server was down: the next start checks the vault against the
 * index snapshot and keeps what it finds in the history, as the watcher keeps an outside change.
 * Without that, a later removal on disk trashed the version from before the downtime: the text
 * written while down was lost from the history (the model test's soak found it).
 */
import { describe, expect, it } from 'vitest';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createCore } from '../../../core/create-core.ts';
import { sha256Hex } from '../../../core/crypto.ts';
import { silentLogger } from '../../helpers/logger.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const sum = (s: string) => sha256Hex(bytes(s));

describe('a start after the vault changed while the server was down', () => {
  it('keeps the changed text as a version, and trashes it when it is then removed on disk', async () => {
    let t = 1_700_000_000_000;
    const clock = { now: () => (t += 1000) };
    const store = memoryNoteStore({ clock });
    const state = memoryStateStore();
    const historyStore = memoryHistoryStore();
    const start = async () => {
      const core = createCore({ store, state, clock, logger: silentLogger, history: historyStore });
      await core.load();
      return core;
    };

    const first = await start();
    await first.notes.create('a.md', 'before the stop');
    await first.notes.create('b.md', 'b before the stop');
    await first.notes.saveCache();
    await first.history!.flush();

    // While down: a.md rewritten, b.md removed, c.md written.
    await store.write('a.md', bytes('written while down'));
    await store.remove('b.md');
    await store.write('c.md', bytes('new while down'));

    const second = await start();
    const h = second.history!;
    expect(h.list('a.md')[0]?.checksum).toBe(await sum('written while down'));
    expect(h.list('c.md')[0]?.checksum).toBe(await sum('new while down'));
    expect(h.listTrash().map((x) => [x.path, x.checksum])).toEqual([
      ['b.md', await sum('b before the stop')],
    ]);

    // Removed on disk now: the trash holds the text written while down, not the one before.
    await store.remove('a.md');
    await second.notes.applyExternalChanges([{ kind: 'removed', path: 'a.md' }]);
    const item = h.listTrash().find((x) => x.path === 'a.md');
    expect(item?.checksum).toBe(await sum('written while down'));
  });
});
