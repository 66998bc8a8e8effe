/**
 * The stop mark (core/notes/stop-mark.ts, issue 33): a clean stop names the list key of the index
 * it saved, and the next start hands that key out while it builds the index. The key must be the
 * one the index built from the snapshot and journal then has, after every kind of change made
 * before the stop; and no start may take a mark that no longer describes what is on disk.
 */
import { describe, expect, it } from 'vitest';
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { SNAPSHOT_KEY } from '../../../core/notes/snapshot-cache.ts';
import { STOP_MARK_KEY } from '../../../core/notes/stop-mark.ts';
import type { FileStore, NoteStore, StateStore } from '../../../core/ports.ts';
import { until } from '../../helpers/wait.ts';

const clock = { now: () => 1_764_000_000_000 };

function vault(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    files[`f${i % 3}/note-${i}.md`] =
      `---\ntags: [t${i % 4}]\naliases: [alias-${i}]\n---\n# Note ${i}\n\nSee [[note-${(i * 5 + 1) % n}]], [[alias-${(i + 2) % n}]] and ![[pic-${i % 4}.png]].\n`;
  }
  return files;
}

interface Stores {
  store: NoteStore;
  files: FileStore;
  state: StateStore;
}

function stores(n: number, attachments: string[] = ['pic-0.png', 'pic-1.png']): Stores {
  return {
    store: memoryNoteStore({ files: vault(n), clock }),
    files: memoryFileStore({ files: Object.fromEntries(attachments.map((p) => [p, 'x'])), clock }),
    state: memoryStateStore(),
  };
}

/**
 * A state store that records what `observe` says when the load reads the snapshot's body (after
 * the mark and the snapshot's header were read): the early key the service hands out meanwhile.
 */
function observing(state: StateStore, observe: () => unknown): { state: StateStore; seen: unknown[] } {
  const seen: unknown[] = [];
  return {
    seen,
    state: {
      ...state,
      getRange: async (key, offset, length) => {
        if (key === SNAPSHOT_KEY && offset > 0) seen.push(observe());
        return state.getRange!(key, offset, length);
      },
    },
  };
}

/**
 * A service over `s`: its early list key as seen while its index was built from the snapshot, and
 * its list as built from the snapshot alone (the vault's check against it held back until then:
 * that is the list an early answer stands for), then after the check.
 */
async function start(s: Stores) {
  let notes: ReturnType<typeof createNoteService> | null = null;
  const watched = observing(s.state, () => (notes ? notes.earlyListKey() : 'no service'));
  let busy = true;
  notes = createNoteService({
    store: s.store,
    files: s.files,
    clock,
    state: watched.state,
    busy: () => busy,
    busyWaitMs: 60_000,
  });
  const loading = notes.load();
  const service = notes;
  await until('the index ready', () => service.status().state === 'ready');
  const fromSnapshot = JSON.stringify(notes.list().items);
  busy = false;
  await loading;
  const { generation, items } = notes.list();
  return {
    notes,
    early: watched.seen,
    fromSnapshot,
    key: await notes.listKey(generation),
    json: JSON.stringify(items),
  };
}

/** The list key and list of the same vault indexed cold (no state): what the key must equal. */
async function cold(s: Stores) {
  const notes = createNoteService({ store: s.store, files: s.files, clock });
  await notes.load();
  const { generation, items } = notes.list();
  return { key: await notes.listKey(generation), json: JSON.stringify(items) };
}

