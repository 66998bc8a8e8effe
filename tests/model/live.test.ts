/**
 * The live editing property (live-run.ts), short: three live editors, REST writes with bases and
 * disk edits in a seeded order with a SIGTERM restart and a SIGKILL. The long run is
 * `npm run soak:live`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from '../reliability/scenarios/procs.ts';
import { runSeed } from '../reliability/scenarios/rng.ts';
import { runLive } from './live-run.ts';

afterAll(killAll);

describe('editing live together', () => {
  it('editors, REST writes with bases and disk edits, with restarts and a SIGKILL: all agree with the file, no acknowledged word lost or doubled', async () => {
    const seed = runSeed(20261207);
    console.log(`live property: seed ${seed} (RELIABILITY_SEED=${seed} replays it)`);
    const r = await runLive({ seed, ops: 120, restarts: 2, log: console.log });
    if (r.report) console.log(r.report);
    expect(r.report).toBeNull();
    expect(r.stats.restarts).toBe(2);
    expect(r.stats.kills).toBe(1);
    expect(r.stats.wordsChecked).toBeGreaterThan(20);
    console.log(`live property: ${JSON.stringify(r.stats)}`);
  }, 300_000);
});
