import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from './scenarios/procs.ts';
import { runSeed } from './scenarios/rng.ts';
import { stateCrash } from './scenarios/state-crash.ts';

afterAll(killAll);

describe('crash safety of state files', () => {
  it('SIGKILL during state writes never leaves a missing or damaged state file, nor a new first key', async () => {
    const seed = runSeed(20261124);
    console.log(`state crash test: seed ${seed} (RELIABILITY_SEED=${seed} replays it)`);
    const r = await stateCrash({ seed, killPoints: 10 });
    expect(r.violations).toEqual([]);
    expect(r.cut).toBeGreaterThan(0);
    expect(r.keysChecked).toBeGreaterThan(0);
    expect(r.filesChecked).toEqual([
      'channels.json',
      'credentials.json',
      'index-journal.log',
      'index-snapshot.bin',
      'plugins.json',
    ]);
  }, 180_000);
});
