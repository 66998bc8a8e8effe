import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runtimeBinary } from '../../deploy/shared/runtime-binary.ts';
import { runRuntimeContract } from './contract.ts';
import { packageVersion, startBun } from './runtimes.ts';

describe('bun from node_modules', () => {
  it('runs and is the version npm installed', () => {
    expect(execFileSync(runtimeBinary('bun'), ['--version'], { encoding: 'utf8' }).trim()).toBe(
      packageVersion('bun'),
    );
  });
});

runRuntimeContract('Bun (Bun.serve)', () => startBun());
