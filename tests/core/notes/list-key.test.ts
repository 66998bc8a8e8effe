/**
 * The list key (core/notes/list-key.ts): a warm start answers its first list from the
 * persisted one when the keys match, so the key must change whenever any byte of the list would,
 * and stay the same for the same vault however it was loaded.
 */
import { describe, expect, it } from 'vitest';
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import type { StateStore } from '../../../core/ports.ts';

function vault(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    files[`f${i % 3}/note-${i}.md`] =
      `---\ntags: [t${i % 4}]\n---\n# Note ${i}\n\nSee [[note-${(i * 5 + 1) % n}]] and ![[pic.png]].\n`;
  }
  return files;
}

async function load(
  files: Record<string, string>,
  opts: { at?: number; attachments?: string[]; state?: StateStore } = {},
) {
  const clock = { now: () => opts.at ?? 1_764_000_000_000 };
  const notes = createNoteService({
    store: memoryNoteStore({ files, clock }),
    clock,
    files: memoryFileStore({
      files: Object.fromEntries((opts.attachments ?? []).map((p) => [p, 'x'])),
      clock,
    }),
    ...(opts.state ? { state: opts.state } : {}),
  });
  await notes.load();
  const { generation, items } = notes.list();
  return { notes, key: await notes.listKey(generation), json: JSON.stringify(items) };
}

describe('the list key', () => {
  it('is the same exactly when the list is: a warm start, edited, touched, with a new file', async () => {
    const base = vault(60);
    // The same vault started warm from the snapshot of a first start (entries come in the
    // snapshot's order, not the walk's).
    const state = memoryStateStore();
    const cold = await load(base, { state });
    expect(await cold.notes.saveCache()).toBe(true);
    const edited = { ...base, 'f1/note-7.md': `${base['f1/note-7.md']}One more line.\n` };
    const retitled = { ...base, 'f2/note-8.md': base['f2/note-8.md']!.replace('# Note 8', '# Note 8!') };
    const runs = await Promise.all([
      Promise.resolve(cold),
      load(base, { state }),
      load(edited),
      load(retitled),
      load(base, { at: 1_764_000_360_000 }),
      load(base, { attachments: ['pic.png'] }),
      load(base, { attachments: ['img/other.png'] }),
      load({ ...base, 'f0/new.md': '# New\n' }),
    ]);
    for (const r of runs) expect(r.key).toMatch(/^[0-9a-f]{64}$/);
    expect(runs[1]!.key).toBe(runs[0]!.key);
    // Sound: the same key only for the same list; and every change that shows in the list changes it.
    for (const [i, a] of runs.entries()) {
      for (const [j, b] of runs.entries()) {
        if (a.key === b.key) expect(a.json, `runs ${i} and ${j}`).toBe(b.json);
        else if (i !== j && i !== 6 && j !== 6) expect(a.json, `runs ${i} and ${j}`).not.toBe(b.json);
      }
    }
    // Conservative: a new file no link names leaves the list as it was, yet changes the key (the
    // next start encodes the chunks again, matching them by their bytes).
    expect(runs[6]!.json).toBe(runs[0]!.json);
    expect(runs[6]!.key).not.toBe(runs[0]!.key);
  });

  it('follows writes, and is null for a generation the index is not at', async () => {
    let now = 1_764_000_000_000;
    const clock = { now: () => now };
    const notes = createNoteService({ store: memoryNoteStore({ files: vault(20), clock }), clock });
    await notes.load();
    const g0 = notes.list().generation;
    const k0 = await notes.listKey(g0);
    expect(k0).not.toBeNull();
    expect(await notes.listKey(g0 + 1)).toBeNull();
    now += 1000;
    await notes.update('f0/note-0.md', { content: '# Changed\n' });
    const g1 = notes.list().generation;
    expect(g1).not.toBe(g0);
    expect(await notes.listKey(g0)).toBeNull();
    const k1 = await notes.listKey(g1);
    expect(k1).not.toBeNull();
    expect(k1).not.toBe(k0);
  });

  it('prepares the summaries of the generation the index is at, and of no other', async () => {
    const { notes } = await load(vault(30));
    const { generation } = notes.list();
    expect(await notes.prepareList(generation + 1)).toBe(false);
    expect(await notes.prepareList(generation)).toBe(true);
    expect(notes.list().items).toHaveLength(30);
  });
});
