import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkNode, MIN_NODE } from '../../deploy/node/cli/doctor.ts';

const ROOT = join(import.meta.dirname, '../..');
const semver = createRequire(import.meta.url)('semver') as {
  minVersion: (range: string) => { version: string } | null;
  satisfies: (version: string, range: string) => boolean;
};

describe('honest engines', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
  };

  it('every installed package supports the oldest Node the project declares (npm ci: no EBADENGINE)', () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    expect(oldest).toBe(MIN_NODE);
    const refusing = Object.entries(lock.packages).flatMap(([path, p]) => {
      const range = !p.engines || Array.isArray(p.engines) ? undefined : p.engines.node;
      // npm skips an optional platform build whose engines do not match, without a warning.
      if (!range || p.optional || semver.satisfies(oldest, range)) return [];
      return [`${path} needs node ${range}`];
    });
    expect(refusing).toEqual([]);
  });

  it('keeps unused and run-time-only-for-development packages out of dependencies', () => {
    expect(pkg.dependencies.chokidar).toBeUndefined();
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.devDependencies.tsx).toBeDefined();
  });

  it('quire doctor names an unsupported Node and the range, and says when a major left maintenance', () => {
    const old = checkNode('18.19.1');
    expect(old.status).toBe('fail');
    expect(old.detail).toBe('Node 18.19.1 is not supported (Quire needs Node >= 20.19.0)');
    expect(checkNode('20.18.3').status).toBe('fail');
    expect(old.fix).toMatch(/install Node 22 or 24/);
    expect(checkNode('20.20.2')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/left maintenance/),
    });
    expect(checkNode('22.12.0')).toEqual({ status: 'ok', name: 'node', detail: 'Node 22.12.0' });
  });
});