describe('the stop mark', () => {
  it('names the key of the index the next start builds, after every kind of change', async () => {
    const s = stores(40);
    const first = await start(s);
    expect(first.early.every((k) => k === null)).toBe(true);
    // Every kind of change a run makes before it stops (each alone leaves the marked key exact:
    // a change the journal could not hold would show as a key the next start does not have).
    const n = first.notes;
    // Saved once before the changes: they are journaled, or (the files) not held by the journal.
    expect(await n.saveCache()).toBe(true);
    await n.create('f9/new.md', '# New\n\nLinks [[note-3]] and ![[pic-2.png]].\n');
    await n.update('f1/note-4.md', { content: '# Four, rewritten\n\n[[f9/new]]\n' });
    await n.remove('f2/note-5.md');
    await n.move('f0/note-6.md', 'moved/six.md', { updateLinks: true });
    await s.files.write!('pic-2.png', new Blob(['y']).stream(), 1024);
    await s.files.remove!('pic-1.png');
    await n.filesChanged(['pic-2.png'], ['pic-1.png']);
    await s.store.write('f0/note-9.md', new TextEncoder().encode('# Nine, edited outside\n\n#outside\n'));
    await n.applyExternalChanges([{ path: 'f0/note-9.md', kind: 'changed' }]);
    expect(await n.markStop()).toBe(true);
    const marked = JSON.parse((await s.state.get(STOP_MARK_KEY))!) as { key: string };

    const second = await start(s);
    // While the index was built, the mark's key was handed out; once ready, the same key.
    expect(second.early.length).toBeGreaterThan(0);
    expect(second.early.every((k) => k === marked.key)).toBe(true);
    expect(second.notes.earlyListKey()).toBeNull();
    expect(second.key).toBe(marked.key);
    // The key and list the same vault has when indexed from nothing, and the list the index
    // built from the snapshot alone gives, before the vault was checked against it.
    const fresh = await cold(s);
    expect(fresh.key).toBe(marked.key);
    expect(second.fromSnapshot).toBe(fresh.json);
    expect(second.json).toBe(fresh.json);
    // A clean stop of an unchanged index marks it again, with the same key.
    expect(await second.notes.markStop()).toBe(true);
    const third = await start(s);
    expect(third.early.length).toBeGreaterThan(0);
    expect(third.early.every((k) => k === marked.key)).toBe(true);
  });

  it('is not taken once anything was saved after it, or by another vault or form', async () => {
    const s = stores(30);
    const first = await start(s);
    expect(await first.notes.markStop()).toBe(true);
    const mark = (await s.state.get(STOP_MARK_KEY))!;

    // A run after the mark wrote and saved, then stopped without marking (a crash): not taken.
    const second = await start(s);
    expect(second.early.every((k) => k === (JSON.parse(mark) as { key: string }).key)).toBe(true);
    await second.notes.update('f1/note-1.md', { content: '# One, after the mark\n' });
    expect(await second.notes.saveCache()).toBe(true);
    const third = await start(s);
    expect(third.early.length).toBeGreaterThan(0);
    expect(third.early.every((k) => k === null)).toBe(true);
    expect(third.json).toContain('One, after the mark');

    // A mark of another vault, another form, or one that is not JSON: not taken, no failure.
    expect(await third.notes.markStop()).toBe(true);
    const good = JSON.parse((await s.state.get(STOP_MARK_KEY))!) as Record<string, unknown>;
    for (const bad of [
      JSON.stringify({ ...good, vault: '/somewhere/else' }),
      JSON.stringify({ ...good, keyForm: '0 0 0' }),
      JSON.stringify({ ...good, form: 99 }),
      JSON.stringify({ ...good, key: 'not a key' }),
      '{"cut sh',
    ]) {
      await s.state.put(STOP_MARK_KEY, bad);
      const again = await start(s);
      expect(again.early.length).toBeGreaterThan(0);
      expect(again.early.every((k) => k === null)).toBe(true);
      expect(again.json).toBe(third.json);
    }
    await s.state.put(STOP_MARK_KEY, JSON.stringify(good));
    const last = await start(s);
    expect(last.early.every((k) => k === good.key)).toBe(true);
  });

  it('holds the load while an early answer is written, and goes on when it never is (capped)', async () => {
    const s = stores(30);
    const first = await start(s);
    expect(await first.notes.markStop()).toBe(true);
    let notes: ReturnType<typeof createNoteService> | null = null;
    let release!: () => void;
    const written = new Promise<void>((r) => {
      release = r;
    });
    const phases: string[] = [];
    // When the load first reads the snapshot's body, an early answer is "being written".
    const watched = observing(s.state, () => {
      if (!phases.length) {
        notes?.holdLoad(written);
        phases.push('held');
      }
    });
    notes = createNoteService({ store: s.store, files: s.files, clock, state: watched.state });
    const loading = notes.load().then(() => phases.push('ready'));
    // Held: the load waits at its next pause while the answer is not out.
    await new Promise((r) => setTimeout(r, 50));
    expect(phases).toEqual(['held']);
    release();
    await loading;
    expect(phases).toEqual(['held', 'ready']);

    // An answer never written (a client that stopped reading) holds it for a second at most.
    phases.length = 0;
    const again = observing(s.state, () => {
      if (!phases.length) {
        notes?.holdLoad(new Promise(() => {}));
        phases.push('held');
      }
    });
    notes = createNoteService({ store: s.store, files: s.files, clock, state: again.state });
    await notes.load();
    expect(notes.status().state).toBe('ready');
  });

  it('writes no mark where the store cannot read by range, or before the index is ready', async () => {
    const plain: StateStore = memoryStateStore();
    const { getRange: _r, byteSize: _b, putBytes: _p, ...textOnly } = plain;
    const notes = createNoteService({
      store: memoryNoteStore({ files: vault(5), clock }),
      clock,
      state: textOnly,
    });
    expect(await notes.markStop()).toBe(false);
    await notes.load();
    expect(await notes.markStop()).toBe(false);
    expect(await textOnly.get(STOP_MARK_KEY)).toBeNull();
  });
});
