/**
 * Development tools that only a few tests and benchmarks use, installed on first use instead of by
 * every `npm ci` (a contributor's install stays light). Each group is a folder beside this
 * file with a pinned package.json and its package-lock.json; `onDemand(group)` copies both into
 * `.cache/on-demand/<group>-<hash of the lock>/` (gitignored) and runs `npm ci` there once. A changed
 * lock is a new folder, so a version bump reinstalls. Test workers that ask at the same time wait
 * on one install (a lock file naming the installing process; a dead holder's lock is taken over).
 *
 * `npm run on-demand [group...]` installs ahead of time (CI may cache `.cache/on-demand`).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
/** Where the groups are installed (QUIRE_ON_DEMAND_DIR overrides, e.g. a CI cache path). */
export const CACHE_DIR = process.env.QUIRE_ON_DEMAND_DIR ?? join(ROOT, '.cache/on-demand');

/** The groups: `runtimes` (bun, deno, miniflare with workerd) for tests/runtime and bench/runtimes. */
export type Group = 'runtimes';
export const GROUPS: Group[] = ['runtimes'];

/** Where a group is defined (its pinned package.json and package-lock.json) and installed. */
export interface GroupSource {
  /** The folder holding the group's package.json and package-lock.json. */
  src: string;
  /** Its name, the start of the folder it installs into. */
  name: string;
  /** The cache it installs under (default CACHE_DIR). */
  cache?: string;
}

const source = (group: Group | GroupSource): GroupSource =>
  typeof group === 'string' ? { src: join(HERE, group), name: group } : group;

/** The folder a group installs into: named by the hash of its lock, so a new lock is a new folder. */
export function groupDir(group: Group | GroupSource): string {
  const { src, name, cache = CACHE_DIR } = source(group);
  const lock = readFileSync(join(src, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex').slice(0, 12);
  return join(cache, `${name}-${hash}`);
}

/** The `node_modules` of a group if it is installed already (no install), else null. */
export function installedModules(group: Group | GroupSource): string | null {
  const dir = groupDir(group);
  return existsSync(join(dir, '.installed')) ? join(dir, 'node_modules') : null;
}

/** True while process `pid` runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const installs = new Map<string, Promise<string>>();

/**
 * Installs `group` unless it is there; resolves to its `node_modules`. Slow once (a download of a
 * few hundred MB for `runtimes`), instant afterwards. Call it from a test file's top level or a
 * `beforeAll` with a long timeout, not inside a test with the default one.
 */
export function onDemand(group: Group | GroupSource): Promise<string> {
  const dir = groupDir(group);
  let p = installs.get(dir);
  if (!p) {
    p = install(source(group), dir);
    installs.set(dir, p);
    p.catch(() => installs.delete(dir));
  }
  return p;
}

async function install(group: GroupSource, dir: string): Promise<string> {
  const done = join(dir, '.installed');
  const lockPath = `${dir}.lock`;
  await mkdir(join(dir, '..'), { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    if (existsSync(done)) return join(dir, 'node_modules');
    let lock: Awaited<ReturnType<typeof open>> | undefined;
    try {
      lock = await open(lockPath, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (lock) {
      try {
        await lock.writeFile(String(process.pid));
        await lock.close();
        if (!existsSync(done)) await runInstall(group, dir);
      } finally {
        await rm(lockPath, { force: true });
      }
      continue;
    }
    // Another process installs: wait for it, or take over when it died holding the lock.
    const holder = Number(await readFile(lockPath, 'utf8').catch(() => ''));
    if (holder > 0 && !alive(holder)) await rm(lockPath, { force: true });
    if (Date.now() > deadline) throw new Error(`on-demand ${group.name}: waited 15 min on ${lockPath}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function runInstall(group: GroupSource, dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) await copyFile(join(group.src, f), join(dir, f));
  const started = Date.now();
  process.stderr.write(`on-demand: installing ${group.name} into ${dir} (once)\n`);
  try {
    await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`on-demand ${group.name}: npm ci in ${dir} failed: ${e.stderr || e.message}`);
  }
  await writeFile(join(dir, '.installed'), `${new Date().toISOString()}\n`);
  process.stderr.write(
    `on-demand: ${group.name} installed in ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
}

/** Imports package `name` of `group` (installing the group first). */
export async function importOnDemand<T>(group: Group, name: string): Promise<T> {
  const modules = await onDemand(group);
  const pkgDir = join(modules, name);
  const pkg = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as {
    exports?: unknown;
    module?: string;
    main?: string;
  };
  const entry = exportEntry(pkg.exports) ?? pkg.module ?? pkg.main ?? 'index.js';
  return (await import(pathToFileURL(join(pkgDir, entry)).href)) as T;
}

/** The `import` (or default) target of a package's root export, if it has an exports map. */
function exportEntry(exports: unknown): string | undefined {
  let e = exports;
  if (e && typeof e === 'object' && '.' in e) e = (e as Record<string, unknown>)['.'];
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const o = e as Record<string, unknown>;
    e = o.import ?? o.node ?? o.default ?? o.require;
  }
  return typeof e === 'string' ? e : undefined;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((g) => !GROUPS.includes(g as Group));
  if (unknown.length) {
    console.error(`unknown group(s): ${unknown.join(', ')} (known: ${GROUPS.join(', ')})`);
    process.exit(2);
  }
  for (const g of (asked.length ? asked : GROUPS) as Group[]) console.log(await onDemand(g));
}
