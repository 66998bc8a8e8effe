/**
 * Search speed and size on a generated vault (bench/generate-vault.ts, 10,000 notes by default),
 * beside MiniSearch and Orama (bench/search-eval/engines.ts: default options, title and text) over
 * the same notes and the same queries, in the same run: index build time (wall and CPU), heap used
 * by the index, then one client's warm queries (words, questions, typos, prefixes) p50/p99, through
 * Quire's index alone and through the note service (notes in memory, and on disk).
 * Run: `node --expose-gc --import tsx bench/search-eval/speed.ts` (the suite's `search-speed`).
 * SEARCH_SPEED_NOTES changes the size; SEARCH_SPEED_RUNS the builds of each (median; default 3);
 * SEARCH_SPEED_SERVICE=0 skips the service.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { noteTitle } from '../../core/notes/title.ts';
import { searchDocOf } from '../../core/search/lexical/fields.ts';
import { createSearchIndex } from '../../core/search/lexical/search-index.ts';
import { ensureVault, readVaultFiles } from '../generate-vault.ts';
import { type Engine, minisearch, orama } from './engines.ts';
import { vaultQueries } from './queries.ts';

const notes = Number(process.env.SEARCH_SPEED_NOTES ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(((xs.length - 1) * p) / 100)] ?? 0;
const heap = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  // Postings are Uint8Arrays: their bytes count in arrayBuffers, not in heapUsed.
  return m.heapUsed + m.arrayBuffers;
};

const { dir } = await ensureVault(join(tmpdir(), 'quire-bench-vaults'), notes);
const { files } = await readVaultFiles(dir);
process.stderr.write('analyzing\n');
const parsed = Object.entries(files).map(([path, raw]) => {
  const a = analyzeNote(raw);
  const entry = { path, tags: a.tags, frontmatter: a.frontmatter, bodyStart: a.bodyStart };
  return { path, raw, text: a.text, entry, title: noteTitle(path, a.title) };
});

// Queries from the vault's own words: 1 to 3 words, a question, a typo, a prefix.
const queries = vaultQueries(parsed.map((p) => p.text));

type Built = { ms: number; cpu: number; mb: number };
type Query = (q: string) => unknown;

/** Builds one index (`make` returns its query function), timed: wall, CPU of the process, heap. */
async function build(name: string, make: () => Promise<Query> | Query): Promise<{ query: Query } & Built> {
  const before = heap();
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const query = await make();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu0);
  // CPU time of the process (this thread and the collector's): what the build costs when other work
  // on the machine delays it (wall time then counts the waiting too).
  const cpu = (used.user + used.system) / 1000;
  process.stderr.write(`${name}: built in ${ms.toFixed(0)} ms (cpu ${cpu.toFixed(0)} ms)\n`);
  return { query, ms, cpu, mb: (heap() - before) / 1e6 };
}

/**
 * p50/p99 of one pass over the queries (after a warm-up pass), and of the fastest of 3 passes per
 * query (`best`): on a machine shared with other work a query descheduled mid-way shows in the
 * first as the scheduler's delay, not the query's cost; the second keeps the cost.
 */
async function time(fn: Query) {
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

const engine =
  (e: Engine): Query =>
  (q) =>
    e.search(q, 20);
const makers: [string, () => Promise<Query> | Query][] = [
  [
    'Quire',
    () => {
      const index = createSearchIndex();
      for (const p of parsed) index.put(searchDocOf(p.entry, p.title, p.text, p.raw));
      return (q) => index.query(q, 20);
    },
  ],
  ['MiniSearch', () => engine(minisearch(files))],
  ['Orama', async () => engine(await orama(files))],
];
const runs = Number(process.env.SEARCH_SPEED_RUNS ?? 3);
const builds = new Map<string, Built[]>();
const times = new Map<string, Awaited<ReturnType<typeof time>>>();
for (let r = 0; r < runs; r++) {
  process.stderr.write(`build ${r + 1}/${runs}\n`);
  // Each engine in turn within a round, so a loaded minute weighs on all of them.
  for (const [name, make] of makers) {
    let b: ({ query: Query } & Built) | null = await build(name, make);
    builds.set(name, [...(builds.get(name) ?? []), { ms: b.ms, cpu: b.cpu, mb: b.mb }]);
    if (r === runs - 1) times.set(name, await time(b.query));
    b = null;
  }
}
const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const f = (x: number) => x.toFixed(2);
const names = makers.map(([n]) => n);
const buildRow = (label: string, pick: (b: Built) => number) =>
  `| ${label} | ${names.map((n) => f(med(builds.get(n)!.map(pick)))).join(' | ')} |`;
const queryRow = (label: string, pick: (t: Awaited<ReturnType<typeof time>>) => number) =>
  `| ${label} | ${names.map((n) => f(pick(times.get(n)!))).join(' | ')} |`;
const rows = [
  `${parsed.length} notes, ${queries.length} queries (1-3 words, questions, typos, prefixes), limit 20; medians of ${runs} builds; Quire's index alone here (the note service below), MiniSearch and Orama with default options over title and text`,
  '',
  `| | ${names.join(' | ')} |`,
  `|---|${names.map(() => '---').join('|')}|`,
  buildRow('index build ms', (b) => b.ms),
  buildRow('index build CPU ms', (b) => b.cpu),
  buildRow('index heap + array buffers MB', (b) => b.mb),
  queryRow('query p50 ms', (t) => t.p50),
  queryRow('query p99 ms', (t) => t.p99),
  queryRow('query p50 ms, fastest of 3 per query', (t) => t.best50),
  queryRow('query p99 ms, fastest of 3 per query', (t) => t.best99),
];
process.stdout.write(`${rows.join('\n')}\n`);

// The whole search path (parse, rank, phrase and proximity check, snippets) through the note
// service: notes in memory, then notes on disk (the texts of the candidates are read per query).
const log = (m: string) => process.stderr.write(`${m}\n`);
async function serviceTimes(store: Parameters<typeof createNoteService>[0]['store']) {
  const service = createNoteService({ store, clock: { now: () => Date.now() } });
  await service.load();
  for (const q of queries) await service.search(q, 20);
  const ms: number[] = [];
  const best = queries.map(() => Number.POSITIVE_INFINITY);
  for (let pass = 0; pass < 3; pass++) {
    for (let i = 0; i < queries.length; i++) {
      const t = performance.now();
      await service.search(queries[i]!, 20);
      const d = performance.now() - t;
      if (pass === 0) ms.push(d);
      best[i] = Math.min(best[i]!, d);
    }
  }
  const g = (x: number) => x.toFixed(2);
  return `${g(pct(ms, 50))} / ${g(pct(ms, 99))} (fastest of 3: ${g(pct(best, 50))} / ${g(pct(best, 99))})`;
}
if (process.env.SEARCH_SPEED_SERVICE !== '0') {
  log('service (memory)');
  const mem = await serviceTimes(memoryNoteStore({ files }));
  process.stdout.write(
    `| query p50 / p99 ms (note service, notes in memory, with snippets) | ${mem} | | |\n`,
  );
  log('service (disk)');
  const disk = await serviceTimes(fsNoteStore({ dir, watch: false }));
  process.stdout.write(`| query p50 / p99 ms (note service, notes on disk, with snippets) | ${disk} | | |\n`);
}
