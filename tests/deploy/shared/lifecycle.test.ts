import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { parseIndexCache } from '../../../core/notes/note-index.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { canHoldBinary, readBinaryCache, SNAPSHOT_KEY } from '../../../core/notes/snapshot-cache.ts';
import type { Logger } from '../../../core/ports.ts';
import { alarmLifecycle, STOP_ORDER, startLifecycle } from '../../../deploy/shared/lifecycle.ts';
import { until } from '../../helpers/wait.ts';

/** A logger that keeps its messages (the lifecycle's `reconcile`, `stopped`). */
function recordingLogger() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (msg: string, fields?: Record<string, unknown>): void =>
      void lines.push({ level, msg, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

const text = (s: string) => new TextEncoder().encode(s);

/** A note service over a memory vault (no watcher: only a reconcile sees edits behind its back). */
function vault() {
  const store = memoryNoteStore({ files: { 'a.md': '# A' } });
  const state = memoryStateStore();
  const { logger, lines } = recordingLogger();
  const notes = createNoteService({ store, state, clock: { now: () => Date.now() }, logger });
  return { store, state, notes, logger, lines };
}

describe('the shared lifecycle (deploy/shared/lifecycle.ts)', () => {
  it('reconciles the vault on its timer: an edit no watcher reported reaches the index', async () => {
    const v = vault();
    const closed = { feed: () => {}, channels: async () => {}, plugins: async () => {} };
    const life = startLifecycle({
      notes: v.notes,
      store: v.store,
      logger: v.logger,
      reconcileSeconds: 0.05,
      shutdownGraceMs: 100,
      app: {
        feed: { close: closed.feed },
        channels: { close: closed.channels },
        plugins: { stop: closed.plugins },
      },
    });
    await life.ready;
    expect(v.notes.list().items.map((n) => n.path)).toEqual(['a.md']);
    await v.store.write('b.md', text('# B\n[[a]]'));
    await until('the condition', () => v.notes.list().items.length === 2 || undefined, 5_000);
    expect(v.notes.list().items.map((n) => n.path)).toEqual(['a.md', 'b.md']);
    expect(v.lines.some((l) => l.msg === 'reconcile' && l.fields?.trigger === 'timer')).toBe(true);
    await life.stop('test');
    // Stopped means stopped: no reconcile runs after it.
    const after = v.lines.length;
    await v.store.write('c.md', text('# C'));
    await new Promise((r) => setTimeout(r, 200));
    expect(v.notes.list().items.map((n) => n.path)).toEqual(['a.md', 'b.md']);
    expect(v.lines.slice(after).filter((l) => l.msg === 'reconcile')).toEqual([]);
  });

  it('stops in one order: timers, feed, doors, index, channels, watcher, writes, plugins, cache, final steps', async () => {
    const v = vault();
    const order: string[] = [];
    const life = startLifecycle({
      notes: v.notes,
      store: {
        async watch() {
          order.push('watch started');
          return async () => void order.push('watcher closed');
        },
      },
      logger: v.logger,
      reconcileSeconds: 60,
      shutdownGraceMs: 1234,
      app: {
        feed: { close: () => void order.push('feed closed') },
        channels: { close: async () => void order.push('channels closed') },
        plugins: { stop: async () => void order.push('plugins stopped') },
        listStore: { settled: async () => void order.push('list save settled') },
      },
      afterIndex: async () => void order.push('after index'),
      onStopStep: (step) => void order.push(`step ${step}`),
    });
    await life.ready;
    await until('the condition', () => order.includes('watch started') || undefined);
    life.addDoor(async (graceMs) => void order.push(`http door closed within ${graceMs}`));
    life.addDoor(async (graceMs) => void order.push(`relay door closed within ${graceMs}`));
    life.addFinal(async () => void order.push('embedded relay stopped'));
    await v.notes.create('new.md', '# New');
    const stopping = life.stop('SIGTERM');
    expect(life.stop('again')).toBe(stopping);
    await stopping;
    expect(order).toEqual([
      'after index',
      'watch started',
      'step timers',
      'step feed',
      'feed closed',
      'step doors',
      'http door closed within 1234',
      'relay door closed within 1234',
      'step index',
      'step channels',
      'channels closed',
      'step watcher',
      'watcher closed',
      'step writes',
      'step plugins',
      'plugins stopped',
      'step cache',
      'list save settled',
      'step after',
      'embedded relay stopped',
    ]);
    expect(order.filter((o) => o.startsWith('step ')).map((o) => o.slice(5))).toEqual([...STOP_ORDER]);
    // The cache step saved the write made just before the stop (in the snapshot, or journaled after it).
    const size = canHoldBinary(v.state) ? await v.state.byteSize(SNAPSHOT_KEY) : null;
    const cache =
      size !== null && canHoldBinary(v.state)
        ? await readBinaryCache(v.state, size, 'index-journal.log')
        : parseIndexCache(await v.state.get('index-cache.json'), await v.state.get('index-journal.log'));
    expect(cache?.entries.has('new.md')).toBe(true);
    // No mark of the stop: the next start answers nothing before it has checked the vault.
    expect(await v.state.get('index-stop.json')).toBeNull();
    expect(v.lines.map((l) => l.msg).filter((m) => m === 'shutting down' || m === 'stopped')).toEqual([
      'shutting down',
      'stopped',
    ]);
  });

  it("the Worker's alarm form saves the cache after a write, reconciles when due, and lets an idle vault sleep", async () => {
    const v = vault();
    let now = 1_000_000;
    let alarm: number | null = null;
    const storage = {
      getAlarm: async () => alarm,
      setAlarm: async (at: number) => {
        alarm = at;
      },
    };
    await v.notes.load();
    const life = alarmLifecycle({
      notes: v.notes,
      storage,
      logger: v.logger,
      reconcileSeconds: 300,
      cacheSaveSeconds: 10,
      now: () => now,
    });
    await life.afterRequest(new Request('http://x/api/v1/notes'));
    expect(alarm).toBe(now + 300_000);
    await life.afterRequest(new Request('http://x/api/v1/notes', { method: 'POST' }));
    expect(alarm).toBe(now + 10_000);
    // The cache-save alarm: nothing reconciled yet (not due), the next alarm is the reconcile.
    now += 10_000;
    alarm = null;
    await v.store.write('b.md', text('# B'));
    await life.alarm();
    expect(v.notes.list().items.map((n) => n.path)).toEqual(['a.md']);
    expect(alarm).toBe(1_000_000 + 300_000);
    // The reconcile alarm: the edit behind the index's back is found.
    now = alarm!;
    alarm = null;
    await life.alarm();
    expect(v.notes.list().items.map((n) => n.path)).toEqual(['a.md', 'b.md']);
    // No request since: no further alarm wakes the object; the next request arms the next reconcile.
    expect(alarm).toBe(null);
    await life.afterRequest(new Request('http://x/api/v1/notes'));
    expect(alarm).toBe(now + 300_000);
  });

  it('on Workers the reconcile alarm prunes the history, at most once per period, and survives a failed prune', async () => {
    const v = vault();
    let now = 5_000_000;
    const storage = { getAlarm: async () => null, setAlarm: async () => {} };
    const calls: number[] = [];
    let fail = false;
    await v.notes.load();
    const life = alarmLifecycle({
      notes: v.notes,
      storage,
      logger: v.logger,
      reconcileSeconds: 300,
      cacheSaveSeconds: 10,
      pruneEveryMs: 3_600_000,
      prune: async () => {
        calls.push(now);
        if (fail) throw new Error('bucket unreachable');
        return { versions: 2, trash: 1 };
      },
      now: () => now,
    });
    // Reconcile alarms every 5 minutes: the first prune only once an hour has passed.
    for (let i = 0; i < 11; i++) {
      now += 300_000;
      await life.alarm();
    }
    expect(calls).toEqual([]);
    now += 300_000;
    await life.alarm();
    expect(calls).toEqual([5_000_000 + 3_600_000]);
    expect(v.lines.some((l) => l.msg === 'history pruned' && l.fields?.versions === 2)).toBe(true);
    // The next one an hour later; a failure is logged and the alarm still completes.
    fail = true;
    for (let i = 0; i < 12; i++) {
      now += 300_000;
      await life.alarm();
    }
    expect(calls).toHaveLength(2);
    expect(
      v.lines.some(
        (l) => l.msg === 'history prune failed' && String(l.fields?.error).includes('unreachable'),
      ),
    ).toBe(true);
  });
});
