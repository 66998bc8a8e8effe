/**
 * The model-based consistency test (docs/reference/reliability.md, "The model test"): a seeded run of
 * operations from every writer (REST, MCP, files on disk) against a real server process, every
 * read compared with a reference model after every step. A failure prints its seed, a shrunk
 * sequence and the commands that replay them. The long run is `npm run soak`.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from '../reliability/scenarios/procs.ts';
import { runSeed } from '../reliability/scenarios/rng.ts';
import type { Op } from './ops.ts';
import { replay, report, runModel } from './run.ts';

afterAll(killAll);

const run = async (opts: { seed: number; ops: number; restarts: number }) => {
  // The shrinker stops in time for the report to print within the test's time-out.
  const o = {
    ...opts,
    shrinkRuns: Number(process.env.MODEL_SHRINK_RUNS ?? 12),
    shrinkMs: 90_000,
    log: console.log,
  };
  console.log(
    `model test: seed ${o.seed}, ${o.ops} ops, ${o.restarts} restarts (RELIABILITY_SEED=${o.seed} replays it)`,
  );
  const r = await runModel(o);
  if (r.failure) console.log(report(r.failure, o));
  expect(r.failure?.message ?? null).toBeNull();
  return r;
};

describe('every answer equals the model', () => {
  it('REST, MCP and disk writes: every read after every step equals the model', async () => {
    const r = await run({ seed: runSeed(20261206), ops: 90, restarts: 0 });
    expect(r.stats.steps).toBe(90);
  }, 240_000);

  // The restarts (SIGTERM, SIGKILL with a write in flight, changes while down): every answer of a
  // restarted server, from its first, is the model's or "not ready". The soak runs the long version.
  it('restarts: from its first answer a restarted server equals the model or says "not ready"', async () => {
    const r = await run({ seed: runSeed(20261207), ops: 40, restarts: 3 });
    expect(r.stats.restarts).toBe(3);
  }, 420_000);

  // Sequences the runs found, replayed as written (the first answered the clean stop's vault after
  // a crash about one replay in two, so twice).
  it('a SIGKILL after a clean stop: the restarted server answers the vault, not the one of the clean stop', async () => {
    const file = new URL('./sequences/clean-stop-then-kill.json', import.meta.url);
    const { seed, ops } = JSON.parse(await readFile(file, 'utf8')) as { seed: number; ops: Op[] };
    for (let i = 0; i < 2; i++) expect((await replay(ops, seed))?.message ?? null).toBeNull();
  }, 240_000);
});
