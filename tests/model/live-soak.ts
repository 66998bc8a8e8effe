/**
 * The long run of the live editing property (live-run.ts):
 *   npm run soak:live -- --seed 1 --ops 2000 --restarts 20 [--clients 5]
 */
import { parseArgs } from 'node:util';
import { killAll } from '../reliability/scenarios/procs.ts';
import { runLive } from './live-run.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    ops: { type: 'string', default: '2000' },
    restarts: { type: 'string', default: '20' },
    clients: { type: 'string', default: '4' },
  },
});

const log = (l: string) => console.log(`[${new Date().toISOString()}] ${l}`);
const started = Date.now();
runLive({
  seed: Number(values.seed),
  ops: Number(values.ops),
  restarts: Number(values.restarts),
  clients: Number(values.clients),
  log,
})
  .then(async (r) => {
    log(
      `${r.report ? 'FAILED' : 'passed'}: ${JSON.stringify(r.stats)}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    if (r.report) console.log(r.report);
    await killAll();
    process.exit(r.report ? 1 : 0);
  })
  .catch(async (err) => {
    console.error(err);
    await killAll();
    process.exit(1);
  });
