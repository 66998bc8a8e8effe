/**
 * The whole note list's two ways (adapters/http/list/full-list.ts) side by side, in one process
 * over one note service: the chunked accelerator (LIST_CHUNKS, the default) and the plain way
 * (encoded whole once per index version). Per round: one note updated, then `GET /api/v1/notes`
 * with gzip from each app, alternated; the process's CPU (every thread: deflates run on the pool)
 * and the wall time of each list, and the event loop's longest delay during it. Medians.
 *
 * Usage: npx tsx bench/list-ways.ts [notes=10000] [rounds=15]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp } from '../adapters/http/app.ts';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../adapters/store/memory-state-store.ts';
import { createNoteService } from '../core/notes/service.ts';
import { silentLogger } from '../tests/helpers/logger.ts';
import { ensureVault, readVaultFiles } from './generate-vault.ts';

const notesWanted = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 15);
const { dir } = await ensureVault(process.env.BENCH_VAULTS ?? '/work/bench-vaults', notesWanted, 42);
const { manifest, files } = await readVaultFiles(dir);
const clock = { now: () => Date.now() };
const notes = createNoteService({
  store: memoryNoteStore({ files }),
  clock,
  state: memoryStateStore(),
  logger: silentLogger,
});
await notes.load();
const base = { notes, version: '0.0.0-bench', clock, logger: silentLogger, instanceId: 'bench' };
const apps = { chunked: createApp(base), plain: createApp({ ...base, listChunks: false }) };

const get = async (app: ReturnType<typeof createApp>) => {
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  const cpu = process.cpuUsage();
  const t = performance.now();
  const res = await app.request('http://127.0.0.1/api/v1/notes', { headers: { 'accept-encoding': 'gzip' } });
  const bytes = (await res.arrayBuffer()).byteLength;
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  eld.disable();
  return { wall, cpu: (used.user + used.system) / 1000, eld: eld.max / 1e6, bytes };
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The first list of each (a cold build) is measured apart.
const first = { chunked: await get(apps.chunked), plain: await get(apps.plain) };
const seen: Record<'chunked' | 'plain', { wall: number; cpu: number; eld: number; bytes: number }[]> = {
  chunked: [],
  plain: [],
};
for (let r = 0; r < rounds; r++) {
  const path = manifest.paths[(r * 7919) % manifest.paths.length]!;
  await notes.update(path, { content: `${files[path]}\nEdited in round ${r}.` });
  const order = r % 2 === 0 ? (['chunked', 'plain'] as const) : (['plain', 'chunked'] as const);
  for (const way of order) seen[way].push(await get(apps[way]));
}
const row = (way: 'chunked' | 'plain') => {
  const s = seen[way];
  return `| ${way} | ${first[way].wall.toFixed(0)} / ${first[way].cpu.toFixed(0)} | ${median(s.map((x) => x.wall)).toFixed(1)} | ${median(s.map((x) => x.cpu)).toFixed(1)} | ${median(s.map((x) => x.eld)).toFixed(1)} | ${(median(s.map((x) => x.bytes)) / 1024).toFixed(0)} |`;
};
process.stdout.write(
  `${manifest.notes} notes, ${rounds} rounds, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}\n` +
    '| way | first list wall / CPU ms | list after a write, wall ms | CPU ms | loop delay max ms | gzip KiB |\n|---|---|---|---|---|---|\n' +
    `${row('chunked')}\n${row('plain')}\n` +
    `plain / chunked after a write: wall ${(median(seen.plain.map((x) => x.wall)) / median(seen.chunked.map((x) => x.wall))).toFixed(1)}x, CPU ${(median(seen.plain.map((x) => x.cpu)) / median(seen.chunked.map((x) => x.cpu))).toFixed(1)}x\n`,
);
process.exit(0);
