/**
 * Issue 17: in-process probe of the note index at scale on the real file stores (no HTTP). One phase
 * per process, so RSS is that phase's own: `cold` (no cache: index, first full list, save the cache)
 * and `warm` (load from the cache, first full list). Reports CPU ms, wall ms, heapUsed and RSS (MB,
 * after a GC when run with --expose-gc), the longest event-loop block during the cache save (a 1 ms
 * timer probe), how long a write started during the save waited, and the work of one update.
 * Usage: node --expose-gc --import tsx bench/index-cache-probe.ts <cold|warm> <vaultDir> <dataDir> [coreRoot]
 * `coreRoot` (default this repository) lets one run compare two checkouts of the code.
 */
import { cpSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [phase, vaultArg, dataArg, rootArg] = process.argv.slice(2);
const root = resolve(rootArg ?? new URL('..', import.meta.url).pathname);
const imp = (p: string) => import(pathToFileURL(join(root, p)).href);
const { createNoteService } = await imp('core/notes/service.ts');
const { fsNoteStore } = await imp('adapters/store/fs-note-store.ts');
const { fsStateStore } = await imp('adapters/store/fs-state-store.ts');

const vault = resolve(vaultArg!);
const data = resolve(dataArg!);
if (phase === 'cold') {
  // Work on a copy of the vault so updates do not change the generated one.
  rmSync(data, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  cpSync(vault, join(data, 'vault'), { recursive: true });
}
const clock = { now: () => Date.now() };
const notes = createNoteService({
  store: fsNoteStore({ dir: join(data, 'vault'), fsync: false }),
  clock,
  state: fsStateStore({ dir: join(data, 'state') }),
});
const gc = (globalThis as { gc?: () => void }).gc;
const mem = () => {
  gc?.();
  const m = process.memoryUsage();
  const mb = (n: number) => +(n / 2 ** 20).toFixed(1);
  return {
    heapMB: mb(m.heapUsed),
    heapTotalMB: mb(m.heapTotal),
    externalMB: mb(m.external),
    rssMB: mb(m.rss),
  };
};
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await notes.load();
const items = notes.list().items.length;
const cpu = process.cpuUsage(cpu0);
const out: Record<string, unknown> = {
  phase,
  items,
  listWallMs: Math.round(performance.now() - t0),
  listCpuMs: Math.round((cpu.user + cpu.system) / 1000),
  ...mem(),
};

/**
 * Runs `fn` while a 1 ms timer records the longest gap between its ticks (the longest block), in
 * wall time and in CPU time of the process (less sensitive to a loaded machine descheduling it).
 */
async function longestBlock<T>(fn: () => Promise<T>): Promise<{ value: T; blockMs: number; cpuMs: number }> {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let max = 0;
  let maxCpu = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    max = Math.max(max, now - last);
    maxCpu = Math.max(maxCpu, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
  }, 1);
  try {
    const value = await fn();
    return { value, blockMs: max, cpuMs: maxCpu };
  } finally {
    clearInterval(timer);
  }
}

if (phase === 'cold') {
  const t = performance.now();
  const s = await longestBlock(() => notes.saveCache());
  out.firstSaveMs = Math.round(performance.now() - t);
  out.firstSaveBlockMs = +s.blockMs.toFixed(1);
  out.firstSaveBlockCpuMs = +s.cpuMs.toFixed(1);
  // Index work of updates (the file write included, fsync off).
  const paths = notes.list().items.map((i: { path: string }) => i.path);
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) {
    const p = paths[(i * 7919) % paths.length]!;
    const body = `# Updated ${i}\n\nSome words [[${paths[(i * 31) % paths.length]!.replace(/\.md$/, '')}]] and more ${i}.\n`;
    const t1 = performance.now();
    await notes.update(p, { content: body });
    ms.push(performance.now() - t1);
  }
  ms.sort((a, b) => a - b);
  out.updateP50Ms = +ms[100]!.toFixed(2);
  // A save after those updates, with one write started meanwhile: how long did the write wait?
  let writeMs = 0;
  const t2 = performance.now();
  const s2 = await longestBlock(async () => {
    const saving = notes.saveCache();
    await new Promise((r) => setTimeout(r, 1));
    const tw = performance.now();
    await notes.update(paths[3]!, { content: '# During the save\n' });
    writeMs = performance.now() - tw;
    await saving;
  });
  out.saveAfterUpdatesMs = Math.round(performance.now() - t2);
  out.saveAfterUpdatesBlockMs = +s2.blockMs.toFixed(1);
  out.saveAfterUpdatesBlockCpuMs = +s2.cpuMs.toFixed(1);
  out.writeDuringSaveMs = +writeMs.toFixed(1);
  await notes.saveCache();
  out.cacheFiles = readdirSync(join(data, 'state')).map(
    (f) => `${f}:${(statSync(join(data, 'state', f)).size / 2 ** 20).toFixed(1)}MB`,
  );
}
console.log(JSON.stringify(out));
process.exit(0);
