/**
 * What a supervisor sees: `npm start` and `npx quire serve` stop on SIGTERM sent to their own PID
 * (a container without an init, a systemd unit, a process manager), and the server they started
 * goes with them instead of being left running with its port. Each test signals that PID only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/app.ts';
import { runCommand } from '../../../helpers/child.ts';
import { rootRelease } from '../../../helpers/root-release.ts';

const GRACE_MS = 2_000;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** True while `pid` runs (a zombie nobody reaped yet counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/stat')) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** Starts `command args` like a supervisor would, signals its PID, and checks that all of it stopped. */
async function stopsOnSigterm(
  command: string,
  args: string[],
  env: Record<string, string>,
  withinMs: number,
  before?: (p: ReturnType<typeof runCommand>) => Promise<void>,
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
  // Whatever happens below, the server this test started is not left running.
  cleanups.push(async () => {
    if (running(pid)) process.kill(pid, 'SIGKILL');
  });
  await before?.(p);
  await p.waitForLog((l) => l.msg === 'index ready', 30_000);
  expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
  const t0 = performance.now();
  process.kill(p.child.pid!, 'SIGTERM');
  await p.exited;
  // The server behind the wrapper has stopped too: it logged `stopped`, and its process has ended
  // (no timer or socket keeps it alive after that).
  await p.waitForLog((l) => l.msg === 'stopped', withinMs);
  const deadline = Date.now() + withinMs;
  while (running(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  expect(running(pid), 'the server process is still running after its supervisor stopped it').toBe(false);
  await expect(fetch(`${url}/api/v1/health`)).rejects.toThrow();
  return performance.now() - t0;
}

describe('stop signals reach the server', () => {
  // npm start runs this folder's release; built here (once for every file), so no start builds it.
  beforeAll(rootRelease, 360_000);

  it('npm start (the release artifact) stops on SIGTERM to npm within the grace', async () => {
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

  it('npx quire serve in relay mode (embedded relay) is gone within 2 s when idle, also after relayed requests', async () => {
    const ms = await stopsOnSigterm(
      'npx',
      ['--yes', 'quire', 'serve'],
      { RELAY_HOST: '127.0.0.1', PAIRING_MODE: 'relay' },
      2_000,
      async (p) => {
        // A request through the relay's tunnel leaves its deadline timer behind in the server:
        // it must not keep the stopped process alive (it did, for up to the relay's answer timeout).
        const relay = (await p.waitForLog((l) => l.msg === 'relay listening')).url as string;
        const { serverId } = await p.waitForLog((l) => l.msg === 'relay connector online');
        const res = await fetch(`${relay}/r/${serverId}/api/v1/health`);
        expect(res.status).toBe(200);
      },
    );
    expect(ms).toBeLessThan(2_000);
  }, 120_000);
});
