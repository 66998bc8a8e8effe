/**
 * Every runtime root runs the shared lifecycle's periodic reconcile (deploy/shared/lifecycle.ts):
 * Node, Bun and Deno on a timer (the log says `reconcile` with trigger `timer`), the Worker on its
 * Durable Object alarm (a note put straight into R2, behind the index's back, appears).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { R2BucketLike } from '../../adapters/store/r2-note-store.ts';
import { denoArgs, ensureRuntimes, runtimeBinary } from '../../deploy/shared/runtime-binary.ts';
import { tempDir } from '../helpers/app.ts';
import { runCommand, runTs } from '../helpers/child.ts';
import { startWorkerd } from './runtimes.ts';

// Bun, Deno and Miniflare are installed on first use into .cache/on-demand (not by npm ci).
await ensureRuntimes();

const ROOTS = {
  node: (env: Record<string, string>) => runTs('deploy/node/main.ts', env),
  bun: (env: Record<string, string>) => runCommand(runtimeBinary('bun'), ['deploy/bun/main.ts'], env),
  deno: (env: Record<string, string>) =>
    runCommand(runtimeBinary('deno'), denoArgs('deploy/deno/main.ts', [env.DATA_DIR!]), {
      ...env,
      DENO_NO_UPDATE_CHECK: '1',
    }),
};

describe.concurrent('each runtime root reconciles the vault periodically', () => {
  for (const [name, launch] of Object.entries(ROOTS)) {
    it(`${name}: the reconcile timer runs, and SIGTERM still stops the root cleanly`, async () => {
      const tmp = await tempDir(`quire-reconcile-${name}-`);
      const vault = join(tmp.dir, 'notes');
      await mkdir(vault, { recursive: true });
      const p = launch({
        DATA_DIR: tmp.dir,
        VAULT_DIR: vault,
        RECONCILE_SECONDS: '5',
        LOG_LEVEL: 'debug',
        PAIRING_MODE: 'open-port',
        NO_COLOR: '1',
      });
      try {
        await p.waitForLog((l) => l.msg === 'index ready', 30_000);
        const line = await p.waitForLog((l) => l.msg === 'reconcile' && l.trigger === 'timer', 15_000);
        expect(line.changed).toBe(0);
        expect(await p.stop()).toBe(0);
        expect(p.out.stdout).toContain('"msg":"stopped"');
      } finally {
        await p.kill();
        await tmp.cleanup();
      }
    }, 60_000);
  }

  it('workerd: the Durable Object alarm reconciles a note put into R2 behind the index', async () => {
    const rt = await startWorkerd({ vars: { RECONCILE_SECONDS: '5', SERVICE_AUTH_MODE: 'api-key' } });
    try {
      const key = ((await (await fetch(`${rt.url}/api/v1/system/setup`)).json()) as any).data.apiKey;
      const headers = { 'x-service-key': key };
      const paths = async () =>
        ((await (await fetch(`${rt.url}/api/v1/notes`, { headers })).json()) as any).data.map(
          (n: { path: string }) => n.path,
        );
      expect(await paths()).toEqual([]);
      const bucket = (await rt.mf.getR2Bucket('NOTES')) as unknown as R2BucketLike;
      await bucket.put('outside.md', new TextEncoder().encode('# Written outside'), {
        customMetadata: { mtime: String(Date.now()) },
      });
      const deadline = Date.now() + 20_000;
      let seen: string[] = [];
      while (Date.now() < deadline && !seen.includes('outside.md')) {
        await new Promise((r) => setTimeout(r, 250));
        seen = await paths();
      }
      expect(seen).toEqual(['outside.md']);
    } finally {
      await rt.stop();
    }
  }, 60_000);
});
