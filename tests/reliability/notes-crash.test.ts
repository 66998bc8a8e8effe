import { afterAll, describe, expect, it } from 'vitest';
import { notesCrash } from './scenarios/notes-crash.ts';
import { killAll } from './scenarios/procs.ts';
import { runSeed } from './scenarios/rng.ts';

afterAll(killAll);

describe('crash safety of notes', () => {
  it('SIGKILL during a write burst never leaves a torn note, a temporary file or a stale index, nor loses an acknowledged text from the history', async () => {
    const seed = runSeed(20261123);
    console.log(`notes crash test: seed ${seed} (RELIABILITY_SEED=${seed} replays it)`);
    const r = await notesCrash({ seed, killPoints: 10 });
    expect(r.violations).toEqual([]);
    // The rounds really cut writes in flight and really checked notes.
    expect(r.cut).toBeGreaterThan(0);
    expect(r.acknowledged).toBeGreaterThan(r.killPoints);
    expect(r.notesChecked).toBeGreaterThan(0);
    // History on: every acknowledged text was looked for (and found: no violation) after every kill.
    expect(r.historyChecked).toBeGreaterThan(r.acknowledged);
  }, 180_000);
});
