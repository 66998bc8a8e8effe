import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { denoArgs, runtimeBinary } from '../../deploy/shared/runtime-binary.ts';
import { runCommand } from '../helpers/child.ts';
import { runRuntimeContract } from './contract.ts';
import { packageVersion, startDeno } from './runtimes.ts';

describe('the Deno root', () => {
  it('deno comes from node_modules, runs, and is the version npm installed', () => {
    const out = execFileSync(runtimeBinary('deno'), ['--version'], { encoding: 'utf8' });
    expect(out.split('\n')[0]).toMatch(new RegExp(`^deno ${packageVersion('deno').replace(/\./g, '\\.')} `));
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
