/**
 * `npm run start:bun` / `npm run start:deno`: runs the Bun or Deno root with the binary of the
 * on-demand `runtimes` group (installed on first use into .cache/on-demand), passing the
 * environment through and forwarding Ctrl-C and SIGTERM.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { denoArgs, ensureRuntimes, runtimeBinary } from './runtime-binary.ts';

const which = process.argv[2];
if (which !== 'bun' && which !== 'deno') {
  console.error('usage: launch.ts bun|deno');
  process.exit(2);
}
const dataDir = resolve(process.env.DATA_DIR ?? './data');
const vaultDir = resolve(process.env.VAULT_DIR ?? `${dataDir}/notes`);
const args = which === 'bun' ? ['deploy/bun/main.ts'] : denoArgs('deploy/deno/main.ts', [dataDir, vaultDir]);
await ensureRuntimes();
const child = spawn(runtimeBinary(which), args, { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
