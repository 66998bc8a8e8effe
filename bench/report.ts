import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import type { LoadResult, LoadSettings } from './load.ts';
import type { SizeResult } from './results.ts';

/** Where and how a run was made. */
export interface RunInfo {
  date: string;
  node: string;
  nproc: number;
  cpu: string;
  ramGiB: number;
  commit: string;
  command: string;
  load: LoadSettings;
  /** 1-minute load average at the start (and end, once known). */
  loadavg: number[];
  coldRuns: number;
  warmRuns: number;
  updates: number;
}

/** Facts about this machine and checkout. */
export function machineInfo(
  rest: Omit<RunInfo, 'date' | 'node' | 'nproc' | 'cpu' | 'ramGiB' | 'commit' | 'loadavg'>,
): RunInfo {
  let cpu = 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {}
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'core', 'adapters', 'deploy'], {
      encoding: 'utf8',
    });
    if (dirty.trim()) commit += ' + uncommitted changes in core/adapters/deploy';
  } catch {}
  return {
    ...rest,
    date: new Date().toISOString(),
    node: process.version,
    nproc: availableParallelism(),
    cpu,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    commit,
    loadavg: [loadavg()[0] ?? 0],
  };
}

const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
const num = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** One row of the load table. */
function loadRow(size: string, r: LoadResult, ceiling: LoadResult): string {
  const cells = [
    size,
    r.label,
    num(r.rps),
    `${Math.round((100 * r.rps) / ceiling.rps)}%`,
    ms(r.p50),
    ms(r.p99),
    ms(r.max),
    num(r.cpuPerRequestUs),
    `${(r.cpuPerRequestUs / ceiling.cpuPerRequestUs).toFixed(1)}x`,
    `${Math.round(r.cpuLoad * 100)}%`,
    r.loadavg.toFixed(1),
    r.failures ? `**${r.failures}**` : '0',
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The targets, checked against the 10,000-note figures. */
export function targets(sizes: SizeResult[]): [string, string, boolean | null][] {
  const s = sizes.find((x) => x.notes === 10_000);
  if (!s) return [['targets are checked on the 10,000-note vault', 'not run', null]];
  const get = (prefix: string) => s.loads.find((l) => l.label.startsWith(prefix));
  const note = get('GET note (all');
  const list = s.loads.find((l) => l.label === 'GET /notes (node:http client)');
  const l304 = get('GET /notes, If');
  const ratio = note ? note.rps / s.ceiling[0]!.rps : Number.NaN;
  return [
    ['cold index of 10,000 notes < 5 s', sec(s.cold.readyMs), s.cold.readyMs < 5000],
    ['warm restart < 1 s', sec(s.warm.readyMs), s.warm.readyMs < 1000],
    ['RSS after indexing < 300 MB', mb(s.cold.rss), s.cold.rss < 300 * 2 ** 20],
    ['GET note >= 50% of ceiling req/s', `${Math.round(ratio * 100)}%`, ratio >= 0.5],
    ['GET /notes (10k) p50 < 50 ms', `${ms(list?.p50 ?? Number.NaN)} ms`, (list?.p50 ?? Infinity) < 50],
    ['GET /notes 304 p50 < 2 ms', `${ms(l304?.p50 ?? Number.NaN)} ms`, (l304?.p50 ?? Infinity) < 2],
    ['one update, index work < 5 ms', `${ms(s.inproc.update.median)} ms`, s.inproc.update.median < 5],
  ];
}

/** The markdown section of one run. */
export function renderReport(info: RunInfo, sizes: SizeResult[], notes: string[]): string {
  const head = `| | ${sizes.map((s) => `${num(s.notes)} notes`).join(' | ')} |`;
  const sep = `|---|${sizes.map(() => '---').join('|')}|`;
  const row = (label: string, f: (s: SizeResult) => string) => `| ${label} | ${sizes.map(f).join(' | ')} |`;
  const runs = (xs: number[]) =>
    xs.length > 1 ? ` (runs: ${xs.map((x) => (x / 1000).toFixed(2)).join(', ')})` : '';
  const lines = [
    `## Run of ${info.date.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- Machine: ${info.nproc} CPUs (${info.cpu}), ${info.ramGiB} GiB RAM; Node ${info.node}; commit ${info.commit}`,
    `- Command: \`${info.command}\``,
    `- Load: autocannon, ${info.load.connections} connections, ${info.load.duration} s measured after ${info.load.warmup} s warm-up, ` +
      'runner and server in separate processes on the same machine; server LOG_LEVEL=warn, ' +
      'SERVICE_AUTH_MODE=none and RATE_LIMIT=0 (authentication is not part of these figures).',
    `- Cold index: median of ${info.coldRuns} run(s); warm restart: median of ${info.warmRuns}; updates: ${info.updates} sequential PUTs after 50 unmeasured (in-process: after 100).`,
    '- Ceiling: a bare node:http server answering a small JSON body in its own process, same load settings, ' +
      "measured right before each vault's routes; each vault's percentages are of its own ceiling rows.",
    `- Machine load average (1 min) at start / end: ${info.loadavg.map((x) => x.toFixed(1)).join(' / ')}; other work on the machine lowers req/s, less so CPU µs per request.`,
    '',
    head,
    sep,
    row('vault', (s) => `${(s.vaultBytes / 1e6).toFixed(1)} MB, ${num(s.folders)} folders`),
    row('cold index (startServer to ready)', (s) => `${sec(s.cold.readyMs)}${runs(s.cold.runs)}`),
    row('cold index CPU time, all threads', (s) => sec(s.cold.cpuMs)),
    row('cold index rate', (s) => `${num(s.notes / (s.cold.readyMs / 1000))} notes/s`),
    row('process spawn to ready, cold / warm', (s) => `${sec(s.cold.wallMs)} / ${sec(s.warm.wallMs)}`),
    row('RSS after cold index (peak during it)', (s) => `${mb(s.cold.rss)} (${mb(s.cold.maxRss)})`),
    row('warm restart (index cache present)', (s) => `${sec(s.warm.readyMs)}${runs(s.warm.runs)}`),
    row('warm restart CPU time, all threads', (s) => sec(s.warm.cpuMs)),
    row('RSS after warm restart / idle after settle', (s) => `${mb(s.warm.rss)} / ${mb(s.idleRss)}`),
    row('GET /notes body size', (s) => `${(s.listBytes / 1e6).toFixed(1)} MB`),
    row(
      'PUT note over HTTP, median / p99 / max',
      (s) => `${ms(s.put.median)} / ${ms(s.put.p99)} / ${ms(s.put.max)} ms`,
    ),
    row('GET /notes right after a write, median', (s) => `${ms(s.listAfterWrite.median)} ms`),
    row('stop after writes (saves index cache)', (s) => sec(s.stopMs)),
    row('RSS at end / peak over the run', (s) => `${mb(s.endRss)} / ${mb(s.endMaxRss)}`),
    row('index cache file', (s) => mb(s.cold.cacheBytes)),
    row('in-process: load() from memory store', (s) => sec(s.inproc.loadMs)),
    row('in-process: live heap after load() (after GC)', (s) => mb(s.inproc.heapAfterLoad)),
    row('in-process: saveCache() (event loop blocked)', (s) => sec(s.inproc.saveCacheMs)),
    row('in-process: analyzeMarkdown of every note', (s) => sec(s.inproc.parseAllMs)),
    row(
      'in-process: update() median / p99 / max',
      (s) => `${ms(s.inproc.update.median)} / ${ms(s.inproc.update.p99)} / ${ms(s.inproc.update.max)} ms`,
    ),
    row('in-process: of which parsing, median', (s) => `${ms(s.inproc.parse.median)} ms`),
    row('in-process: list() after a write, median', (s) => `${ms(s.inproc.listRebuild.median)} ms`),
    '',
    '| vault | route | req/s | of ceiling | p50 ms | p99 ms | max ms | server CPU µs/req | CPU vs ceiling | server busy | load avg | failed |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...sizes.flatMap((s) => [...s.ceiling, ...s.loads].map((r) => loadRow(num(s.notes), r, s.ceiling[0]!))),
    '',
    '| target (10,000 notes) | measured | met |',
    '|---|---|---|',
    ...targets(sizes).map(
      ([t, v, ok]) => `| ${t} | ${v} | ${ok === null ? '-' : ok ? 'met' : '**not met**'} |`,
    ),
  ];
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  return `${lines.join('\n')}\n`;
}

/**
 * Where a run is written unless BENCH_OUT says otherwise: `bench/results/<date>-<name>.md` (UTC date).
 * BENCHMARKS.md is the current table, kept by hand; it links the result files.
 */
export function resultFile(name: string, now = new Date()): string {
  return join(import.meta.dirname, 'results', `${now.toISOString().slice(0, 10)}-${name}.md`);
}

/** Appends `section` to a result file, creating it with a title when missing. */
export async function appendResults(file: string, section: string): Promise<void> {
  if (!existsSync(file)) await writeFile(file, `# ${basename(file, '.md')}\n`);
  await appendFile(file, `\n${section}`);
}
