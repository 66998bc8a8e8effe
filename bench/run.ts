/**
 * `npm run bench`: the curated benchmark suite. Each benchmark is measured beside its anchor in the
 * same run (bare node:http for reads, nginx as a reverse proxy for what the relay adds, MiniSearch
 * and Orama for search, the read-and-hash floor for start-up, ...), prints its own section, and
 * adds rows to one summary table: figure, anchor, ratio, target, met. The run (summary first, then
 * every section) is written to bench/results/<date>-suite.md (BENCH_OUT names another file, `-` none).
 *
 *   npm run bench                          # quick: short settings, small vaults, a few minutes
 *   npm run bench -- --full                # full: the sizes BENCHMARKS.md cites (about an hour)
 *   npm run bench -- --only relay,reads    # some benchmarks (quick unless --full)
 *   npm run bench -- --list                # the suite, one line each
 *   npm run bench:scale                    # the start-up figures at 10k, 50k and 100k notes (BENCH_START_SIZES)
 *
 * Benchmarks that need something this machine may lack say so and are skipped: the search quality
 * needs the evaluation vaults (docs/reference/search.md), the warm start a baseline checkout in
 * BENCH_BASE, the runtimes Bun, Deno and workerd, the workspace Chromium. Reads and the relay need
 * wrk and taskset; the relay's anchor needs nginx (Debian: `apt-get install wrk nginx`).
 * Sizes of their own: BENCH_START_SIZES (the start-up's vaults), BENCH_RELIABILITY_CLIENTS, _SECONDS,
 * _WARMUP, _NOTES, _KILLS and RELIABILITY_SEED (bench/reliability/run.ts), BENCH_NGINX (its binary,
 * or 0 for none).
 */

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAllChildren } from './children.ts';
import { filesBench } from './files.ts';
import { httpShareBench } from './http-share.ts';
import { indexScaleBench } from './index-scale.ts';
import { relayOverNginx, relayRounds } from './relay-throughput.ts';
import { reliabilityBench } from './reliability/run.ts';
import { machineInfo, resultFile } from './report.ts';
import { renderRuntimes, runtimeBench } from './runtimes.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const root = join(repo, '.bench-vaults');
const runDir = join(root, `run-${process.pid}`);
const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);

/** One row of the summary: a figure beside its anchor of the same run. */
export interface SummaryRow {
  bench: string;
  figure: string;
  value: string;
  anchor: string;
  anchorValue: string;
  ratio: string;
  target: string;
  met: string;
}

/** What one benchmark gives back: its own markdown section and its rows of the summary. */
interface Outcome {
  section: string;
  rows: SummaryRow[];
}

type Mode = 'quick' | 'full';

interface Bench {
  name: string;
  what: string;
  anchor: string;
  /** Modes it runs in (quick: a short form of it). */
  modes: Mode[];
  /** Why it cannot run here, or null. */
  missing?: () => string | null;
  run: (mode: Mode) => Promise<Outcome>;
}

const has = (cmd: string, args = ['--version']) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const num = (s: string | undefined) => Number((s ?? '').replace(/[,%\s]|ms|µs/g, ''));
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : 'n/a');
const met = (ok: boolean | null) => (ok === null ? '' : ok ? 'yes' : 'no');

/** The cells of the markdown table row whose first cell starts with `label`. */
function cells(section: string, label: string): string[] {
  const line = section.split('\n').find((l) => l.startsWith(`| ${label}`));
  return line
    ? line
        .split('|')
        .map((c) => c.trim().replace(/\*\*/g, ''))
        .slice(1, -1)
    : [];
}

