/**
 * The warm start in one process, on the real file stores: load from the index cache,
 * first full list, first search, with the event loop's longest delay meanwhile
 * (`monitorEventLoopDelay`, 1 ms resolution; the target is 20 ms at most) and the CPU it took, and
 * heap and RSS after each step. Run a cold phase first (`cold` indexes and saves the cache).
 * Usage: node --expose-gc --import tsx bench/warm-start-probe.ts <cold|warm> <vaultDir> <dataDir> [coreRoot]
 * `coreRoot` (default this repository) measures another checkout's code (e.g. main) on the same vault.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
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
  rmSync(data, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  cpSync(vault, join(data, 'vault'), { recursive: true });
}
const notes = createNoteService({
  store: fsNoteStore({ dir: join(data, 'vault'), fsync: false }),
  clock: { now: () => Date.now() },
  state: fsStateStore({ dir: join(data, 'state') }),
});
const gc = (globalThis as { gc?: () => void }).gc;
const mb = (n: number) => +(n / 2 ** 20).toFixed(1);
const mem = () => {
  gc?.();
  const m = process.memoryUsage();
  return { heapMB: mb(m.heapUsed), externalMB: mb(m.external), rssMB: mb(m.rss) };
};

/**
 * Runs `fn`, measuring wall and CPU ms and the longest event-loop delay meanwhile; also the most
 * CPU time the process spent between two ticks of a 1 ms timer (`maxBlockCpuMs`): on a loaded
 * machine a delay also counts the time the process waited for a core, the CPU between ticks does not.
 */
async function step<T>(fn: () => T | Promise<T>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  // Let the monitor's timer start before the work does.
  await new Promise((r) => setTimeout(r, 5));
  h.enable();
  let lastCpu = process.cpuUsage();
  let maxBlockCpu = 0;
  const timer = setInterval(() => {
    const c = process.cpuUsage(lastCpu);
    maxBlockCpu = Math.max(maxBlockCpu, (c.user + c.system) / 1000);
    lastCpu = process.cpuUsage();
  }, 1);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wallMs = Math.round(performance.now() - t0);
  const cpu = process.cpuUsage(cpu0);
  await new Promise((r) => setTimeout(r, 2));
  clearInterval(timer);
  h.disable();
  return {
    value,
    wallMs,
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    maxDelayMs: +(h.max / 1e6).toFixed(1),
    p99DelayMs: +(h.percentile(99) / 1e6).toFixed(1),
    maxBlockCpuMs: +maxBlockCpu.toFixed(1),
  };
}

const out: Record<string, unknown> = { phase };
const load = await step(() => notes.load());
out.load = { ...load, value: undefined, ...mem() };
const list = await step(() => notes.list().items.length);
out.firstList = { ...list, value: undefined, items: list.value, ...mem() };
const search = await step(() => notes.search('meeting notes', 20));
out.firstSearch = { ...search, value: undefined, hits: (search.value as unknown[]).length, ...mem() };
if (phase === 'cold') {
  const save = await step(() => notes.saveCache());
  out.save = { ...save, value: undefined };
}
console.log(JSON.stringify(out));
process.exit(0);
