/**
 * What a folder-limited key's search costs, at 10,000 generated notes
 * (bench/generate-vault.ts), through the note service (notes in memory, snippets included), all in
 * one run: the full-access search; a scoped key's search as it is now (hidden notes skipped before
 * ranking, statistics over the visible notes); and as it was before (search the whole vault,
 * and when a hidden note is among the hits, search 100 deep and filter), for a small scope
 * (`Work/`, ~3% of the notes) and a large one (20 folders, ~60%). Also the first scoped query
 * after a write (the visible set is rebuilt once per change of the notes).
 * Run: `node --expose-gc --import tsx bench/search-eval/scoped-speed.ts`.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { inScope, type KeyScope } from '../../core/auth/scope.ts';
import { scopedNotes } from '../../core/auth/scoped.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { ensureVault, readVaultFiles } from '../generate-vault.ts';
import { vaultQueries } from './queries.ts';

const notes = Number(process.env.SEARCH_SPEED_NOTES ?? 10_000);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(((xs.length - 1) * p) / 100)] ?? 0;

const { dir } = await ensureVault(join(tmpdir(), 'quire-bench-vaults'), notes);
const { files } = await readVaultFiles(dir);
const service = createNoteService({ store: memoryNoteStore({ files }), clock: { now: () => Date.now() } });
await service.load();

// The same kinds of queries as speed.ts: words, questions, typos, prefixes.
const queries = vaultQueries(Object.values(files));

/** p50/p99 ms of one pass after a warm-up, and of the fastest of 3 passes per query. */
async function time(fn: (q: string) => Promise<unknown>) {
  for (const q of queries) await fn(q);
  const ms: number[] = [];
  const best = queries.map(() => Number.POSITIVE_INFINITY);
  for (let pass = 0; pass < 3; pass++) {
    for (let i = 0; i < queries.length; i++) {
      const t = performance.now();
      await fn(queries[i]!);
      const d = performance.now() - t;
      if (pass === 0) ms.push(d);
      best[i] = Math.min(best[i]!, d);
    }
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99), best50: pct(best, 50), best99: pct(best, 99) };
}

const folders = [...new Set(Object.keys(files).map((p) => p.split('/')[0]!))].sort();
const scopes: [string, KeyScope][] = [
  ['small (Work/)', { capabilities: ['notes:read'], folders: ['Work/'] }],
  [
    'large (20 folders)',
    {
      capabilities: ['notes:read'],
      folders: folders
        .filter((f) => !f.endsWith('.md'))
        .slice(0, 20)
        .map((f) => `${f}/`),
    },
  ],
];

const f = (x: number) => x.toFixed(2);
const row = (name: string, t: Awaited<ReturnType<typeof time>>, base: Awaited<ReturnType<typeof time>>) =>
  `| ${name} | ${f(t.p50)} / ${f(t.p99)} | ${f(t.best50)} / ${f(t.best99)} | ${f(t.best50 / base.best50)} |`;
const out: string[] = [
  `${Object.keys(files).length} notes, ${queries.length} queries, limit 20, note service (memory), snippets included`,
  '',
  '| search | p50 / p99 ms | fastest of 3: p50 / p99 ms | p50 ratio vs full |',
  '|---|---|---|---|',
];
process.stderr.write('full\n');
const full = await time((q) => service.search(q, 20));
out.push(row('full access', full, full));
for (const [name, scope] of scopes) {
  const see = (p: string) => inScope(scope, p);
  const share = Object.keys(files).filter(see).length / Object.keys(files).length;
  process.stderr.write(`${name}\n`);
  const view = scopedNotes(service, { id: 'k', method: 'api-key', scope });
  const now = await time((q) => view.search(q, 20));
  const before = await time(async (q) => {
    const first = await service.search(q, 20);
    if (first.every((h) => see(h.path))) return first;
    return (await service.search(q, 100)).filter((h) => see(h.path)).slice(0, 20);
  });
  out.push(row(`scoped ${name}, ${(share * 100).toFixed(0)}% visible: now`, now, full));
  out.push(row(`scoped ${name}: before (filter, 100 deep)`, before, full));
  // The first query after a write rebuilds the visible set (one pass over the notes).
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < 30; i++) {
    await service.create(`Inbox/bench-scoped-${name.length}-${i}.md`, `# x\n\n${queries[i]}\n`);
    let t = performance.now();
    await view.search(queries[i]!, 20);
    cold.push(performance.now() - t);
    t = performance.now();
    await view.search(queries[i]!, 20);
    warm.push(performance.now() - t);
  }
  out.push(
    `| scoped ${name}: first query after a write / the same again (median of 30) | ${f(pct(cold, 50))} / ${f(pct(warm, 50))} | | |`,
  );
}
process.stdout.write(`${out.join('\n')}\n`);
