import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { quireDaemon } from './node/cli/run.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Sends SIGTERM to the child's PID and resolves with the exit code and the time it took. */
async function terminate(p: ReturnType<typeof quireDaemon>) {
  const t0 = performance.now();
  process.kill(p.child.pid!, 'SIGTERM');
  const code = await p.exited;
  return { code, ms: performance.now() - t0 };
}

describe('SIGTERM when idle', () => {
  it('quire serve in relay mode (embedded relay, connector online) exits within 1 s', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'quire-sigterm-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const p = quireDaemon(['serve', '--port', '0'], {
      DATA_DIR: join(dir, 'data'),
      VAULT_DIR: join(dir, 'vault'),
      RELAY_PORT: '0',
      RELAY_HOST: '127.0.0.1',
    });
    cleanups.push(() => p.kill());
    await p.waitForLog('relay connector online');
    await p.waitForLog('index ready');
    const { code, ms } = await terminate(p);
    expect(code).toBe(0);
    expect(p.out.stdout).toContain('"msg":"stopped"');
    expect(ms).toBeLessThan(1_000);
  }, 30_000);

  it('quire relay exits within 1 s', async () => {
    const p = quireDaemon(['relay', '--port', '0', '--host', '127.0.0.1']);
    cleanups.push(() => p.kill());
    await p.waitForLog('relay listening');
    const { code, ms } = await terminate(p);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(1_000);
  }, 30_000);
});