/** Runs a bench script in its own process; resolves with its stdout (its stderr goes to ours). */
function script(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolveOut, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      process.stdout.write(d);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolveOut(out) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

const TSX = ['--import', 'tsx'];
const searchVaults = process.env.SEARCH_EVAL_VAULTS ?? '/tmp/quire-search-eval';
const relayLoad = { connections: 32 };

const suite: Bench[] = [
  {
    name: 'reads',
    what: 'GET routes of the real server (health, a cached note, round robin, cache misses, the gzip list, 304s), wrk pinned',
    anchor: 'bare node:http, same connections, measured right before each route',
    modes: ['quick', 'full'],
    missing: () => (has('wrk', ['-v']) || existsSync('/usr/bin/wrk') ? null : 'wrk is not installed'),
    run: async (mode) => {
      const notes = mode === 'full' ? 10_000 : 1_000;
      const section = await httpShareBench({
        root,
        runDir,
        notes,
        seconds: mode === 'full' ? 5 : 2,
        rounds: mode === 'full' ? 3 : 1,
        connections: relayLoad.connections,
        log: (l) => log(`reads: ${l}`),
      });
      const bare = cells(section, 'bare');
      const row = (label: string, figure: string, target: string, ok: (share: number) => boolean) => {
        const c = cells(section, label);
        const share = num(c[2]);
        return {
          bench: 'reads',
          figure: `${figure}, ${notes.toLocaleString('en-US')} notes: req/s (server CPU µs/req)`,
          value: `${c[1] ?? 'n/a'} (${c[3] ?? 'n/a'})`,
          anchor: 'bare node:http',
          anchorValue: `${bare[1] ?? 'n/a'}${bare[3] ? ` (${bare[3]})` : ''}`,
          ratio: `${c[2] ?? 'n/a'}`,
          target,
          met: met(Number.isFinite(share) ? ok(share) : null),
        };
      };
      return {
        section,
        rows: [
          row('GET /api/v1/health', '`GET /api/v1/health`', '>= 70%', (s) => s >= 70),
          row('GET /api/v1/notes/:path, one note (cached)', 'one note, cached', '>= 50%', (s) => s >= 50),
        ],
      };
    },
  },
  {
    name: 'relay',
    what: 'a read through the relay (memory and Redis queues): the CPU and the 1-connection p50 it adds over a direct read',
    anchor: 'nginx as a reverse proxy in front of the same server, same CPU, same rounds',
    modes: ['quick', 'full'],
    missing: () => (existsSync('/usr/bin/wrk') || has('wrk', ['-v']) ? null : 'wrk is not installed'),
    run: async (mode) => {
      const seconds = mode === 'full' ? 5 : 3;
      const rounds = mode === 'full' ? 3 : 1;
      const [t] = await relayRounds([{ label: 'this tree', dir: repo }], seconds, rounds);
      const lines = [
        `### The relay's added cost per read against nginx's, wrk -t1 -c32 -d${seconds}s on CPU 1, server and proxy on CPU 0, ${rounds} round(s), medians`,
        '',
        '| target | req/s | p50 ms (32 c) | p99 ms | p50 ms (1 c) | server CPU µs/req | proxy CPU µs/req | non-2xx |',
        '|---|---|---|---|---|---|---|---|',
        ...t!.medians.map(
          (r) =>
            `| ${r.label} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.p50one} | ${r.serverUs} | ${r.relayUs} | ${r.non2xx} |`,
        ),
        '',
      ];
      const rows: SummaryRow[] = [];
      const vs = relayOverNginx(t!.rounds);
      if (vs.length === 0) lines.push('nginx not installed (`apt-get install nginx`): no anchor measured.');
      const met15 = (v: number) => met(Number.isFinite(v) ? v <= 1.5 : null);
      for (const r of vs) {
        lines.push(
          `${r.label} against nginx, per round (proxy CPU / server + proxy CPU / added over direct / p50 at 1 connection): ${r.perRound.join(', ')}.`,
        );
        const row = (figure: string, value: string, anchorValue: string, v: number, target: string) => ({
          bench: 'relay',
          figure: `${r.label}: ${figure}`,
          value,
          anchor: 'nginx',
          anchorValue,
          ratio: Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a',
          target,
          met: target === '-' ? '' : met15(v),
        });
        rows.push(
          row(
            'CPU of the proxy process per read',
            `${r.relayUs} µs`,
            `${r.nginxUs} µs`,
            r.proxyRatio,
            '<= 1.5x',
          ),
          row(
            'CPU added per read over direct (server + proxy - direct)',
            `${r.relayAddedUs} µs`,
            `${r.nginxAddedUs} µs`,
            r.addedRatio,
            '<= 1.5x',
          ),
          row(
            'CPU per read, server + proxy',
            `${r.relayTotalUs} µs`,
            `${r.nginxTotalUs} µs`,
            r.totalRatio,
            '-',
          ),
          row(
            'p50 at 1 connection',
            `${r.relayP50ms.toFixed(3)} ms`,
            `${r.nginxP50ms.toFixed(3)} ms`,
            r.p50Ratio,
            '-',
          ),
        );
      }
      return { section: `${lines.join('\n')}\n`, rows };
    },
  },
  {
    name: 'search-quality',
    what: 'hit@5 / MRR@10 of 200 labelled questions over two public vaults, and query latency',
    anchor: 'MiniSearch, Orama (and FlexSearch), default options, same questions',
    modes: ['quick', 'full'],
    missing: () =>
      existsSync(join(searchVaults, 'obsidian-help'))
        ? null
        : `the evaluation vaults are not in ${searchVaults} (docs/reference/search.md, "Evaluation")`,
    run: async () => {
      const out = await script([...TSX, 'bench/search-eval/run.ts']);
      const q = cells(out, 'Quire');
      const rows = ['MiniSearch', 'Orama'].map((name) => {
        const a = cells(out, name);
        return {
          bench: 'search-quality',
          figure: 'hit@5 / MRR@10, all questions',
          value: q[1] ?? 'n/a',
          anchor: a[0] ?? name,
          anchorValue: a[1] ?? 'n/a',
          ratio: ratio(num(q[1]?.split('/')[1]), num(a[1]?.split('/')[1])),
          target: 'Quire ahead; >= 0.92 / >= 0.80',
          met: met(num(q[1]?.split('/')[0]) >= 0.92 && num(q[1]?.split('/')[1]) >= 0.8),
        };
      });
      return { section: `### Search quality\n\n${out}`, rows };
    },
  },
  {
    name: 'search-speed',
    what: 'index build (wall, heap) and warm query p50/p99 on a generated vault',
    anchor: 'MiniSearch and Orama over the same notes and queries',
    modes: ['quick', 'full'],
    run: async (mode) => {
      const notes = mode === 'full' ? 10_000 : 1_000;
      const out = await script(['--expose-gc', ...TSX, 'bench/search-eval/speed.ts'], {
        SEARCH_SPEED_NOTES: String(notes),
        SEARCH_SPEED_RUNS: mode === 'full' ? '3' : '1',
      });
      const rows: SummaryRow[] = [];
      for (const [label, figure] of [
        ['index build ms', 'index build, ms'],
        ['query p50 ms', 'query p50, ms'],
      ] as const) {
        const c = cells(out, label);
        for (const [i, name] of [
          [2, 'MiniSearch'],
          [3, 'Orama'],
        ] as const)
          rows.push({
            bench: 'search-speed',
            figure: `${figure}, ${notes.toLocaleString('en-US')} notes`,
            value: c[1] ?? 'n/a',
            anchor: name,
            anchorValue: c[i] ?? 'n/a',
            ratio: ratio(num(c[1]), num(c[i])),
            target: '-',
            met: '',
          });
      }
      return { section: `### Search speed\n\n${out}`, rows };
    },
  },
  {
    name: 'start',
    what: 'the bundled server as `npm start` runs it: spawn to the first full list (cold, warm), writes, the index work per update',
    anchor: 'the read-and-hash floor (bench/read-hash-floor.mjs: read and SHA-256 every note), same run',
    modes: ['quick', 'full'],
    run: async (mode) => {
      const full = mode === 'full';
      const { section, rows: sizes } = await indexScaleBench({
        root,
        sizes: process.env.BENCH_START_SIZES
          ? process.env.BENCH_START_SIZES.split(',').map((n) => Number(n.trim()))
          : full
            ? [10_000, 50_000]
            : [1_000],
        seed: 42,
        writes: full ? 300 : 50,
        coldRuns: full ? undefined : 1,
        warmRuns: full ? 3 : 1,
        mixSeconds: full ? 10 : 0,
        indexWork: full,
        log: (l) => log(`start: ${l}`),
      });
      return {
        section,
        rows: sizes.map((r) => ({
          bench: 'start',
          figure: `spawn to the first full list, cold, ${r.notes.toLocaleString('en-US')} notes`,
          value: `${r.coldListMs.toFixed(0)} ms`,
          anchor: 'read-and-hash floor',
          anchorValue: `${r.floorMs.toFixed(0)} ms`,
          ratio: ratio(r.coldListMs, r.floorMs),
          target: r.notes === 10_000 ? '< 3,000 ms' : r.notes === 50_000 ? '< 12,000 ms' : '-',
          met:
            r.notes === 10_000
              ? met(r.coldListMs < 3000)
              : r.notes === 50_000
                ? met(r.coldListMs < 12_000)
                : '',
        })),
      };
    },
  },
  {
    name: 'warm-start',
    what: 'spawn to the first full list after a clean stop, 10,000 notes, with the event loop probe',
    anchor: 'the checkout in BENCH_BASE (e.g. main), alternated round by round',
    modes: ['full'],
    missing: () =>
      process.env.BENCH_BASE ? null : 'BENCH_BASE (a baseline checkout with node_modules) is not set',
    run: async () => {
      const out = await script(
        [
          ...TSX,
          'bench/start-ab.mts',
          'warm',
          '10000',
          '4',
          `base=${process.env.BENCH_BASE}`,
          `this=${repo}`,
        ],
        {
          BENCH_ELD: '1',
        },
      );
      return { section: `### Warm start\n\n${out}`, rows: [] };
    },
  },
  {
    name: 'spawn',
    what: 'spawn to health 200 on an empty vault: the release artifact and `npm start`',
    anchor: 'a bare node:http server answering the same path, interleaved',
    modes: ['full'],
    run: async () => {
      execFileSync('npm', ['run', 'release'], { cwd: repo, stdio: 'inherit' });
      const out = await script([...TSX, 'bench/release-start.ts', '7']);
      return { section: `### Spawn to health\n\n${out}`, rows: [] };
    },
  },
  {
    name: 'attachments',
    what: '`GET` of a 256 KiB file, a range, a 304, and a streamed upload',
    anchor: 'a bare node:http file server streaming the same file (bench/files-ceiling-child.ts)',
    modes: ['quick', 'full'],
    run: async (mode) => {
      const full = mode === 'full';
      await mkdir(runDir, { recursive: true });
      const section = await filesBench({
        runDir,
        load: { connections: 32, duration: full ? 10 : 3, warmup: full ? 2 : 1 },
        uploadMiB: full ? 256 : 32,
        header: [],
        log: (l) => log(`attachments: ${l}`),
      });
      const c = cells(section, 'GET 256 KiB');
      return {
        section,
        rows: c.length
          ? [
              {
                bench: 'attachments',
                figure: '`GET` 256 KiB file, req/s',
                value: c[1] ?? 'n/a',
                anchor: 'bare file server',
                anchorValue: c[2] ?? 'n/a',
                ratio: `${c[3] ?? 'n/a'}x`,
                target: '-',
                met: '',
              },
            ]
          : [],
      };
    },
  },
  {
    name: 'history',
    what: 'note updates per second and their p50 with the history on',
    anchor: 'the same writes with the history off, interleaved in one process',
    modes: ['quick', 'full'],
    run: async (mode) => {
      const out = await script([...TSX, 'bench/history.ts'], {
        ROUNDS: mode === 'full' ? '3' : '1',
        ...(mode === 'full' ? {} : { PARTS: 'interleaved' }),
      });
      const rows: SummaryRow[] = [];
      for (const m of out.matchAll(
        /interleaved updates fsync=(\w+): baseline p50 ([\d.]+) ms.*?history p50 ([\d.]+) ms.*?updates\/s ratio ([\d.]+)/g,
      ))
        rows.push({
          bench: 'history',
          figure: `updates/s with history, fsync ${m[1] === 'true' ? 'on' : 'off'} (p50 ms)`,
          value: `p50 ${m[3]} ms`,
          anchor: 'history off',
          anchorValue: `p50 ${m[2]} ms`,
          ratio: `${m[4]}x (updates/s)`,
          target: '>= 0.90x',
          met: met(Number(m[4]) >= 0.9),
        });
      return { section: `### History\n\n${out}`, rows };
    },
  },
  {
    name: 'runtimes',
    what: '`GET` of a note on Bun, Deno and workerd (Miniflare)',
    anchor: 'the same server on Node, interleaved rounds',
    modes: ['full'],
    missing: () =>
      has('bun') && has('deno') ? null : 'Bun or Deno is not installed (tests/runtime/runtimes.ts)',
    run: async () => {
      const seconds = 3;
      const rows = await runtimeBench({ seconds, rounds: 3, connections: 32, log });
      return { section: renderRuntimes(rows, seconds, 32), rows: [] };
    },
  },
  {
    name: 'reliability',
    what: '200 clients for 60 s direct and through the relay, SIGKILLs into writes, restarts, SIGTERM under load',
    anchor: 'the direct server beside the relayed one; counts of errors and violations (target 0)',
    modes: ['full'],
    run: async () => {
      const section = await reliabilityBench([], (l) => log(`reliability: ${l}`));
      return { section, rows: [] };
    },
  },
  {
    name: 'workspace',
    what: "the workspace in Chromium: initial JavaScript, the tree's paint and a note's showing at 10,000 notes",
    anchor: 'a 100-note vault in the same run',
    modes: ['full'],
    missing: () => (has('chromium') ? null : 'chromium is not installed'),
    run: async () => {
      const out = await script([...TSX, 'bench/workspace-shell.ts']);
      return { section: `### The workspace\n\n${out}`, rows: [] };
    },
  },
];

function renderSummary(rows: SummaryRow[]): string {
  return [
    '| bench | figure | value | anchor | anchor value | ratio | target | met |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.bench} | ${r.figure} | ${r.value} | ${r.anchor} | ${r.anchorValue} | ${r.ratio} | ${r.target} | ${r.met} |`,
    ),
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const mode: Mode = argv.includes('--full') ? 'full' : 'quick';
  const onlyArg = argv.find((a) => a.startsWith('--only'));
  const only = onlyArg
    ? (onlyArg.includes('=') ? onlyArg.split('=')[1]! : argv[argv.indexOf(onlyArg) + 1]!).split(',')
    : null;
  if (argv.includes('--list')) {
    for (const b of suite) log(`${b.name.padEnd(15)} [${b.modes.join(', ')}] ${b.what}; anchor: ${b.anchor}`);
    return 0;
  }
  const unknown = only?.filter((n) => !suite.some((b) => b.name === n)) ?? [];
  if (unknown.length) throw new Error(`no benchmark named ${unknown.join(', ')} (npm run bench -- --list)`);
  const chosen = suite.filter((b) => (only ? only.includes(b.name) : b.modes.includes(mode)));
  await mkdir(runDir, { recursive: true });
  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  const info = machineInfo(command);
  const started = Date.now();
  const rows: SummaryRow[] = [];
  const sections: string[] = [];
  const skipped: string[] = [];
  let failed = 0;
  for (const b of chosen) {
    const why = b.missing?.() ?? null;
    if (why) {
      log(`--- ${b.name}: skipped, ${why}`);
      skipped.push(`${b.name}: ${why}`);
      continue;
    }
    log(`--- ${b.name} (${mode}): ${b.what}; anchor: ${b.anchor}`);
    const t0 = Date.now();
    try {
      const o = await b.run(mode);
      rows.push(...o.rows);
      sections.push(
        `## ${b.name}\n\nAnchor: ${b.anchor}. Load average after: ${loadavg()[0]?.toFixed(1)}; ${((Date.now() - t0) / 1000).toFixed(0)} s.\n\n${o.section}`,
      );
      for (const r of o.rows)
        log(
          `${r.bench}: ${r.figure}: ${r.value} against ${r.anchor} ${r.anchorValue} (${r.ratio}; target ${r.target}${r.met ? `, met: ${r.met}` : ''})`,
        );
    } catch (err) {
      failed++;
      const msg = err instanceof Error ? err.message : String(err);
      log(`${b.name} failed: ${msg}`);
      sections.push(`## ${b.name}\n\nFailed: ${msg.split('\n')[0]}\n`);
    } finally {
      killAllChildren();
    }
  }
  const head = [
    `# Benchmark suite, ${mode}, ${info.date.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${info.nproc} CPUs (${info.cpu}), ${info.ramGiB} GiB, node ${info.node}; commit ${info.commit}; load average ${info.loadavg[0]?.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end (the machine is shared: read the same-run ratios). Command: \`${command}\`; ${((Date.now() - started) / 60_000).toFixed(1)} min.`,
    '',
    renderSummary(rows),
    '',
    ...(skipped.length ? ['Skipped:', ...skipped.map((s) => `- ${s}`), ''] : []),
  ].join('\n');
  const report = `${head}\n${sections.join('\n')}`;
  process.stdout.write(`\n${head}\n`);
  const out = process.env.BENCH_OUT ?? resultFile(`suite-${mode}`);
  if (out !== '-') {
    await writeFile(resolve(out), report);
    log(`written to ${out}`);
  }
  return failed ? 1 : 0;
}

let code = 1;
const cleanup = () => {
  killAllChildren();
  rmSync(runDir, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    cleanup();
    process.exit(130);
  });
try {
  code = await main(process.argv.slice(2));
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  cleanup();
}
process.exit(code);
