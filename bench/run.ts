/**
 * `npm run bench`: generates vaults (once, under .bench-vaults/), measures indexing, restart,
 * HTTP reads and writes against a bare node:http ceiling, prints a markdown report and writes
 * it to bench/results/<date>-bench.md (BENCHMARKS.md, the current table, is kept by hand).
 *
 * Env: BENCH_SIZES (default 1000,10000), BENCH_DURATION (s, default 10), BENCH_WARMUP (s, 2),
 * BENCH_CONNECTIONS (32), BENCH_COLD_RUNS (3 up to 10,000 notes, else 1), BENCH_WARM_RUNS (3),
 * BENCH_UPDATES (200), BENCH_SEED (42), BENCH_SETTLE_MS (2000), BENCH_OUT (file, or - for none),
 * BENCH_RELAY (0 skips the relay figures), BENCH_RUNTIMES (0 skips the Node/Bun/Deno/workerd
 * figures; BENCH_RUNTIME_SECONDS, default 3, and BENCH_RUNTIME_ROUNDS, default 3), BENCH_RELIABILITY
 * (0 skips the reliability long forms, `only` runs nothing else; see bench/reliability/run.ts),
 * BENCH_INDEX (0 skips the issue-17 index-at-scale figures, `only` runs nothing else; BENCH_INDEX_SIZES,
 * default 1000,10000,50000; BENCH_INDEX_WRITES, default 300; BENCH_INDEX_COLD_RUNS, default 3 up to
 * 10,000 notes, else 1; BENCH_INDEX_WARM_RUNS, default 3; BENCH_INDEX_MIX_SECONDS, default 10, 0 skips the
 * read-and-write mix; BENCH_INDEX_WORK=0 skips the in-process index work; see bench/index-scale.ts;
 * `npm run bench:scale` is BENCH_INDEX=only at 10,000, 50,000 and 100,000 notes, printed, not appended).
 * BENCH_ONLY=http (only the wrk read-route shares of issue 18, bench/http-share.ts), BENCH_HTTP (0 skips them),
 * BENCH_HTTP_NOTES (10000), BENCH_HTTP_SECONDS (5 per wrk run), BENCH_HTTP_ROUNDS (3 bare/route pairs per route).
 * BENCH_FILES (0 skips the attachments figures, `only` runs nothing else; BENCH_FILES_UPLOAD_MIB, 256).
 */

import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCeiling } from './ceiling.ts';
import { killAllChildren } from './children.ts';
import { filesBench } from './files.ts';
import { httpShareBench } from './http-share.ts';
import { indexScaleBench } from './index-scale.ts';
import type { LoadSettings } from './load.ts';
import { type RelayBenchResult, relayBench } from './relay-throughput.ts';
import { reliabilityBench } from './reliability/run.ts';
import { appendResults, machineInfo, renderReport, resultFile, targets } from './report.ts';
import type { SizeResult } from './results.ts';
import { renderRuntimes, runtimeBench } from './runtimes.ts';
import { measureSize } from './suite.ts';

const env = process.env;
const int = (name: string, def: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
};

const repo = fileURLToPath(new URL('..', import.meta.url));
const root = join(repo, '.bench-vaults');
const runDir = join(root, `run-${process.pid}`);
const sizes = (env.BENCH_SIZES ?? '1000,10000')
  .split(',')
  .map((s) => Number(s.trim().replace(/_/g, '')))
  .filter((n) => Number.isInteger(n) && n > 0);
const load: LoadSettings = {
  connections: int('BENCH_CONNECTIONS', 32),
  duration: int('BENCH_DURATION', 10),
  warmup: int('BENCH_WARMUP', 2),
};
const warmRuns = Math.max(1, int('BENCH_WARM_RUNS', 3));
const updates = Math.max(1, int('BENCH_UPDATES', 200));
const seed = int('BENCH_SEED', 42);
const out = env.BENCH_OUT ?? resultFile('bench');
const coldRunsFor = (notes: number) => Math.max(1, int('BENCH_COLD_RUNS', notes <= 10_000 ? 3 : 1));
const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);

