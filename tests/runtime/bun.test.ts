import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runtimeBinary } from '../../deploy/shared/runtime-binary.ts';
import { runCommand } from '../helpers/child.ts';
import { runRuntimeContract } from './contract.ts';
import { ensureRuntimes, runtimeVersion, startBun } from './runtimes.ts';

// Bun is installed on first use into .cache/on-demand (not by npm ci): once, before any test's timeout.
await ensureRuntimes();

describe('the Bun root', () => {
  it('bun comes from the on-demand runtimes, runs, and is the version pinned there', async () => {
    expect(execFileSync(runtimeBinary('bun'), ['--version'], { encoding: 'utf8' }).trim()).toBe(
      await runtimeVersion('bun'),
    );
  });

  it('stops a bad start with one clear line: a bad variable, and relay pairing', async () => {
    for (const [env, line] of [
      [{ PORT: 'nope' }, 'quire: PORT must be a whole number, got "nope".'],
      [
        { PAIRING_MODE: 'relay', DATA_DIR: tmpdir() },
        'quire: PAIRING_MODE must be open-port on bun: the relay connector runs on Node only.',
      ],
    ] as const) {
      const p = runCommand(runtimeBinary('bun'), ['deploy/bun/main.ts'], { ...env, NO_COLOR: '1' });
      expect(await p.exited).toBe(1);
      expect(p.out.stderr.trim().split('\n')).toEqual([line]);
    }
  });
});

runRuntimeContract('Bun (Bun.serve)', () => startBun());
