/** Seeds for the reliability runs: fixed by default, `RELIABILITY_SEED` to replay or vary a run. */
import { createRng, type Rng, subSeed } from '../../../bench/vault-text.ts';

export { createRng, type Rng, subSeed };

/** The run's seed: RELIABILITY_SEED when set, else `fallback`. */
export function runSeed(fallback: number): number {
  const raw = process.env.RELIABILITY_SEED;
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`RELIABILITY_SEED must be an integer, got "${raw}"`);
  return n >>> 0;
}
