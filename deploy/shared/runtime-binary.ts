import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PLATFORMS: Record<string, { bun: string; deno: string }> = {
  'linux-x64': { bun: 'bun-linux-x64', deno: 'linux-x64-glibc' },
  'linux-arm64': { bun: 'bun-linux-aarch64', deno: 'linux-arm64-glibc' },
  'darwin-x64': { bun: 'bun-darwin-x64', deno: 'darwin-x64' },
  'darwin-arm64': { bun: 'bun-darwin-aarch64', deno: 'darwin-arm64' },
};

/**
 * The path of the bun or deno binary that `npm ci` put into node_modules. npm may or may not run
 * the packages' install scripts: without them the binary stays in the platform package
 * (`@oven/bun-linux-x64/bin/bun`, `@deno/linux-x64-glibc/deno`); with them it is moved or linked
 * into the main package (`bun/bin/bun.exe`, `deno/deno`). Placeholders of a few bytes are skipped.
 */
export function runtimeBinary(name: 'bun' | 'deno'): string {
  const platform = PLATFORMS[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`no ${name} package for ${process.platform}-${process.arch}`);
  const candidates =
    name === 'bun'
      ? [`node_modules/@oven/${platform.bun}/bin/bun`, 'node_modules/bun/bin/bun.exe']
      : [`node_modules/@deno/${platform.deno}/deno`, 'node_modules/deno/deno'];
  for (const c of candidates) {
    const path = join(ROOT, c);
    if (existsSync(path) && statSync(path).size > 1_000_000) return path;
  }
  throw new Error(
    `${name} binary not found in node_modules (looked at ${candidates.join(', ')}); run npm ci`,
  );
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
