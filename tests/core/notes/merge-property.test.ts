/**
 * Seeded property: simulated clients edit one note offline (drafts of several edits), save with
 * the base they started from, and the file is edited on disk meanwhile, in random order. After
 * quiescence every client, the API and the file agree, and every acknowledged insertion is in the
 * note or in a conflict copy of it, unless a later acknowledged edit removed it. MERGE_RUNS sizes
 * it (`npm run soak:merge` runs it long).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createCore } from '../../../core/create-core.ts';
import { silentLogger } from '../../helpers/logger.ts';

const RUNS = Number(process.env.MERGE_RUNS ?? 25);
const CLIENTS = 3;
const PATH = 'shared.md';
const START = `${Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n')}\n`;

type Cmd =
  | { t: 'edit'; c: number; how: 'line' | 'word' | 'drop'; at: number }
  | { t: 'save'; c: number }
  | { t: 'disk'; at: number };

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({
    t: fc.constant('edit' as const),
    c: fc.nat(CLIENTS - 1),
    how: fc.constantFrom('line' as const, 'word' as const, 'drop' as const),
    at: fc.nat(40),
  }),
  fc.record({ t: fc.constant('save' as const), c: fc.nat(CLIENTS - 1) }),
  fc.record({ t: fc.constant('disk' as const), at: fc.nat(40) }),
);

const tokensIn = (s: string) => s.match(/tok\d+/g) ?? [];

async function play(cmds: Cmd[]) {
  const store = memoryNoteStore({ files: { [PATH]: START } });
  let now = 1_800_000_000_000;
  const clock = { now: () => (now += 1000) };
  const core = createCore({
    store,
    clock,
    state: memoryStateStore(),
    logger: silentLogger,
    history: memoryHistoryStore(),
  });
  await core.load();
  const notes = core.notes;
  const first = await notes.get(PATH);
  const clients = Array.from({ length: CLIENTS }, () => ({
    base: first.checksum,
    lines: first.content.split('\n'),
    added: [] as string[],
    dropped: [] as string[],
  }));
  const acked = new Set<string>();
  const removed = new Set<string>();
  let n = 0;
  const read = async (p: string) => new TextDecoder().decode((await store.read(p))!);
  for (const c of cmds) {
    if (c.t === 'edit') {
      const cl = clients[c.c]!;
      const at = c.at % cl.lines.length;
      const tok = `tok${n++}`;
      if (c.how === 'line') {
        cl.lines.splice(at, 0, tok);
        cl.added.push(tok);
      } else if (c.how === 'word' && cl.lines[at] !== '') {
        cl.lines[at] = `${cl.lines[at]} ${tok}`;
        cl.added.push(tok);
      } else if (c.how === 'drop' && cl.lines.length > 2) {
        cl.dropped.push(...tokensIn(cl.lines[at]!));
        cl.lines.splice(at, 1);
      }
    } else if (c.t === 'save') {
      const cl = clients[c.c]!;
      const note = await notes.update(PATH, { content: cl.lines.join('\n') }, undefined, cl.base);
      for (const t of cl.added) acked.add(t);
      for (const t of cl.dropped) removed.add(t);
      // The workspace takes the answer as its new text and base.
      Object.assign(cl, { base: note.checksum, lines: note.content.split('\n'), added: [], dropped: [] });
    } else {
      const lines = (await read(PATH)).split('\n');
      const tok = `tok${n++}`;
      lines.splice(c.at % lines.length, 0, tok);
      await store.write(PATH, new TextEncoder().encode(lines.join('\n')));
      await notes.applyExternalChanges([{ path: PATH, kind: 'changed' }]);
      acked.add(tok);
    }
  }
  // Quiescence: every client reloads.
  const final = await notes.get(PATH);
  const disk = await read(PATH);
  expect(final.content).toBe(disk);
  for (const cl of clients) Object.assign(cl, { base: final.checksum, lines: final.content.split('\n') });
  expect(new Set(clients.map((cl) => cl.lines.join('\n'))).size).toBe(1);
  let everything = disk;
  for (const s of notes.list().items) if (s.path !== PATH) everything += await read(s.path);
  const present = new Set(tokensIn(everything));
  const lost = [...acked].filter((t) => !present.has(t) && !removed.has(t));
  expect(lost).toEqual([]);
}

describe('merging writes: nothing acknowledged is lost (seeded property)', () => {
  it('clients with bases, offline drafts and disk edits in random order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 5, maxLength: 40 }), (cmds) => play(cmds)),
      { numRuns: RUNS, seed: 46_2026 },
    );
  });
});
