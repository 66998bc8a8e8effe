/**
 * Security, fourth round (findings 1 and 5): the heap a large note leaves once rewritten and
 * deleted, and the event loop's longest turn during the worst search and the worst write.
 *
 * In-process, as the server runs the notes service (memory store, analyzer threads, no cache,
 * no history): a vault of notes of random words (a large vocabulary), then
 * - eld: `monitorEventLoopDelay` (1 ms resolution) and a 1 ms timer's longest gap while one
 *   search of 60 misspelt 8-letter words runs (SEARCHES of them back to back), and while a 4 MiB
 *   note of distinct words is written; also the histogram's 99th percentile and how many of the
 *   timer's gaps passed 50 ms (on a loaded machine the maximum is mostly the scheduler's);
 * - memory: the heap after two forced collections before and after REWRITES rewrites of that
 *   note and its deletion, once the timed save (`saveCache`, what the server runs every 10 s) has
 *   run; and health's index figure (`memory().search`) at both points.
 *
 * Usage: node --expose-gc --import tsx bench/search-budget.ts [root]   (root: a checkout whose
 * core/ and adapters/ to load, e.g. an older commit's `git archive`; default this one)
 * Env: NOTES (default 2000), REWRITES (50), SEARCHES (5).
 */

import { resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const load = (p: string) => import(pathToFileURL(resolve(root, p)).href);
const { createNoteService } = await load('core/notes/service.ts');
const { memoryNoteStore } = await load('adapters/store/memory-note-store.ts');
const { analyzePool } = await load('adapters/node/analyze-pool.ts');
const { analyzeNote } = await load('core/notes/markdown/analyzer.ts');

const NOTES = Number(process.env.NOTES ?? 2000);
const REWRITES = Number(process.env.REWRITES ?? 50);
const SEARCHES = Number(process.env.SEARCHES ?? 5);
const gc = (globalThis as { gc?: () => void }).gc!;
const MB = 1024 * 1024;

let seed = 12345;
const rnd = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};
const word = (n: number) => {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(rnd() * 26));
  return s;
};
const text = (chars: number) => {
  const out: string[] = [];
  let len = 0;
  while (len < chars) {
    const w = word(6 + Math.floor(rnd() * 5));
    out.push(w);
    len += w.length + 1;
  }
  return out.join(' ');
};

const files: Record<string, string> = {};
for (let i = 0; i < NOTES; i++) files[`n${i}.md`] = `# Note ${i}\n${text(1500)}`;
const pool = analyzePool({ fallback: async (t: string[]) => t.map((x) => analyzeNote(x)) });
const notes = createNoteService({
  store: memoryNoteStore({ files }),
  clock: { now: () => Date.now() },
  analyze: pool.analyze,
});
await notes.load();

/**
 * The event loop's longest turn while `fn` runs: the histogram's max and a 1 ms timer's longest gap;
 * and the first turn alone (from the call to the first timer), which the histogram never sees.
 */
async function eld(fn: () => Promise<unknown>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let gap = 0;
  let over50 = 0;
  const t = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last - 1);
    if (now - last - 1 > 50) over50++;
    last = now;
  }, 1);
  h.enable();
  const started = performance.now();
  // The histogram keeps no delay for its first tick: the turn that starts with `fn` is timed here.
  let firstTurn = 0;
  setTimeout(() => {
    firstTurn = performance.now() - started;
  }, 0);
  await fn();
  const ms = performance.now() - started;
  // A turn for the timers: a last step that ran without one (or a whole run that never yielded) is counted.
  await new Promise((r) => setTimeout(r, 5));
  h.disable();
  clearInterval(t);
  return {
    wallMs: Math.round(ms),
    eldMaxMs: +(h.max / 1e6).toFixed(1),
    maxGapMs: +gap.toFixed(1),
    firstTurnMs: +firstTurn.toFixed(1),
    // On a loaded machine the longest turn is mostly the scheduler's: these say how often.
    eldP99Ms: +(h.percentile(99) / 1e6).toFixed(1),
    turnsOver50: over50,
  };
}

const query = () => Array.from({ length: 60 }, () => word(8)).join(' ');
await notes.search(query(), 20); // the vocabulary's first build
const search = await eld(async () => {
  for (let i = 0; i < SEARCHES; i++) await notes.search(query(), 20);
});

gc();
gc();
const heap0 = process.memoryUsage().heapUsed;
const index0 = notes.memory().search;
let write: Awaited<ReturnType<typeof eld>> | null = null;
const cpu0 = process.cpuUsage();
for (let r = 0; r < REWRITES; r++) {
  const body = text(4 * MB);
  // Making the body left half a million dead words, most of them in the old space (the array held
  // them through a few scavenges): collected first, or the timed write pays for the bench's own
  // garbage (a server parses a request body into one string).
  if (r === 1) gc();
  const run = () => (r === 0 ? notes.create('big.md', body) : notes.update('big.md', { content: body }));
  if (r === 1) write = await eld(run);
  else await run();
  // What the server's timer does every 10 s (here after each rewrite: REWRITES saves of 10 s).
  await notes.saveCache();
}
await notes.remove('big.md');
await notes.saveCache();
const writeCpuMs = Math.round((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000);
gc();
gc();
const heap1 = process.memoryUsage().heapUsed;
const index1 = (notes as { memory: () => { search: number } }).memory().search;
await pool.close();
console.log(
  JSON.stringify({
    root,
    notes: NOTES,
    rewrites: REWRITES,
    search60Typos: search,
    write4MiB: write,
    writeCpuMs,
    heapMB: {
      before: +(heap0 / MB).toFixed(1),
      after: +(heap1 / MB).toFixed(1),
      delta: +((heap1 - heap0) / MB).toFixed(1),
    },
    indexFigureMB: { before: +(index0 / MB).toFixed(1), after: +(index1 / MB).toFixed(1) },
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
process.exit(0);
