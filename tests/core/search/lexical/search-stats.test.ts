/**
 * A search ranks the same whatever the order of the writes that made the vault: the index kept up
 * by creates, updates, deletes and re-creates answers every query with the scores of an index built
 * from the same files at a start. (Removed notes' postings linger until a sweep; counted as live,
 * a note deleted and written again ranked lower until the next restart.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../../adapters/store/memory-state-store.ts';
import { createCore } from '../../../../core/create-core.ts';
import { silentLogger } from '../../../helpers/logger.ts';

const WORDS = ['alpha', 'beta', 'crocodile', 'delta', 'echo', 'fjord', 'garden', 'harbour'];
const PATHS = ['a.md', 'b.md', 'c.md', 'dir/d.md', 'dir/e.md'];

const text = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 })
  .map((ws) => `# ${ws[0]}\n\n${ws.join(' ')}\n`);
const op = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), path: fc.constantFrom(...PATHS), text }),
  fc.record({ kind: fc.constant('remove' as const), path: fc.constantFrom(...PATHS) }),
);

const clock = { now: () => Date.now() };
const ranked = async (core: ReturnType<typeof createCore>, q: string) =>
  (await core.notes.search(q, 20)).map((h) => `${h.path} ${h.score.toFixed(6)}`);

describe('search statistics after any sequence of writes', () => {
  it('rank as an index built from the same files at a start does (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const store = memoryNoteStore({ files: {} });
        const live = createCore({ store, state: memoryStateStore(), logger: silentLogger, clock });
        await live.load();
        for (const o of ops) {
          const exists = typeof live.notes.checksumOf(o.path) === 'string';
          if (o.kind === 'remove') {
            if (exists) await live.notes.remove(o.path);
          } else if (exists) await live.notes.update(o.path, { content: o.text });
          else await live.notes.create(o.path, o.text);
        }
        const fresh = createCore({ store, state: memoryStateStore(), logger: silentLogger, clock });
        await fresh.load();
        for (const q of WORDS) expect(await ranked(live, q), q).toEqual(await ranked(fresh, q));
      }),
      { seed: 46, numRuns: 60 },
    );
  }, 60_000);
});
