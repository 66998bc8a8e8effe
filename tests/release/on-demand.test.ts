/**
 * A contributor's `npm ci` stays light: Bun, Deno and Miniflare (workerd) are not dev dependencies;
 * the runtime tests install them on first use through deploy/shared/on-demand, once, even when
 * several test workers ask at the same moment.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { groupDir, installedModules } from '../../deploy/shared/on-demand/index.ts';
import { tempDir } from '../helpers/app.ts';
import { ROOT } from '../helpers/child.ts';

const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

describe('the other runtimes are installed on demand, not by npm ci', () => {
  it('neither package.json nor its lock installs bun, deno, miniflare or workerd', () => {
    const pkg = json('package.json');
    const lock = json('package-lock.json') as { packages: Record<string, unknown> };
    for (const name of ['bun', 'deno', 'miniflare', 'workerd']) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.devDependencies[name], name).toBeUndefined();
      expect(lock.packages[`node_modules/${name}`], name).toBeUndefined();
    }
    expect(
      Object.keys(lock.packages).filter((p) => /node_modules\/(@oven|@deno|@cloudflare)\//.test(p)),
    ).toEqual([]);
  });

  it('CONTRIBUTING.md says what each dev dependency is for (a new one without a line fails)', () => {
    const page = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
    expect(page).toContain('| Dev dependencies | For |');
    const table = page.slice(page.indexOf('| Dev dependencies | For |'));
    const rows = table.slice(0, table.indexOf('\n\n'));
    const named = (d: string) =>
      rows.includes(`\`${d}\``) ||
      [...rows.matchAll(/`(@[^/`]+)\/\*`/g)].some((m) => d.startsWith(`${m[1]}/`));
    expect(Object.keys(json('package.json').devDependencies).filter((d) => !named(d))).toEqual([]);
  });

  it('the runtimes group pins exact versions, and its lock holds those versions', () => {
    const group = json('deploy/shared/on-demand/runtimes/package.json');
    const lock = json('deploy/shared/on-demand/runtimes/package-lock.json');
    expect(Object.keys(group.dependencies).sort()).toEqual(['bun', 'deno', 'miniflare', 'wrangler']);
    for (const [name, version] of Object.entries(group.dependencies as Record<string, string>)) {
      expect(version, name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(lock.packages[`node_modules/${name}`].version, name).toBe(version);
    }
    expect(lock.packages[''].dependencies).toEqual(group.dependencies);
  });

  it('three processes asking at once install a group once and all get its node_modules', async () => {
    const tmp = await tempDir('quire-on-demand-');
    try {
      // A tiny group with one local package: npm ci runs for real without the network. The group's
      // folder and its install folder are equally deep, so `file:../../lib` names the same package.
      const src = join(tmp.dir, 'src/tiny');
      const lib = join(tmp.dir, 'lib');
      await mkdir(src, { recursive: true });
      await mkdir(lib);
      await writeFile(join(lib, 'package.json'), JSON.stringify({ name: 'tiny-lib', version: '1.0.0' }));
      await writeFile(join(lib, 'index.js'), 'module.exports = 42;\n');
      const deps = { 'tiny-lib': 'file:../../lib' };
      await writeFile(
        join(src, 'package.json'),
        JSON.stringify({ name: 'g', private: true, dependencies: deps }),
      );
      await writeFile(
        join(src, 'package-lock.json'),
        JSON.stringify({
          name: 'g',
          lockfileVersion: 3,
          requires: true,
          packages: {
            '': { name: 'g', dependencies: deps },
            '../../lib': { name: 'tiny-lib', version: '1.0.0' },
            'node_modules/tiny-lib': { resolved: '../../lib', link: true },
          },
        }),
      );
      const cache = join(tmp.dir, 'cache');
      const group = { src, name: 'tiny', cache };
      expect(installedModules(group)).toBeNull();
      const script = `import { onDemand } from ${JSON.stringify(join(ROOT, 'deploy/shared/on-demand/index.ts'))};
const modules = await onDemand(${JSON.stringify(group)});
const { createRequire } = await import('node:module');
console.log(JSON.stringify({ modules, value: createRequire(modules + '/../x.js')('tiny-lib') }));`;
      const procs = await Promise.all(
        [1, 2, 3].map(() =>
          promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
            cwd: ROOT,
            encoding: 'utf8',
          }),
        ),
      );
      const dir = groupDir(group);
      for (const p of procs) {
        expect(JSON.parse(p.stdout.trim())).toEqual({ modules: join(dir, 'node_modules'), value: 42 });
      }
      // One install: one process said so, and no lock is left behind.
      const said = procs.map((p) => p.stderr).join('');
      expect(said.match(/on-demand: installing tiny/g)).toHaveLength(1);
      expect(await readdir(cache)).toEqual([dir.slice(cache.length + 1)]);
      expect(installedModules(group)).toBe(join(dir, 'node_modules'));
      expect(existsSync(join(dir, '.installed'))).toBe(true);
      // A changed lock is a new folder (a version bump reinstalls).
      const lockText = await readFile(join(src, 'package-lock.json'), 'utf8');
      await writeFile(join(src, 'package-lock.json'), `${lockText}\n`);
      expect(groupDir(group)).not.toBe(dir);
      expect(installedModules(group)).toBeNull();
    } finally {
      await tmp.cleanup();
    }
  });
});
