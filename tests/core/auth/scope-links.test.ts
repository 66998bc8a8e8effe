/**
 * Links under a folder scope: a key resolves links among the notes it sees. A differential
 * property: for random small vaults, random folder scopes and random links (by name, by path,
 * relative markdown links), every visible note's links and backlinks through the scoped view are
 * exactly those of an unscoped service over a vault holding only the visible notes; before and
 * after notes change. And the whole vault's answers are untouched.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { inScope, type KeyScope } from '../../../core/auth/scope.ts';
import { scopedNotes } from '../../../core/auth/scoped.ts';
import type { NoteSummary } from '../../../core/notes/note-index.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import type { Principal } from '../../../core/ports.ts';

const clock = { now: () => Date.now() };
const FOLDERS = ['', 'Work/', 'Work/x/', 'Work/probe/', 'Home/'];
const NAMES = ['plan', 'idea', 'log', 'a'];
const SCOPES: KeyScope[] = [
  { capabilities: ['notes:read', 'notes:write'], folders: ['Work/'] },
  { capabilities: ['notes:read', 'notes:write'], folders: ['Work/'], exclude: ['Work/x/'] },
  { capabilities: ['notes:read', 'notes:write'], exclude: ['Work/probe/'] },
  { capabilities: ['notes:read', 'notes:write'], folders: ['Home/', 'Work/probe/'] },
];

const link = fc.oneof(
  fc.constantFrom(...NAMES).map((n) => `[[${n}]]`),
  fc.tuple(fc.constantFrom(...FOLDERS), fc.constantFrom(...NAMES)).map(([f, n]) => `[[${f}${n}]]`),
  fc
    .tuple(fc.constantFrom('', '../', '../../', 'x/'), fc.constantFrom(...NAMES))
    .map(([up, n]) => `[t](${up}${n}.md)`),
);
const vault = fc.dictionary(
  fc.tuple(fc.constantFrom(...FOLDERS), fc.constantFrom(...NAMES)).map(([f, n]) => `${f}${n}.md`),
  fc.array(link, { maxLength: 4 }).map((ls) => `# note\n\n${ls.join(' ')}\n`),
  { minKeys: 1, maxKeys: 12 },
);

async function service(files: Record<string, string>) {
  const notes = createNoteService({ store: memoryNoteStore({ files }), clock });
  await notes.load();
  return notes;
}

/** What a summary says of links, for comparison. */
const shape = (s: NoteSummary) => ({
  path: s.path,
  links: s.links.map((l) => `${l.target}->${l.path}`),
  backlinks: s.backlinks.map((b) => b.path),
});

describe('links as a folder key sees them', () => {
  it('are those of a vault holding only its visible notes (random vaults, before and after writes)', async () => {
    await fc.assert(
      fc.asyncProperty(
        vault,
        fc.constantFrom(...SCOPES),
        fc.array(fc.tuple(fc.constantFrom(...FOLDERS), fc.constantFrom(...NAMES), link), { maxLength: 3 }),
        async (files, scope, writes) => {
          const all = await service(files);
          const p: Principal = { id: 'k', method: 'api-key', scope };
          const view = scopedNotes(all, p);
          const check = async () => {
            const visible = Object.fromEntries(
              await Promise.all(
                all
                  .list()
                  .items.filter((n) => inScope(scope, n.path))
                  .map(async (n) => [n.path, (await all.get(n.path)).content] as const),
              ),
            );
            const alone = await service(visible);
            const want = alone.list().items.map(shape);
            expect(view.list().items.map(shape)).toEqual(want);
            for (const n of want) expect(shape(await view.get(n.path))).toEqual(n);
          };
          await check();
          for (const [f, n, l] of writes) {
            const path = `${f}${n}.md`;
            if (all.list().items.some((x) => x.path === path)) await all.remove(path);
            else await all.create(path, `# new\n\n${l}\n`);
            await check();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('[[plan]]: a hidden plan.md neither wins nor shows; the whole vault is untouched', async () => {
    const all = await service({
      'plan.md': '# hidden\n',
      'Work/probe/plan.md': '# visible\n',
      'Work/probe/linker.md': '[[plan]] and [up](../../plan.md)\n',
    });
    const view = scopedNotes(all, {
      id: 'k',
      method: 'api-key',
      scope: { capabilities: ['notes:read'], folders: ['Work/'] },
    });
    const linker = await view.get('Work/probe/linker.md');
    expect(linker.links.map((l) => l.path)).toEqual(['Work/probe/plan.md', null]);
    expect((await view.get('Work/probe/plan.md')).backlinks.map((b) => b.path)).toEqual([
      'Work/probe/linker.md',
    ]);
    const full = await all.get('Work/probe/linker.md');
    expect(full.links.map((l) => l.path)).toEqual(['plan.md', 'plan.md']);
    expect((await all.get('Work/probe/plan.md')).backlinks).toEqual([]);
  });
});
