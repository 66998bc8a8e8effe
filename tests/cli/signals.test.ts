/**
 * What a supervisor sees: `npm start` and `npx quire serve` stop on SIGTERM sent to their own PID
 * (a container without an init, a systemd unit, a process manager), and the server they started
 * goes with them instead of being left running with its port. Each test signals that PID only.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { runCommand } from '../helpers/child.ts';

const GRACE_MS = 2_000;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Starts `command args` like a supervisor would, signals its PID, and checks that all of it stopped. */
async function stopsOnSigterm(
  command: string,
  args: string[],
  env: Record<string, string>,
  withinMs: number,
) {
  const tmp = await tempDir('quire-signals-');
  cleanups.push(tmp.cleanup);
  const p = runCommand(command, args, {
    DATA_DIR: join(tmp.dir, 'data'),
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
    ...env,
  });
  cleanups.push(p.kill);
  const { url, pid } = await p.waitForLog((l) => l.msg === 'listening', 60_000);
  expect(pid).not.toBe(p.child.pid);
  await p.waitForLog((l) => l.msg === 'index ready', 30_000);
  expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
  const t0 = performance.now();
  let gone = false;
  try {
    process.kill(p.child.pid!, 'SIGTERM');
    await p.exited;
    // The server behind the wrapper has stopped too: it logged `stopped` and its port is closed.
    await p.waitForLog((l) => l.msg === 'stopped', withinMs);
    const deadline = Date.now() + withinMs;
    while (!gone && Date.now() < deadline) {
      gone = await fetch(`${url}/api/v1/health`).then(
        () => false,
        () => true,
      );
      if (!gone) await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    // A server its wrapper left behind (what this file guards against) is not left running.
    if (!gone) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  }
  expect(gone, 'the server still answers after its supervisor stopped it').toBe(true);
  return performance.now() - t0;
}

describe('stop signals reach the server', () => {
  beforeAll(() => {
    const build = spawnSync('npm', ['run', 'build:server'], { encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
  }, 120_000);

  it('npm start (the bundle, pre-scripts skipped) stops on SIGTERM to npm within the grace', async () => {
    const ms = await stopsOnSigterm(
      'npm',
      ['start', '--ignore-scripts', '--silent'],
      { PAIRING_MODE: 'open-port' },
      GRACE_MS + 3_000,
    );
    expect(ms).toBeLessThan(GRACE_MS + 3_000);
  }, 120_000);

  it('npx quire serve stops on SIGTERM to npx within the grace', async () => {
    const ms = await stopsOnSigterm('npx', ['--yes', 'quire', 'serve', '--no-relay'], {}, GRACE_MS + 3_000);
    expect(ms).toBeLessThan(GRACE_MS + 3_000);
  }, 120_000);

  it('npx quire serve in relay mode (embedded relay) is gone within 2 s when idle', async () => {
    const ms = await stopsOnSigterm(
      'npx',
      ['--yes', 'quire', 'serve'],
      { RELAY_HOST: '127.0.0.1', PAIRING_MODE: 'relay' },
      2_000,
    );
    expect(ms).toBeLessThan(2_000);
  }, 120_000);
});
