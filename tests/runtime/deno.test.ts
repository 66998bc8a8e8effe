import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { denoArgs, runtimeBinary } from '../../deploy/shared/runtime-binary.ts';
import { runCommand } from '../helpers/child.ts';
import { runRuntimeContract } from './contract.ts';
import { ensureRuntimes, runtimeVersion, startDeno } from './runtimes.ts';

// Deno is installed on first use into .cache/on-demand (not by npm ci): once, before any test's timeout.
await ensureRuntimes();

describe('the Deno root', () => {
  it('deno comes from the on-demand runtimes, runs, and is the version pinned there', async () => {
    const out = execFileSync(runtimeBinary('deno'), ['--version'], { encoding: 'utf8' });
    const version = (await runtimeVersion('deno')).replace(/\./g, '\\.');
    expect(out.split('\n')[0]).toMatch(new RegExp(`^deno ${version} `));
  });

  it('stops a bad start with one clear line: a bad variable, and relay pairing', async () => {
    for (const [env, line] of [
      [{ PORT: 'nope' }, 'quire: PORT must be a whole number, got "nope".'],
      [
        { PAIRING_MODE: 'relay', DATA_DIR: tmpdir() },
        'quire: PAIRING_MODE must be open-port on deno: the relay connector runs on Node only.',
      ],
    ] as const) {
      const p = runCommand(runtimeBinary('deno'), denoArgs('deploy/deno/main.ts', [tmpdir()]), {
        ...env,
        NO_COLOR: '1',
        DENO_NO_UPDATE_CHECK: '1',
      });
      expect(await p.exited).toBe(1);
      expect(p.out.stderr.trim().split('\n')).toEqual([line]);
    }
  });
});

runRuntimeContract('Deno (Deno.serve)', () => startDeno());
