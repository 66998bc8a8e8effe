/**
 * Search speed and size at 10,000 generated notes (bench/generate-vault.ts), against main's
 * search index in the same run (`git show main:core/notes/search.ts`, the all-words BM25 index
 * before issue 26, copied to bench/search-eval/.baseline/, never committed): index build time
 * and heap used by the index, then one client's warm queries (words, questions, typos,
 * prefixes) p50/p99 through the index alone for both and through the note service for Quire
 * (notes in memory, and on disk).
 * Run: `node --expose-gc --import tsx bench/search-eval/speed.ts` (part of `npm run bench:search`).
 * SEARCH_SPEED_NOTES changes the size; SEARCH_SPEED_BASE the git revision of the baseline;
 * SEARCH_SPEED_RUNS the builds of each (median; default 3); SEARCH_SPEED_SERVICE=0 skips the service.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import { searchDocOf } from '../../core/notes/search/fields.ts';
import { createSearchIndex } from '../../core/notes/search.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { noteTitle } from '../../core/notes/title.ts';
import { ensureVault, readVaultFiles } from '../generate-vault.ts';
import { vaultQueries } from './queries.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));
const notes = Number(process.env.SEARCH_SPEED_NOTES ?? 10_000);
const base = process.env.SEARCH_SPEED_BASE ?? 'main';
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

// main's index, as it was.
const baseDir = join(here, '.baseline');
mkdirSync(baseDir, { recursive: true });
const src = execFileSync('git', ['show', `${base}:core/notes/search.ts`], { cwd: repo, encoding: 'utf8' });
writeFileSync(join(baseDir, 'search.ts'), src.replace("'../crypto.ts'", "'../../../core/crypto.ts'"));
// A revision whose index is split into core/notes/search/*.ts: those files too (they import only each other and packages).
for (const part of ['query', 'text', 'vocabulary']) {
  try {
    const text = execFileSync('git', ['show', `${base}:core/notes/search/${part}.ts`], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    mkdirSync(join(baseDir, 'search'), { recursive: true });
    writeFileSync(join(baseDir, 'search', `${part}.ts`), text);
  } catch {
    // Not in that revision (the index was one file then).
  }
}
const baseline = (await import(pathToFileURL(join(baseDir, 'search.ts')).href)) as {
  createSearchIndex: () => {
    put(d: { path: string; title: string; tags: string; text: string }): void;
    query(q: string, limit: number): unknown[];
  };
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

function build<T extends { put(d: never): void }>(
  make: () => T,
  doc: (p: (typeof parsed)[number]) => Parameters<T['put']>[0],
) {
  const before = heap();
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const index = make();
  for (const p of parsed) index.put(doc(p) as never);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu0);
  // CPU time of the process (this thread and the collector's): what the build costs when other work
  // on the machine delays it (wall time then counts the waiting too).
  const cpu = (used.user + used.system) / 1000;
  process.stderr.write(`built in ${ms.toFixed(0)} ms (cpu ${cpu.toFixed(0)} ms)\n`);
  return { index, ms, cpu, mb: (heap() - before) / 1e6 };
}
/**
 * p50/p99 of one pass over the queries (after a warm-up pass), and of the fastest of 3 passes per
 * query (`best`): on a machine shared with other work a query descheduled mid-way shows in the
 * first as the scheduler's delay, not the query's cost; the second keeps the cost.
 */
function time(fn: (q: string) => unknown) {
  for (const q of queries) fn(q);
  const ms: number[] = [];
  const best = queries.map(() => Number.POSITIVE_INFINITY);
  for (let pass = 0; pass < 3; pass++) {
    queries.forEach((q, i) => {
      const t = performance.now();
      fn(q);
      const d = performance.now() - t;
      if (pass === 0) ms.push(d);
      best[i] = Math.min(best[i]!, d);
    });
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99), best50: pct(best, 50), best99: pct(best, 99) };
}

const rows: string[] = [];
const runs = Number(process.env.SEARCH_SPEED_RUNS ?? 3);
type Built = { ms: number; cpu: number; mb: number };
const results = { main: [] as Built[], quire: [] as Built[] };
let mainQ = { p50: 0, p99: 0, best50: 0, best99: 0 };
let quireQ = { p50: 0, p99: 0, best50: 0, best99: 0 };
for (let r = 0; r < runs; r++) {
  process.stderr.write(`build ${r + 1}/${runs}\n`);
  let a: ({ index: { query(q: string, l: number): unknown } } & Built) | null = build(
    baseline.createSearchIndex,
    (p) => ({
      path: p.path,
      title: p.title,
      tags: p.entry.tags.join(' '),
      text: p.text,
    }),
  );
  results.main.push({ ms: a.ms, cpu: a.cpu, mb: a.mb });
  if (r === runs - 1) {
    const ai = a.index;
    mainQ = time((q) => ai.query(q, 20));
  }
  a = null;
  let b: ({ index: ReturnType<typeof createSearchIndex> } & Built) | null = build(createSearchIndex, (p) =>
    searchDocOf(p.entry, p.title, p.text, p.raw),
  );
  results.quire.push({ ms: b.ms, cpu: b.cpu, mb: b.mb });
  if (r === runs - 1) {
    const bi = b.index;
    quireQ = time((q) => bi.query(q, 20));
  }
  b = null;
}
const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const mBuild = med(results.main.map((x) => x.ms));
const qBuild = med(results.quire.map((x) => x.ms));
const mCpu = med(results.main.map((x) => x.cpu));
const qCpu = med(results.quire.map((x) => x.cpu));
const mMem = med(results.main.map((x) => x.mb));
const qMem = med(results.quire.map((x) => x.mb));

const f = (x: number) => x.toFixed(2);
rows.push(
  `${parsed.length} notes, ${queries.length} queries (1-3 words, questions, typos, prefixes), limit 20; medians of ${runs} builds`,
  '',
  '| | main (all words) | issue 26 | ratio |',
  '|---|---|---|---|',
  `| index build ms | ${f(mBuild)} | ${f(qBuild)} | ${f(qBuild / mBuild)} |`,
  `| index build CPU ms | ${f(mCpu)} | ${f(qCpu)} | ${f(qCpu / mCpu)} |`,
  `| index heap + array buffers MB | ${f(mMem)} | ${f(qMem)} | ${f(qMem / mMem)} |`,
  `| query p50 ms (index) | ${f(mainQ.p50)} | ${f(quireQ.p50)} | ${f(quireQ.p50 / mainQ.p50)} |`,
  `| query p99 ms (index) | ${f(mainQ.p99)} | ${f(quireQ.p99)} | ${f(quireQ.p99 / mainQ.p99)} |`,
  `| query p50 ms (index, fastest of 3 per query) | ${f(mainQ.best50)} | ${f(quireQ.best50)} | ${f(quireQ.best50 / mainQ.best50)} |`,
  `| query p99 ms (index, fastest of 3 per query) | ${f(mainQ.best99)} | ${f(quireQ.best99)} | ${f(quireQ.best99 / mainQ.best99)} |`,
);
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
    `| query p50 / p99 ms (note service, notes in memory, with snippets) | - | ${mem} | |\n`,
  );
  log('service (disk)');
  const disk = await serviceTimes(fsNoteStore({ dir, watch: false }));
  process.stdout.write(
    `| query p50 / p99 ms (note service, notes on disk, with snippets) | - | ${disk} | |\n`,
  );
}
