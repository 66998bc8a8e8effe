/**
 * The long run of the model test (docs/reference/reliability.md):
 *   npm run soak -- --seed 1 --ops 10000 --restarts 100 [--shrink 40] [--kill-every 3] [--no-downtime]
 *   npm run soak -- --replay /tmp/quire-model-<seed>-<time>.json
 * Prints progress, the figures at the end, and on a failure the seed and a minimal sequence.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { killAll } from '../reliability/scenarios/procs.ts';
import { describe, type Op } from './ops.ts';
import { replay, report, runModel } from './run.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    ops: { type: 'string', default: '2000' },
    restarts: { type: 'string', default: '20' },
    shrink: { type: 'string', default: '40' },
    'kill-every': { type: 'string', default: '3' },
    'no-downtime': { type: 'boolean', default: false },
    replay: { type: 'string' },
  },
});

const log = (l: string) => console.log(`[${new Date().toISOString()}] ${l}`);

async function main(): Promise<number> {
  if (values.replay) {
    const { seed, ops } = JSON.parse(await readFile(values.replay, 'utf8')) as { seed: number; ops: Op[] };
    for (const [i, op] of ops.entries()) log(`${i + 1}. ${describe(op)}`);
    const r = await replay(ops, seed);
    log(r ? `FAILED at operation ${r.at + 1}: ${r.message}` : 'passed');
    return r ? 1 : 0;
  }
  const opts = {
    seed: Number(values.seed),
    ops: Number(values.ops),
    restarts: Number(values.restarts),
    shrinkRuns: Number(values.shrink),
    killEvery: Number(values['kill-every']),
    downtime: !values['no-downtime'],
    log,
  };
  log(
    `model soak: seed ${opts.seed}, ${opts.ops} ops, ${opts.restarts} restarts (every ${opts.killEvery}th a SIGKILL` +
      `${opts.downtime ? ', files changed while down' : ''})`,
  );
  const r = await runModel(opts);
  const s = r.stats;
  log(
    `${r.failure ? 'FAILED' : 'passed'}: ${s.steps} steps, ${s.restarts} restarts (${s.kills} SIGKILL, ` +
      `${s.cutApplied} cut writes found applied), ${s.notReady} "not ready" answers after starts, ${(r.ms / 1000).toFixed(0)} s`,
  );
  if (r.failure) console.log(report(r.failure, opts));
  return r.failure ? 1 : 0;
}

main()
  .then(async (code) => {
    await killAll();
    process.exit(code);
  })
  .catch(async (err) => {
    console.error(err);
    await killAll();
    process.exit(2);
  });
