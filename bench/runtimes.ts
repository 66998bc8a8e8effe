/**
 * Runtimes: requests/s of `GET /api/v1/notes/:path` on Node, Bun, Deno and workerd in one run,
 * each serving the same app over a loopback socket with 100 notes created through the API.
 * Rounds are interleaved (node, bun, deno, workerd, node, ...) so a noisy moment hits every
 * runtime alike; the table shows medians over the rounds and the ratio to Node's median.
 * Part of `npm run bench`; alone: `npx tsx bench/runtimes.ts` (writes bench/results/<date>-runtimes.md).
 * Env: BENCH_RUNTIME_SECONDS (3), BENCH_RUNTIME_ROUNDS (3), BENCH_CONNECTIONS (32), BENCH_OUT.
 */
import { resolve } from 'node:path';
import type { RunningRuntime } from '../tests/runtime/contract.ts';
import { startBun, startDeno, startNode, startWorkerd } from '../tests/runtime/runtimes.ts';
import { median, runLoad } from './load.ts';
import { appendResults, machineInfo, resultFile } from './report.ts';

const NOTES = 100;

/** One runtime's figures over the rounds. */
export interface RuntimeBenchResult {
  runtime: string;
  rps: number[];
  p50: number[];
  p99: number[];
  failures: number;
}

/** Creates the notes through the API and returns the encoded request paths. */
async function seed(rt: RunningRuntime): Promise<{ key: string; paths: string[] }> {
  const key = ((await (await fetch(`${rt.url}/api/v1/system/setup`)).json()) as any).data.apiKey as string;
  const headers = { 'x-service-key': key, 'content-type': 'application/json' };
  const paths: string[] = [];
  for (let i = 0; i < NOTES; i++) {
    const path = `bench/n${String(i).padStart(3, '0')}.md`;
    const body = `# Note ${i}\n\n${'Some words about compost and soil. '.repeat(30)}\n\nSee [[n${String((i + 1) % NOTES).padStart(3, '0')}]]. #bench\n`;
    const res = await fetch(`${rt.url}/api/v1/notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path, content: body }),
    });
    if (res.status !== 201) throw new Error(`${rt.runtime}: seeding answered ${res.status}`);
    paths.push(`/api/v1/notes/${encodeURIComponent(path)}`);
  }
  return { key, paths };
}

/** Starts the four runtimes, seeds them, and measures `rounds` interleaved rounds. */
export async function runtimeBench(opts: {
  seconds: number;
  rounds: number;
  connections: number;
  log: (line: string) => void;
}): Promise<RuntimeBenchResult[]> {
  const started: RunningRuntime[] = [];
  try {
    // Warnings only (a log line per request would measure the pipe), open-port pairing everywhere.
    const quiet = { quiet: true, env: { PAIRING_MODE: 'open-port' } };
    for (const start of [
      () => startNode(quiet),
      () => startBun(quiet),
      () => startDeno(quiet),
      () => startWorkerd(),
    ]) {
      const rt = await start();
      started.push(rt);
      opts.log(`${rt.runtime} listening on ${rt.url}`);
    }
    const targets = await Promise.all(started.map(async (rt) => ({ rt, ...(await seed(rt)) })));
    const results = targets.map(({ rt }) => ({
      runtime: rt.runtime,
      rps: [],
      p50: [],
      p99: [],
      failures: 0,
    }));
    for (let round = 0; round < opts.rounds; round++) {
      for (const [i, t] of targets.entries()) {
        const r = await runLoad(
          t.rt.runtime,
          { url: t.rt.url, paths: t.paths, headers: { 'x-service-key': t.key } },
          { connections: opts.connections, duration: opts.seconds, warmup: round === 0 ? 1 : 0 },
        );
        const row = results[i] as RuntimeBenchResult;
        row.rps.push(r.rps);
        row.p50.push(r.p50);
        row.p99.push(r.p99);
        row.failures += r.failures;
        opts.log(
          `round ${round + 1}: ${t.rt.runtime} ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms`,
        );
      }
    }
    return results;
  } finally {
    for (const rt of started) await rt.stop().catch((err) => opts.log(`${rt.runtime} stop: ${err}`));
  }
}

/** The markdown table: medians, every round, and the ratio to Node. */
export function renderRuntimes(rows: RuntimeBenchResult[], seconds: number, connections: number): string {
  const node = median(rows.find((r) => r.runtime === 'node')?.rps ?? [Number.NaN]);
  const lines = [
    `Runtimes: GET /api/v1/notes/:path (${NOTES} notes, round robin), ${connections} connections, ${seconds} s per round, median of ${rows[0]?.rps.length ?? 0} interleaved rounds:`,
    '',
    '| runtime | req/s (median) | vs Node | p50 ms | p99 ms | req/s per round | failed |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const rps = median(r.rps);
    lines.push(
      `| ${r.runtime} | ${Math.round(rps).toLocaleString('en-US')} | ${(rps / node).toFixed(2)}x | ${median(r.p50).toFixed(2)} | ${median(r.p99).toFixed(2)} | ${r.rps.map((x) => Math.round(x).toLocaleString('en-US')).join(', ')} | ${r.failures ? `**${r.failures}**` : 0} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const num = (name: string, def: number) => Number(process.env[name] ?? def);
  const seconds = num('BENCH_RUNTIME_SECONDS', 3);
  const rounds = num('BENCH_RUNTIME_ROUNDS', 3);
  const connections = num('BENCH_CONNECTIONS', 32);
  const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);
  const info = machineInfo('npx tsx bench/runtimes.ts');
  const rows = await runtimeBench({ seconds, rounds, connections, log });
  const section = `## ${info.date.slice(0, 10)}: runtimes (\`${info.command}\`, commit ${info.commit})\n\nMachine: ${info.nproc} CPUs (${info.cpu}), ${info.ramGiB} GiB, node ${info.node}; load generator on the same machine.\n\n${renderRuntimes(rows, seconds, connections)}`;
  process.stdout.write(`\n${section}\n`);
  const out = process.env.BENCH_OUT ?? resultFile('runtimes');
  if (out !== '-') await appendResults(resolve(out), section);
  process.exit(0);
}
