/**
 * The long run of the offline property (offline-run.ts):
 *   npm run soak:offline -- --seed 1 --ops 2000 --restarts 40 [--shrink 30]
 *   npm run soak:offline -- --replay /tmp/quire-offline-<seed>-<time>.json
 * Prints progress, the figures at the end, and on a failure the seed and a minimal sequence.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { killAll } from '../reliability/scenarios/procs.ts';
import { describeOp, type OfflineOp } from './offline-ops.ts';
import { replayOffline, runOffline } from './offline-run.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    ops: { type: 'string', default: '2000' },
    restarts: { type: 'string', default: '40' },
    shrink: { type: 'string', default: '30' },
    replay: { type: 'string' },
  },
});

const log = (l: string) => console.log(`[${new Date().toISOString()}] ${l}`);

async function main(): Promise<number> {
  if (values.replay) {
    const { seed, ops } = JSON.parse(await readFile(values.replay, 'utf8')) as {
      seed: number;
      ops: OfflineOp[];
    };
    for (const [i, op] of ops.entries()) log(`${i + 1}. ${describeOp(op)}`);
    const r = await replayOffline(ops, seed);
    log(r ? `FAILED at operation ${r.at + 1}: ${r.message}` : 'passed');
    return r ? 1 : 0;
  }
  const o = {
    seed: Number(values.seed),
    ops: Number(values.ops),
    restarts: Number(values.restarts),
    shrinkRuns: Number(values.shrink),
    log,
  };
  log(`offline soak: seed ${o.seed}, ${o.ops} ops, ${o.restarts} restarts`);
  const started = Date.now();
  const r = await runOffline(o);
  log(
    `${r.report ? 'FAILED' : 'passed'}: ${JSON.stringify(r.stats)}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  if (r.report) console.log(r.report);
  return r.report ? 1 : 0;
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
