import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installedModules, onDemand } from './on-demand/index.ts';

const PLATFORMS: Record<string, { bun: string; deno: string }> = {
  'linux-x64': { bun: 'bun-linux-x64', deno: 'linux-x64-glibc' },
  'linux-arm64': { bun: 'bun-linux-aarch64', deno: 'linux-arm64-glibc' },
  'darwin-x64': { bun: 'bun-darwin-x64', deno: 'darwin-x64' },
  'darwin-arm64': { bun: 'bun-darwin-aarch64', deno: 'darwin-arm64' },
};

/**
 * The path of the bun or deno binary in the on-demand `runtimes` group (deploy/shared/on-demand:
 * installed on first use, not by `npm ci`); `ensureRuntimes()` must have resolved first. npm may or
 * may not run the packages' install scripts: without them the binary stays in the platform package
 * (`@oven/bun-linux-x64/bin/bun`, `@deno/linux-x64-glibc/deno`); with them it is moved or linked
 * into the main package (`bun/bin/bun.exe`, `deno/deno`). Placeholders of a few bytes are skipped.
 */
export function runtimeBinary(name: 'bun' | 'deno'): string {
  const modules = installedModules('runtimes');
  if (!modules) throw new Error(`${name} is not installed yet: await ensureRuntimes() first`);
  const platform = PLATFORMS[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`no ${name} package for ${process.platform}-${process.arch}`);
  const candidates =
    name === 'bun'
      ? [`@oven/${platform.bun}/bin/bun`, 'bun/bin/bun.exe']
      : [`@deno/${platform.deno}/deno`, 'deno/deno'];
  for (const c of candidates) {
    const path = join(modules, c);
    if (existsSync(path) && statSync(path).size > 1_000_000) return path;
  }
  throw new Error(
    `${name} binary not found in ${modules} (looked at ${candidates.join(', ')}); delete that folder to reinstall`,
  );
}

/** Installs Bun, Deno and Miniflare (with workerd) on first use; resolves to their node_modules. */
export const ensureRuntimes = (): Promise<string> => onDemand('runtimes');

/** The version of an on-demand runtime package (`bun`, `deno`, `miniflare`), which its binary prints. */
export async function runtimeVersion(pkg: 'bun' | 'deno' | 'miniflare'): Promise<string> {
  const modules = await ensureRuntimes();
  return JSON.parse(await readFile(join(modules, pkg, 'package.json'), 'utf8')).version;
}

/** Arguments of `deno run`: no lock file written, nothing fetched, the permissions the server needs. */
export function denoArgs(entry: string, writable: string[]): string[] {
  return [
    'run',
    '--no-lock',
    '--cached-only',
    '--no-prompt',
    '--allow-net',
    '--allow-env',
    '--allow-sys',
    '--allow-read',
    `--allow-write=${writable.join(',')}`,
    entry,
  ];
}
