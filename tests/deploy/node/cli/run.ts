import { spawn } from 'node:child_process';
import { ROOT, runCommand } from '../../../helpers/child.ts';

/** The variables a test must not inherit from the machine (they would change what the CLI does). */
const CLEAN = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'VAULT_DIR',
  'RELAY_URL',
  'REDIS_URL',
  'QUIRE_URL',
  'QUIRE_API_KEY',
  'PAIRING_MODE',
];

function cleanEnv(env: Record<string, string>) {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const k of CLEAN) delete base[k];
  return { ...base, LOG_LEVEL: 'info', ...env };
}

/** `node bin/quire.js <args>` as a child process, to its exit. */
export function quire(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/quire.js', ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running `quire serve` / `quire relay`: waits for a JSON log line, stops with a signal. */
export function quireDaemon(args: string[], env: Record<string, string> = {}) {
  const p = runCommand(process.execPath, ['bin/quire.js', ...args], cleanEnv(env), cleanEnv({}));
  return { ...p, waitForLog: (msg: string, ms = 20_000) => p.waitForLog((l) => l.msg === msg, ms) };
}
