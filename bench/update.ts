import { splitFrontmatter } from '../core/notes/markdown/remark.ts';
import { median, percentile } from './load.ts';
import { renderNote } from './vault-note.ts';
import { planVault } from './vault-plan.ts';
import { createRng } from './vault-text.ts';

/** One planned update: a note and its new body (no frontmatter, so the old block is kept). */
export interface PlannedUpdate {
  path: string;
  content: string;
}

/**
 * `count` updates of distinct notes of the generated vault, each with a fresh body
 * (new words and new links), the same for every run with the same seed.
 */
export function planUpdates(notes: number, seed: number, count: number): PlannedUpdate[] {
  const plan = planVault(notes, seed);
  const rng = createRng(seed ^ 0x5eed);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, notes)) chosen.add(rng.int(0, notes - 1));
  return [...chosen].map((i, k) => ({
    path: plan.notes[i]!.path,
    content: splitFrontmatter(renderNote(plan, i, seed + 1000 + k)).body,
  }));
}

/** Latency summary in milliseconds. */
export interface Timing {
  median: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
}

/** Summarizes raw durations. */
export function timing(values: number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: median(values),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    n: values.length,
  };
}