let stopCeiling = async () => {};
const cleanup = () => {
  killAllChildren();
  rmSync(runDir, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: stopping children and removing ${runDir}`);
    cleanup();
    process.exit(130);
  });
}

/** The relay table: each target against direct, measured in the same run. */
function renderRelay(rows: RelayBenchResult[]): string {
  const base = rows[0]!;
  const lines = [
    'Relay (issue 32 targets: through-relay req/s >= 60% of direct on memory, 50% on Redis, < 0.3 ms added p50 at 1 connection); wrk, 32 connections, medians of rounds:',
    '',
    '| target | req/s | of direct | p50 ms | p99 ms | p50 ms (1 c) | added p50 ms (1 c) | server / relay CPU µs/req | non-2xx |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const share = Math.round((r.rps / base.rps) * 100);
    const added = ((r.p50one ?? 0) - (base.p50one ?? 0)).toFixed(3);
    lines.push(
      `| ${r.label} | ${r.rps.toLocaleString('en-US')} | ${share}% | ${r.p50} | ${r.p99} | ${r.p50one} | ${added} | ${r.serverUs} / ${r.relayUs} | ${r.non2xx} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The reliability long forms (bench/reliability/run.ts) as a section of their own. */
async function reliability(command: string): Promise<string> {
  const info = machineInfo({ command, load, coldRuns: 0, warmRuns: 0, updates: 0 });
  const header = [
    `Machine: ${info.nproc} CPUs (${info.cpu}), ${info.ramGiB} GiB, node ${info.node}; commit ${info.commit}; load average at start ${info.loadavg[0]?.toFixed(1)} (the machine is shared).`,
    `Command: \`${command}\`.`,
  ];
  return reliabilityBench(header, (l) => log(`reliability: ${l}`));
}

/** The attachments figures (bench/files.ts) as a section of their own. */
async function files(command: string): Promise<string> {
  const info = machineInfo({ command, load, coldRuns: 0, warmRuns: 0, updates: 0 });
  await mkdir(runDir, { recursive: true });
  const header = [
    `Machine: ${info.nproc} CPUs (${info.cpu}), ${info.ramGiB} GiB, node ${info.node}; commit ${info.commit}; ${info.date}; load average at start ${info.loadavg[0]?.toFixed(1)} (the machine is shared).`,
    `Command: \`${command}\`.`,
  ];
  return filesBench({ runDir, load, uploadMiB: int('BENCH_FILES_UPLOAD_MIB', 256), header, log });
}

async function main(): Promise<number> {
  const command0 = `${Object.entries(env)
    .filter(([k]) => k.startsWith('BENCH_') || k === 'RELIABILITY_SEED')
    .map(([k, v]) => `${k}=${v} `)
    .join('')}npm run bench`;
  if (env.BENCH_FILES === 'only') {
    const section = await files(command0);
    process.stdout.write(`\n${section}\n`);
    if (out !== '-') await appendResults(resolve(out), section);
    return 0;
  }
  if (env.BENCH_RELIABILITY === 'only') {
    const section = await reliability(command0);
    process.stdout.write(`\n${section}\n`);
    if (out !== '-') await appendResults(resolve(out), section);
    return section.includes('Violations:') ? 1 : 0;
  }
  // Issue 17: the note index at 1k/10k/50k against the read-and-hash floor (bench/index-scale.ts).
  const indexScale = () =>
    indexScaleBench({
      root,
      sizes: (env.BENCH_INDEX_SIZES ?? '1000,10000,50000').split(',').map((s) => Number(s.trim())),
      seed,
      writes: int('BENCH_INDEX_WRITES', 300),
      coldRuns: env.BENCH_INDEX_COLD_RUNS ? int('BENCH_INDEX_COLD_RUNS', 1) : undefined,
      warmRuns: int('BENCH_INDEX_WARM_RUNS', 3),
      mixSeconds: int('BENCH_INDEX_MIX_SECONDS', 10),
      indexWork: env.BENCH_INDEX_WORK !== '0',
      log: (l) => log(`index: ${l}`),
    });
  if (env.BENCH_INDEX === 'only') {
    const section = `${command0}\n\n${await indexScale()}`;
    process.stdout.write(`\n${section}\n`);
    if (out !== '-') await appendResults(resolve(out), section);
    return 0;
  }
  if (sizes.length === 0) throw new Error('BENCH_SIZES names no vault size');
  await mkdir(runDir, { recursive: true });
  const http = () =>
    httpShareBench({
      root,
      runDir,
      notes: int('BENCH_HTTP_NOTES', 10_000),
      seconds: int('BENCH_HTTP_SECONDS', 5),
      rounds: Math.max(1, int('BENCH_HTTP_ROUNDS', 3)),
      connections: load.connections,
      log: (l) => log(`http: ${l}`),
    });
  if (env.BENCH_ONLY === 'http') {
    const info = machineInfo({ command: command0, load, coldRuns: 0, warmRuns: 0, updates: 0 });
    const head = `## Read-route run (issue 18), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC\n\nMachine: ${info.nproc} CPUs (${info.cpu}), ${info.ramGiB} GiB, node ${info.node}; commit ${info.commit}; ${new Date().toISOString()}; load average at start ${info.loadavg[0]?.toFixed(1)} (the machine is shared).\nCommand: \`${command0}\`.\n\n`;
    const section = head + (await http());
    process.stdout.write(`\n${section}\n`);
    if (out !== '-') await appendResults(resolve(out), section);
    return 0;
  }
  const command = `${Object.entries(env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v} `)
    .join('')}npm run bench`;
  const info = machineInfo({ command, load, coldRuns: coldRunsFor(Math.min(...sizes)), warmRuns, updates });
  log(`${info.nproc} CPUs, ${info.cpu}, node ${info.node}; sizes ${sizes.join(', ')}`);
  const ceilingServer = await startCeiling(load, log);
  stopCeiling = () => ceilingServer.stop();
  const results: SizeResult[] = [];
  const notes: string[] = [];
  for (const notesCount of sizes) {
    log(`--- ${notesCount} notes`);
    try {
      results.push(
        await measureSize({
          root,
          runDir,
          notes: notesCount,
          seed,
          load,
          coldRuns: coldRunsFor(notesCount),
          warmRuns,
          updates,
          settleMs: int('BENCH_SETTLE_MS', 2000),
          ceiling: () => ceilingServer.measure(),
          log,
        }),
      );
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      log(`${notesCount} notes failed: ${msg}`);
      notes.push(`${notesCount} notes: the run failed: ${msg.split('\n')[0]}`);
    }
  }
  if (sizes.some((n) => coldRunsFor(n) !== info.coldRuns)) {
    notes.push(`Cold index runs per size: ${sizes.map((n) => `${n}: ${coldRunsFor(n)}`).join(', ')}.`);
  }
  if (results.length === 0) return 1;
  info.loadavg.push(loadavg()[0] ?? 0);
  await stopCeiling();
  let section = renderReport(info, results, notes);
  if (env.BENCH_RELAY !== '0') {
    log('--- relay: GET /api/v1/notes/:path direct and through the relay');
    section += `\n${renderRelay(await relayBench(int('BENCH_DURATION', 10)))}`;
  }
  if (env.BENCH_RUNTIMES !== '0') {
    log('--- runtimes: GET /api/v1/notes/:path on Node, Bun, Deno and workerd');
    const seconds = int('BENCH_RUNTIME_SECONDS', 3);
    const rows = await runtimeBench({
      seconds,
      rounds: Math.max(1, int('BENCH_RUNTIME_ROUNDS', 3)),
      connections: load.connections,
      log,
    });
    section += `\n${renderRuntimes(rows, seconds, load.connections)}`;
  }
  if (env.BENCH_INDEX !== '0') section += `\n${await indexScale()}`;
  if (env.BENCH_HTTP !== '0') section += `\n${await http()}`;
  if (env.BENCH_FILES !== '0') section += `\n${await files(command0)}`;
  if (env.BENCH_RELIABILITY !== '0') section += `\n${await reliability(command0)}`;
  process.stdout.write(`\n${section}\n`);
  for (const [t, v, ok] of targets(results)) {
    log(`${ok === null ? 'n/a' : ok ? 'MET    ' : 'NOT MET'}  ${t}: ${v}`);
  }
  if (out !== '-') {
    await appendResults(resolve(out), section);
    log(`written to ${out}`);
  }
  return notes.some((n) => n.includes('failed')) ? 1 : 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  cleanup();
}
process.exit(code);
