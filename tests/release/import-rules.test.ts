/**
 * `npm run cycles` (dependency-cruiser with .dependency-cruiser.cjs) fails on a value-level import
 * circle and on an import that points up a layer, and lets a circle of `import type` edges pass.
 * Each case runs the repo's config over a tiny folder in tests/fixtures/import-rules/.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const config = join(root, '.dependency-cruiser.cjs');
const fixtures = join(root, 'tests/fixtures/import-rules');

/** The cruise over `dirs` from `cwd`: its exit code and output. */
function cruise(cwd: string, dirs: string[]) {
  const r = spawnSync(process.execPath, [bin, '--config', config, ...dirs], { cwd, encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

// Each cruise starts TypeScript's parser: seconds on a busy machine.
describe('the import rules', { timeout: 60_000 }, () => {
  it('fail on a value-level circle, naming it', () => {
    const r = cruise(fixtures, ['cycle']);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('no-circular');
    expect(r.out).toMatch(/cycle\/a\.ts[\s\S]*cycle\/b\.ts/);
  });

  it('let a circle closed only by `import type` pass', () => {
    const r = cruise(fixtures, ['type-only']);
    expect(r.out).toContain('no dependency violations');
    expect(r.code).toBe(0);
  });

  it('fail on core importing a layer above it', () => {
    const r = cruise(join(fixtures, 'layers'), ['core', 'relay']);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('core-imports-no-other-layer');
  });
});
