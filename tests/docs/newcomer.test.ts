/**
 * The getting-started path (docs/guide/getting-started.md), step by step, with the same commands (free ports instead of 3000,
 * 8787, 8788 and 8789, and temporary folders, so it can run beside other tests).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createQuireClient } from '../../sdk/index.ts';
import { quire, quireDaemon } from '../deploy/node/cli/run.ts';
import { tempDir } from '../helpers/app.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the getting-started guide, word for word', () => {
  it('install, start, setup link, link a client, a channel, a relay, scale it', async () => {
    const tmp = await tempDir('quire-readme-');
    cleanups.push(tmp.cleanup);
    const env = { DATA_DIR: join(tmp.dir, 'data'), PORT: '0', RELAY_PORT: '0' };

    // 1. npx quire doctor
    expect((await quire(['doctor'], env)).code).toBe(0);

    // 2. npm start (quire serve is the same server), with the embedded relay.
    const first = quireDaemon(['serve'], env);
    cleanups.push(() => first.kill());
    const { url } = await first.waitForLog('listening');
    await first.waitForLog('relay connector online');

    // 3. npx quire setup --show-key
    const setup = JSON.parse((await quire(['setup', '--show-key', '--json'], { QUIRE_URL: url })).stdout);
    const key: string = setup.apiKey;
    const link = new URL(setup.links.connect.hostedClient);
    expect(link.origin + link.pathname).toBe(`${url}/link`);

    // 4. The link page: exchange the code at the relay, verify, link (what client-link does).
    const relayUrl = link.searchParams.get('relayUrl')!;
    const exchanged = await fetch(`${relayUrl}/api/v1/pair/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: link.searchParams.get('relayCode') }),
    });
    const device = (await exchanged.json()).data as { serverUrl: string; apiKey: string };
    const client = createQuireClient({ baseUrl: device.serverUrl, apiKey: device.apiKey });
    expect((await client.auth.verify()).valid).toBe(true);
    expect((await client.auth.link()).setupComplete).toBe(true);

    // 5. The web channel, with the guide's body and $KEY.
    const channel = await fetch(`${url}/api/v1/channels`, {
      method: 'POST',
      headers: { 'X-Service-Key': key, 'content-type': 'application/json' },
      body: '{"provider": "web", "name": "Browser"}',
    });
    expect(channel.status).toBe(201);

    // 6. npx quire relay; RELAY_URL=... npm start; npx quire setup
    expect(await first.stop()).toBe(0);
    const relay = quireDaemon(['relay', '--port', '0', '--host', '127.0.0.1']);
    cleanups.push(() => relay.kill());
    const relayOne = (await relay.waitForLog('relay listening')).url as string;
    const second = quireDaemon(['serve'], { ...env, RELAY_URL: relayOne });
    cleanups.push(() => second.kill());
    const url2 = (await second.waitForLog('listening')).url as string;
    await second.waitForLog('relay connector online');
    expect((await quire(['setup'], { QUIRE_URL: url2 })).stdout).toContain(
      `Pairing:        relay via ${relayOne}`,
    );

    // 7. Two relays on one Redis: in at one, answered through the other.
    expect(await relay.stop()).toBe(0);
    const redis = {
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      RELAY_REDIS_PREFIX: `readme-${Date.now()}:`,
      RELAY_QUEUE_KEY: 'readme-relay-queue-key-0123456789abcdef',
    };
    const a = quireDaemon(['relay', '--port', '0', '--host', '127.0.0.1'], redis);
    const b = quireDaemon(['relay', '--port', '0', '--host', '127.0.0.1'], redis);
    cleanups.push(
      () => a.kill(),
      () => b.kill(),
    );
    const [urlA, urlB] = [
      (await a.waitForLog('relay listening')).url,
      (await b.waitForLog('relay listening')).url,
    ];
    const third = quireDaemon(['serve'], { ...env, RELAY_URL: urlA });
    cleanups.push(() => third.kill());
    await third.waitForLog('relay connector online');
    const serverId = setup.serverId as string;
    const health = await fetch(`${urlB}/r/${serverId}/api/v1/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).data.status).toBe('ok');
    expect(await third.stop()).toBe(0);
  }, 120_000);
});
