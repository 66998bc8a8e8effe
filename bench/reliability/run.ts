/**
 * The long forms of tests/reliability: 200 clients for 60 s per route, many kill points, the
 * relay faults and the graceful shutdown, reported as one markdown section. Run by
 * `npm run bench` (bench/run.ts; `BENCH_RELIABILITY=0` skips it, `=only` runs nothing else) or
 * alone: `npx tsx bench/reliability/run.ts` (prints the section; BENCH_OUT appends it). The
 * scenarios themselves live in tests/reliability/scenarios/ (their short forms run in `npm test`).
 *
 * Env: BENCH_RELIABILITY_CLIENTS (200), BENCH_RELIABILITY_SECONDS (60), BENCH_RELIABILITY_WARMUP
 * (10), BENCH_RELIABILITY_NOTES (1000), BENCH_RELIABILITY_KILLS (60 notes kill points; state: half),
 * RELIABILITY_SEED.
 */
import { resolve } from 'node:path';
import { mixedLoad } from '../../tests/reliability/scenarios/load.ts';
import { notesCrash } from '../../tests/reliability/scenarios/notes-crash.ts';
import { killAll } from '../../tests/reliability/scenarios/procs.ts';
import { relayFaults } from '../../tests/reliability/scenarios/relay-faults.ts';
import { runSeed } from '../../tests/reliability/scenarios/rng.ts';
import { gracefulShutdown } from '../../tests/reliability/scenarios/shutdown.ts';
import { stateCrash } from '../../tests/reliability/scenarios/state-crash.ts';
import { renderReliability } from './report.ts';

const num = (name: string, def: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
};

/** Runs every long form and returns the markdown section; `header` lines describe the machine. */
export async function reliabilityBench(header: string[], log: (line: string) => void): Promise<string> {
  const started = performance.now();
  const seed = runSeed(42);
  const clients = num('BENCH_RELIABILITY_CLIENTS', 200);
  const seconds = num('BENCH_RELIABILITY_SECONDS', 60);
  const warmupSeconds = num('BENCH_RELIABILITY_WARMUP', 10);
  const notes = num('BENCH_RELIABILITY_NOTES', 1000);
  const kills = num('BENCH_RELIABILITY_KILLS', 60);
  try {
    log(`reliability: load, ${clients} clients x ${seconds} s per route (seed ${seed})`);
    const load = await mixedLoad({ seed, clients, seconds, warmupSeconds, notes, sampleMs: 1000, log });
    log(`reliability: notes kill test, ${kills} kill points`);
    const nc = await notesCrash({
      seed,
      killPoints: kills,
      log: (l) => (kills <= 20 || /point \d*0\//.test(l) ? log(l) : undefined),
    });
    log(`reliability: state kill test, ${Math.ceil(kills / 2)} kill points`);
    const sc = await stateCrash({ seed, killPoints: Math.ceil(kills / 2) });
    log('reliability: relay faults');
    const faults = await relayFaults({ seed, settleMs: 3000, log });
    log('reliability: graceful shutdown');
    const shutdown = await gracefulShutdown({ seed, clients: 8, loadMs: 3000 });
    return renderReliability({
      header,
      clients,
      seconds,
      warmupSeconds,
      notes,
      load,
      notesCrash: nc,
      stateCrash: sc,
      faults,
      shutdown,
      minutes: (performance.now() - started) / 60_000,
    });
  } finally {
    await killAll();
  }
}

if (import.meta.url === `file://${resolve(process.argv[1] ?? '')}`) {
  const { appendResults, machineInfo } = await import('../report.ts');
  const info = machineInfo('npx tsx bench/reliability/run.ts');
  const header = [
    `Machine: ${info.nproc} CPUs (${info.cpu}), ${info.ramGiB} GiB, node ${info.node}; commit ${info.commit}; load average at start ${info.loadavg[0]?.toFixed(1)}.`,
    `Command: \`${info.command}\`.`,
  ];
  const section = await reliabilityBench(header, (l) => process.stdout.write(`[reliability] ${l}\n`));
  process.stdout.write(`\n${section}\n`);
  const out = process.env.BENCH_OUT;
  if (out && out !== '-') await appendResults(resolve(out), section);
  process.exit(0);
}
