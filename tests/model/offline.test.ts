/**
 * The offline property (offline-run.ts): simulated workspaces writing with bases, drafts kept
 * offline (several notes, new notes) and sent after a gap, disk edits, restarts and a SIGKILL, in
 * a seeded order; at every quiescence the views equal the disk and no acknowledged word is lost.
 * A failure prints its seed, a shrunk sequence and the commands that replay them. The long run is
 * `npm run soak:offline`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from '../reliability/scenarios/procs.ts';
import { runSeed } from '../reliability/scenarios/rng.ts';
import { runOffline } from './offline-run.ts';

afterAll(killAll);

describe('offline edits that come back', () => {
  it('drafts of several notes and new notes, sent after a gap with restarts and a SIGKILL: views equal the disk, no acknowledged word lost', async () => {
    const seed = runSeed(20261208);
    const o = {
      seed,
      ops: 200,
      restarts: 4,
      shrinkRuns: Number(process.env.MODEL_SHRINK_RUNS ?? 6),
      shrinkMs: 90_000,
      log: console.log,
    };
    console.log(
      `offline property: seed ${seed}, ${o.ops} ops, ${o.restarts} restarts (RELIABILITY_SEED=${seed} replays it)`,
    );
    const r = await runOffline(o);
    if (r.report) console.log(r.report);
    expect(r.report).toBeNull();
    expect(r.stats.restarts).toBe(4);
    expect(r.stats.kills).toBe(2);
    // The run met what it is about: drafts merged, new notes renamed, conflicts kept.
    expect(r.stats.outcomes.merged + r.stats.outcomes.conflict).toBeGreaterThan(0);
    expect(r.stats.wordsChecked).toBeGreaterThan(20);
    console.log(`offline property: ${JSON.stringify(r.stats)}`);
  }, 420_000);
});
