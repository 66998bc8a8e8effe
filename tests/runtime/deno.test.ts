import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runtimeBinary } from '../../deploy/shared/runtime-binary.ts';
import { runRuntimeContract } from './contract.ts';
import { packageVersion, startDeno } from './runtimes.ts';

describe('deno from node_modules', () => {
  it('runs and is the version npm installed', () => {
    const out = execFileSync(runtimeBinary('deno'), ['--version'], { encoding: 'utf8' });
    expect(out.split('\n')[0]).toMatch(new RegExp(`^deno ${packageVersion('deno').replace(/\./g, '\\.')} `));
  });
});

runRuntimeContract('Deno (Deno.serve)', () => startDeno());
