/**
 * What the Node server does before it listens (the start's budget: spawn to health under 300 ms):
 * the HTTP app's adapter (@hono/node-server, which reads the Request/Response globals and so loads
 * Node's fetch implementation) loads after `listening`; health answers meanwhile, and the first
 * request for the app waits for it and is answered.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { ROOT, runCommand } from '../helpers/child.ts';

describe('the Node server start', () => {
  it('reads no web Request/Response global before it listens, then serves health and the app', async () => {
    const tmp = await tempDir('quire-start-order-');
    const trap = join(ROOT, 'tests/deploy/fixtures/trap-web-globals.mjs');
    const p = runCommand(process.execPath, ['--import', trap, '--import', 'tsx', 'deploy/node/main.ts'], {
      DATA_DIR: join(tmp.dir, 'data'),
      PAIRING_MODE: 'open-port',
      LOG_LEVEL: 'info',
    });
    try {
      const url = (await p.waitForLog((l) => l.msg === 'listening', 30_000)).url as string;
      // The app's first request (setup) right away: it waits for the adapter if need be.
      const [health, setup] = await Promise.all([
        fetch(`${url}/api/v1/health`),
        fetch(`${url}/api/v1/system/setup`),
      ]);
      expect(health.status).toBe(200);
      expect(setup.status).toBe(200);
      expect(((await setup.json()) as { data: { apiKey: string } }).data.apiKey).toMatch(/\S{20,}/);
      // Both times come from the server's clock (Date, in ms): the first read is not before listening.
      const trapped = p.out.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { time: string; msg: string });
      expect(trapped.map((t) => t.msg)).toContain('web global read');
      const listening = (await p.waitForLog((l) => l.msg === 'listening')).time as string;
      expect(Date.parse(trapped[0]!.time)).toBeGreaterThanOrEqual(Date.parse(listening));
      expect(await p.stop()).toBe(0);
    } finally {
      await p.kill();
      await tmp.cleanup();
    }
  });
});
