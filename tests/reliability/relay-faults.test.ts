import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from './scenarios/procs.ts';
import { relayFaults } from './scenarios/relay-faults.ts';
import { runSeed } from './scenarios/rng.ts';

afterAll(killAll);

describe('relay faults under steady load (own redis-server, two relay processes, a note server)', () => {
  it('restarting Redis, either relay or the connector: traffic resumes on its own, one answer per request, nothing runs twice', async () => {
    const seed = runSeed(20261126);
    console.log(`relay faults test: seed ${seed}`);
    const r = await relayFaults({ seed });
    console.log(
      JSON.stringify({ requests: r.requests, creates: r.creates, resets: r.resets, faults: r.faults }),
    );
    expect(r.violations).toEqual([]);
    expect(r.faults.map((f) => f.fault)).toHaveLength(5);
    // The faults were felt (refusals or time-outs) and each was recovered from.
    const failed = Object.entries(r.outcomes).filter(([k]) => /\b50[34]\b|ECONN/.test(k));
    expect(failed.length).toBeGreaterThan(0);
    expect(r.creates.acknowledged).toBeGreaterThan(20);
  }, 180_000);
});
