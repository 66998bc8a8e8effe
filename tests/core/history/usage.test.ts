import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../../adapters/http/app.ts';
import { fsHistoryStore } from '../../../adapters/store/fs-history-store.ts';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createCore } from '../../../core/create-core.ts';
import { createHistory } from '../../../core/history/history.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { runChecks } from '../../../deploy/node/cli/doctor.ts';
import { checkHistory } from '../../../deploy/node/cli/doctor-checks.ts';
import { requester, tempDir } from '../../helpers/app.ts';
import { silentLogger } from '../../helpers/logger.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const enc = new TextEncoder();

async function app(withHistory: boolean) {
  const clock = { now: () => Date.now() };
  const core = createCore({
    store: memoryNoteStore({ files: { 'a.md': 'a' } }),
    clock,
    state: memoryStateStore(),
    logger: silentLogger,
    history: withHistory ? memoryHistoryStore() : undefined,
  });
  await core.load();
  const send = requester(createApp({ notes: core.notes, version: 't', clock, logger: silentLogger }));
  return { core, send };
}

describe('health and quire doctor report the history and the trash', () => {
  it('GET /health gives the bytes, versions and trash items, and follows writes, deletes and purges', async () => {
    const off = await app(false);
    expect((await off.send('GET', '/api/v1/health')).json.data.history).toEqual({ state: 'off' });

    const { core, send } = await app(true);
    const h0 = (await send('GET', '/api/v1/health')).json.data.history;
    expect(h0).toEqual({ state: 'on', bytes: 0, versions: 0, trash: 0 });
    await core.notes.create('b.md', 'one');
    await core.notes.update('b.md', { content: 'two' });
    await core.notes.remove('a.md');
    const h1 = (await send('GET', '/api/v1/health')).json.data.history;
    // b: create + update; a: the baseline kept before the delete + the delete.
    expect(h1).toMatchObject({ state: 'on', versions: 4, trash: 1 });
    expect(h1.bytes).toBe((await core.notes.history!.usage()).bytes);
    expect(h1.bytes).toBeGreaterThan(0);
    const [item] = core.notes.history!.listTrash();
    await core.notes.history!.untrash(item!.id);
    expect((await send('GET', '/api/v1/health')).json.data.history).toMatchObject({ versions: 4, trash: 0 });
    // A prune that drops every version recounts.
    await core.notes.history!.prune({ maxAgeMs: -1, maxBytes: 1 << 30, trashMs: 1 });
    expect((await send('GET', '/api/v1/health')).json.data.history).toMatchObject({ versions: 0, trash: 0 });
  });

  it('quire doctor reads DATA_DIR/history: size, versions, trash items; warns past the byte budget', async () => {
    const t = await tempDir('quire-doctor-history-');
    cleanups.push(t.cleanup);
    const dataDir = join(t.dir, 'data');
    const store = fsHistoryStore({ dir: join(dataDir, 'history'), fsync: false });
    cleanups.push(store.close);
    const history = createHistory({ store, clock: { now: () => Date.now() } });
    await history.load();
    await history.record('n.md', enc.encode('one'), 'api', 'create');
    await history.record('n.md', enc.encode('two'), 'api', 'update');
    await history.record('n.md', enc.encode('two'), 'api', 'delete');
    const gone = await history.trash('n.md', 'note', enc.encode('two'), 'api');
    await history.trash('m.md', 'note', enc.encode('m'), 'api');
    await history.untrash(gone.id);
    const { bytes } = history.stats();

    const limits = { maxAgeMs: 1, trashMs: 1, maxFileBytes: 1 };
    const ok = checkHistory({ dataDir, historyEnabled: true, history: { ...limits, maxBytes: 1 << 30 } });
    expect(ok.status).toBe('ok');
    expect(ok.detail).toContain('3 versions, 1 item in the trash');
    expect(ok.detail).toContain(`${(bytes / 1024 / 1024).toFixed(2)} MiB`);
    const over = checkHistory({ dataDir, historyEnabled: true, history: { ...limits, maxBytes: 10 } });
    expect(over.status).toBe('warn');
    expect(over.fix).toContain('HISTORY_MAX_BYTES');
    const off = checkHistory({ dataDir, historyEnabled: false, history: { ...limits, maxBytes: 10 } });
    expect(off).toMatchObject({ status: 'ok', detail: expect.stringContaining('HISTORY=false') });

    // The whole doctor, with the server's environment, lists it.
    const checks = await runChecks({ DATA_DIR: dataDir, PORT: '0', RELAY_PORT: '0' });
    expect(checks.find((c) => c.name === 'history')?.detail).toContain('3 versions, 1 item in the trash');
  });

  it('the note service loads the history it is given, once (the lifecycle loads notes, not the core)', async () => {
    const t = await tempDir('quire-history-reload-');
    cleanups.push(t.cleanup);
    const clock = { now: () => Date.now() };
    const one = fsHistoryStore({ dir: join(t.dir, 'history'), fsync: false });
    const h1 = createHistory({ store: one, clock });
    await h1.load();
    await h1.record('a.md', enc.encode('before the restart'), 'api', 'create');
    await one.close();
    const two = fsHistoryStore({ dir: join(t.dir, 'history'), fsync: false });
    cleanups.push(two.close);
    const h2 = createHistory({ store: two, clock });
    const notes = createNoteService({
      store: memoryNoteStore({ files: { 'a.md': 'before the restart' } }),
      clock,
      state: memoryStateStore(),
      history: h2,
    });
    await notes.load();
    expect(h2.list('a.md').map((v) => `${v.change}:${v.by}`)).toEqual(['create:api']);
    await h2.load();
    expect(h2.list('a.md')).toHaveLength(1);
    expect(h2.stats()).toMatchObject({ versions: 1 });
  });
});
