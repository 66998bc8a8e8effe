import { afterAll, describe, expect, it } from 'vitest';
import { mixedLoad } from './scenarios/load.ts';
import { killAll } from './scenarios/procs.ts';
import { runSeed } from './scenarios/rng.ts';

afterAll(killAll);

describe('load: 200 concurrent clients on a mixed workload (short form of npm run bench)', () => {
  it('direct and through the relay: zero 5xx, zero network errors, memory flat after the warm-up', async () => {
    const seed = runSeed(20261127);
    const results = await mixedLoad({ seed, clients: 200, seconds: 4, warmupSeconds: 1.5, sampleMs: 100 });
    for (const r of results) {
      console.log(
        `${r.route}: ${r.requests} requests (${r.rps}/s), p50 ${r.p50} ms, p99 ${r.p99} ms, RSS growth server ${r.serverGrowthMiB} MiB, relay ${r.relayGrowthMiB} MiB`,
      );
      expect(r.errors, JSON.stringify(r.answers)).toBe(0);
      // Throughput is the benchmark's figure; here only that the load did run (a busy machine halves it).
      expect(r.requests).toBeGreaterThan(50);
      expect(Object.keys(r.answers).every((k) => /^\w+ 20[01]$/.test(k))).toBe(true);
      // A few seconds cannot prove the absence of a leak (npm run bench runs a minute); it does
      // catch memory that climbs with every request: late troughs far above early peaks.
      expect(r.serverGrowthMiB).toBeLessThan(64);
      expect(r.relayGrowthMiB).toBeLessThan(64);
    }
  }, 120_000);
});
