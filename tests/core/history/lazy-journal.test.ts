/**
 * The journal queue (to keep the history's write cost low with fsync on): the version of a note
 * write's new bytes is recorded lazily (its line gathers for a moment and is written off the
 * write's path), yet (1) a line is never written before the pack bytes it names are synced, (2) the
 * next change to that note waits until the line is durable, (3) every other record resolves only
 * once durable, (4) a drain (shutdown) flushes what is gathering.
 */
import { describe, expect, it } from 'vitest';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { createCore } from '../../../core/create-core.ts';
import { createHistory } from '../../../core/history/history.ts';
import type { HistoryStore } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

const clock = { now: () => Date.now() };
const enc = new TextEncoder();

/** A memory store that logs the calls and holds journal appends until `open()`. */
function gatedStore() {
  const inner = memoryHistoryStore();
  const log: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const store: HistoryStore = {
    ...inner,
    appendBlob: async (b) => {
      log.push('blob');
      return inner.appendBlob(b);
    },
    syncBlobs: async () => {
      log.push('sync');
    },
    appendJournal: async (t) => {
      log.push('journal-start');
      await gate;
      await inner.appendJournal(t);
      log.push(`journal:${t.trim().split('\n').length}`);
    },
    readJournal: () => inner.readJournal(),
    readBlob: (o, l) => inner.readBlob(o, l),
    replace: (p, j) => inner.replace(p, j),
    size: () => inner.size(),
  };
  return {
    store,
    log,
    inner,
    close() {
      gate = new Promise((r) => {
        open = r;
      });
    },
    open: () => open(),
  };
}

describe('the history journal queue', () => {
  it('a lazy version answers at once; the next change to the note waits for its line', async () => {
    const g = gatedStore();
    const h = createHistory({ store: g.store, clock, lazyDelayMs: 10_000 });
    await h.load();
    g.close();
    await h.record('a.md', enc.encode('one'), 'test', 'update', undefined, true);
    // Answered, listed, and not written yet (the line is gathering).
    expect(h.list('a.md').length).toBe(1);
    expect(g.log).toEqual(['blob']);
    let kept = false;
    const before = h.keepBefore('a.md', enc.encode('one')).then(() => {
      kept = true;
    });
    await until('the condition', () => g.log.includes('journal-start'));
    // The pack was synced before the line was started; the line is held by the gate.
    expect(g.log).toEqual(['blob', 'sync', 'journal-start']);
    expect(kept).toBe(false);
    g.open();
    await before;
    expect(kept).toBe(true);
    expect(g.log).toEqual(['blob', 'sync', 'journal-start', 'journal:1']);
    expect(await g.inner.readJournal()).toContain('"p":"a.md"');
  });

  it('a durable record (a delete to the trash) resolves only once its line is written', async () => {
    const g = gatedStore();
    const h = createHistory({ store: g.store, clock, lazyDelayMs: 10_000 });
    await h.load();
    g.close();
    let done = false;
    const trashing = h.trash('b.md', 'note', enc.encode('gone'), 'test').then(() => {
      done = true;
    });
    await until('the condition', () => g.log.includes('journal-start'));
    expect(done).toBe(false);
    g.open();
    await trashing;
    expect(g.log.indexOf('sync')).toBeLessThan(g.log.indexOf('journal-start'));
    expect(await g.inner.readJournal()).toContain('"t":"x"');
  });

  it('note writes gather into one journal append; a drain writes them; a reload finds them all', async () => {
    const g = gatedStore();
    const notes = memoryNoteStore();
    const core = createCore({ store: notes, clock, logger: silentLogger, history: g.store });
    await core.load();
    for (let i = 0; i < 5; i++) await core.notes.create(`n${i}.md`, `# ${i}\n`);
    await core.notes.drain();
    // Five creates, one append (they gathered within the delay).
    expect(g.log.filter((x) => x.startsWith('journal:'))).toEqual(['journal:5']);
    const again = createHistory({ store: g.inner, clock });
    await again.load();
    for (let i = 0; i < 5; i++) expect(again.list(`n${i}.md`).map((v) => v.change)).toEqual(['create']);
  });
});
