/**
 * Runs the model test: a seeded sequence of operations against a fresh server, every read checked
 * after every step; on a failure, the sequence up to it is shrunk by delta debugging (each try is a
 * replay on a fresh server, operations that no longer apply skipped) and reported with its seed and
 * the command that replays it.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Violation } from './checks.ts';
import { ddmin } from './ddmin.ts';
import { Harness, type HarnessStats } from './harness.ts';
import { applicable, describe, type Op, OpGenerator } from './ops.ts';

export interface RunOptions {
  seed: number;
  /** Operations other than restarts. */
  ops: number;
  restarts: number;
  /** Every n-th restart is a SIGKILL (default 3; 0: none). */
  killEvery?: number;
  /** Files change while the server is down (default true). */
  downtime?: boolean;
  /** Replays the shrinker may spend (0: no shrinking). */
  shrinkRuns?: number;
  /** And the time it may spend, in ms (default 30 min); it stops after the replay that passes it. */
  shrinkMs?: number;
  log?: (line: string) => void;
}

export interface Failure {
  seed: number;
  message: string;
  /** The operations up to and including the failing one. */
  sequence: Op[];
  /** The shrunk sequence that still fails (the whole one when shrinking did not help). */
  minimal: Op[];
  minimalMessage: string;
  /** A JSON file holding `minimal`, for `npm run soak -- --replay <file>`. */
  replayFile: string;
}

export interface RunResult {
  stats: HarnessStats;
  ms: number;
  failure: Failure | null;
}

/** Runs `ops` (skipping those that do not apply); the failing step's message, or null. */
export async function replay(
  ops: Op[],
  seed: number,
): Promise<{ message: string; at: number; ran: Op[] } | null> {
  const h = await Harness.create(seed).catch((err) => err as Error);
  if (h instanceof Error) return { message: h.message, at: -1, ran: [] };
  const ran: Op[] = [];
  try {
    for (let i = 0; i < ops.length; i++) {
      if (!applicable(h.model, ops[i]!)) continue;
      ran.push(ops[i]!);
      try {
        await h.step(ops[i]!);
      } catch (err) {
        return { message: (err as Error).message, at: i, ran };
      }
    }
    return null;
  } finally {
    await h.close();
  }
}

/** What a failure is about: its message up to the first colon ("trash differs from the model"). */
const kindOf = (message: string) => message.split('\n')[0]!.split(':')[0]!;

/**
 * Delta debugging (ddmin) over `ops`, keeping a subsequence that still fails the same way (`kind`):
 * a replay that breaks on something else (a harness error, another check) shows another bug, or none.
 */
export function shrink(
  ops: Op[],
  seed: number,
  runs: number,
  ms: number,
  log: (l: string) => void,
  kind?: string,
) {
  return ddmin(
    ops,
    async (candidate) => {
      const r = await replay(candidate, seed);
      return r && (kind === undefined || kindOf(r.message) === kind) ? r : null;
    },
    runs,
    ms,
    log,
  );
}

/** One seeded run; see the file comment. */
export async function runModel(opts: RunOptions): Promise<RunResult> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const steps = opts.ops + opts.restarts;
  const every = Math.max(2, Math.floor(steps / (opts.restarts + 1)));
  const gen = new OpGenerator(opts.seed, { killEvery: opts.killEvery, downtime: opts.downtime });
  const done: Op[] = [];
  const h = await Harness.create(opts.seed);
  let failure: { message: string } | null = null;
  try {
    for (let step = 1; step <= steps; step++) {
      const wantRestart = h.stats.restarts < opts.restarts && step % every === 0;
      const op = gen.next(h.model, wantRestart);
      if (!applicable(h.model, op))
        throw new Error(`the generator drew an operation that does not apply: ${describe(op)}`);
      done.push(op);
      try {
        await h.step(op);
      } catch (err) {
        if (!(err instanceof Violation) && !(err instanceof Error)) throw err;
        failure = { message: `${(err as Error).message}${err instanceof Violation ? '' : `\n${h.tail()}`}` };
        break;
      }
      if (step % 100 === 0 || op.t === 'restart')
        log(
          `step ${step}/${steps}: ${describe(op)} (${h.model.notes.size} notes, ${h.stats.restarts} restarts)`,
        );
    }
  } finally {
    await h.close();
  }
  const result: RunResult = { stats: h.stats, ms: Date.now() - started, failure: null };
  if (!failure) return result;
  log(`FAILED at step ${done.length} (seed ${opts.seed}): ${failure.message}`);
  // The whole run as it went, written before the shrinking: to read the steps before the failure.
  const stamp = Date.now();
  await writeFile(
    join(tmpdir(), `quire-model-${opts.seed}-${stamp}-run.json`),
    JSON.stringify({ seed: opts.seed, ops: done }, null, 1),
  );
  const { minimal, message } = await shrink(
    done,
    opts.seed,
    opts.shrinkRuns ?? 0,
    opts.shrinkMs ?? 1_800_000,
    log,
    kindOf(failure.message),
  );
  const replayFile = join(tmpdir(), `quire-model-${opts.seed}-${stamp}.json`);
  await writeFile(replayFile, JSON.stringify({ seed: opts.seed, ops: minimal }, null, 1));

  result.failure = {
    seed: opts.seed,
    message: failure.message,
    sequence: done,
    minimal,
    minimalMessage: message || failure.message,
    replayFile,
  };
  return result;
}

/** The failure as the test and the soak print it: seed, message, minimal sequence, commands. */
export function report(f: Failure, opts: RunOptions): string {
  return [
    `model test failed: seed ${f.seed}, step ${f.sequence.length} of a run of ${opts.ops} ops, ${opts.restarts} restarts`,
    f.message,
    `minimal sequence (${f.minimal.length} of ${f.sequence.length} operations), failing with: ${f.minimalMessage.split('\n')[0]}`,
    ...f.minimal.map((op, i) => `  ${i + 1}. ${describe(op)}`),
    `replay the run:      npm run soak -- --seed ${f.seed} --ops ${opts.ops} --restarts ${opts.restarts}${
      opts.killEvery !== undefined ? ` --kill-every ${opts.killEvery}` : ''
    }${opts.downtime === false ? ' --no-downtime' : ''}`,
    `replay the sequence: npm run soak -- --replay ${f.replayFile}`,
    `the whole run:       ${f.replayFile.replace(/\.json$/, '-run.json')}`,
  ].join('\n');
}
