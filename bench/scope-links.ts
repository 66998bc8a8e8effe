/**
 * What resolving links among a folder key's notes costs. `shared`: a vault where every name is held
 * by two notes in different folders, one of them hidden from the key (its links often lose their
 * whole-vault winner: the worst case); `unique`: every name once (the usual case):
 * - `graph load`: the link graph resolving every link for the whole vault (the full key's path,
 *   which takes no see function);
 * - `folder list`: a folder key's first list after a write (its view rebuilds every summary);
 * - `folder get`: a folder key reading one note.
 * `npx tsx bench/scope-links.ts [notes=20000] [rounds=15] [shared|unique]`; prints medians in
 * milliseconds. Run it in two checkouts for a before/after.
 */
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { scopedNotes } from '../core/auth/scoped.ts';
import { createLinkGraph, type LinkRef } from '../core/notes/link-graph.ts';
import { createNoteService } from '../core/notes/service.ts';

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 15);
const FOLDERS = ['Work', 'Home', 'Archive', 'Work/private'];
const SHARED = (process.argv[4] ?? 'shared') === 'shared';
const half = SHARED ? N >> 1 : N;
const files: Record<string, string> = {};
const pairs: [string, LinkRef[]][] = [];
for (let i = 0; i < N; i++) {
  const j = SHARED ? i >> 1 : i;
  const path = `${FOLDERS[i % FOLDERS.length]}/n${j}.md`;
  const targets = [1, 7, 31].map((d) => `n${(j + d) % half}`);
  files[path] = `# Note ${i}\n\nwords ${targets.map((t) => `[[${t}]]`).join(' ')}\n`;
  pairs.push([path, targets.map((target) => ({ target, kind: 'wikilink' as const }))]);
}
const notes = createNoteService({ store: memoryNoteStore({ files }), clock: { now: () => Date.now() } });
await notes.load();
const view = scopedNotes(notes, {
  id: 'k',
  method: 'api-key',
  scope: { capabilities: ['notes:read', 'notes:write'], folders: ['Work/'], exclude: ['Work/private/'] },
});
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
const time = async (fn: () => unknown, before?: () => Promise<unknown>) => {
  const out: number[] = [];
  for (let i = 0; i < ROUNDS + 3; i++) {
    await before?.();
    const t = performance.now();
    await fn();
    if (i >= 3) out.push(performance.now() - t);
  }
  return median(out);
};
let k = 0;
const results = {
  'graph load': await time(() => createLinkGraph().load(pairs)),
  'folder list': await time(
    () => view.list().items.length,
    () => notes.create(`Work/tmp${k++}.md`, 'x [[n1]]'),
  ),
  'folder get': await time(() => view.get(`Work/n${SHARED ? 2 : 4}.md`)),
};
console.log(`notes=${N} rounds=${ROUNDS} names=${SHARED ? 'shared' : 'unique'} node=${process.version}`);
for (const [name, ms] of Object.entries(results)) console.log(`| ${name} | ${ms.toFixed(2)} ms |`);
