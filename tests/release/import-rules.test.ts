/**
 * `npm run cycles` (dependency-cruiser with .dependency-cruiser.cjs) fails on an import circle, one
 * closed only by `import type` edges too, and on an import that points up a layer.
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

  it('fail on a circle closed only by `import type` too', () => {
    const r = cruise(fixtures, ['type-only']);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('no-circular');
    expect(r.out).toMatch(/type-only\/a\.ts[\s\S]*type-only\/b\.ts/);
  });

  it('fail on core importing a layer above it', () => {
    const r = cruise(join(fixtures, 'layers'), ['core', 'relay']);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('core-imports-no-other-layer');
  });

  it('fail on adapters importing a root, and deploy/shared importing a runtime root', () => {
    const r = cruise(join(fixtures, 'layers'), ['adapters', 'deploy']);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('adapters-below-sdk-and-roots');
    expect(r.out).toContain('deploy-shared-imports-no-runtime-root');
  });
});
