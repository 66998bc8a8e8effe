import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const RELEASE = join(import.meta.dirname, '../../deploy/shared/release');

/**
 * `npm ci --omit=dev && npm start` on a fresh clone: no release built yet, and the tools that build
 * it are not installed. The same condition without a real npm ci: the two start files copied into
 * an empty checkout (no node_modules anywhere above the temp dir), run as `npm start` runs them.
 */
describe('npm start without dev dependencies', () => {
  const root = mkdtempSync(join(tmpdir(), 'quire-omit-dev-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('says in one sentence what to run instead, and does not try the build', () => {
    const dir = join(root, 'deploy/shared/release');
    mkdirSync(dir, { recursive: true });
    for (const f of ['start.js', 'fresh.js']) copyFileSync(join(RELEASE, f), join(dir, f));
    writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');
    const r = spawnSync(process.execPath, [join(dir, 'start.js'), 'serve'], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^quire: npm start must build the release first/);
    expect(lines[0]).toContain('tsx, esbuild, vite');
    expect(lines[0]).toContain('run npm ci here');
    expect(lines[0]).toContain('node quire/bin/quire.js serve');
    expect(lines[0]).toContain('docs/guide/deploy.md');
    expect(r.stderr).not.toMatch(/not found|Cannot find|Missing script/);
  });
});
