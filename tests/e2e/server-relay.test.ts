import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdentity } from '../../core/identity.ts';
import { tempDir } from '../helpers/app.ts';
import { runTs } from '../helpers/child.ts';
import { until } from '../helpers/wait.ts';
import { registerBody } from '../relay/fixtures.ts';
import { deleteKeys, REDIS_URL, redisClient, TEST_QUEUE_KEY, uniquePrefix } from '../relay/helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Child = ReturnType<typeof runTs>;
const stopChild = (c: Child) => async () => {
  if (c.child.exitCode === null && c.child.signalCode === null) {
    c.child.kill('SIGTERM');
    await Promise.race([c.exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  await c.kill();
};

async function json(res: Response) {
  return { status: res.status, body: (await res.json()) as any };
}

/** A note server child with its data in a temp dir; resolves once it is listening and indexed. */
async function startServer(env: Record<string, string> = {}) {
  const tmp = await tempDir();
  cleanups.push(tmp.cleanup);
  const p = runTs('deploy/node/main.ts', { DATA_DIR: join(tmp.dir, 'data'), LOG_LEVEL: 'info', ...env });
  cleanups.push(stopChild(p));
  const { url } = await p.waitForLog((l) => l.msg === 'listening');
  await p.waitForLog((l) => l.msg === 'index ready');
  const setup = (await json(await fetch(`${url}/api/v1/system/setup`))).body.data;
  const key = { 'x-service-key': setup.apiKey as string };
  await until(
    'the condition',
    async () =>
      (await json(await fetch(`${url}/api/v1/system/info`, { headers: key }))).body.data.relay.state ===
      'online',
    15_000,
  );
  return { url, setup, key, tmp };
}

async function exchange(relayUrl: string, code: string) {
  return json(
    await fetch(`${relayUrl}/api/v1/pair/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    }),
  );
}

/** Create, read, list and delete a note through `base` (an /r/<serverId> address). */
async function roundTrip(base: string, apiKey: string, name: string) {
  const h = { 'x-service-key': apiKey, 'content-type': 'application/json' };
  const path = `relay/${name}.md`;
  const created = await fetch(`${base}/api/v1/notes`, {
    method: 'POST',
    headers: h,
    body: JSON.stringify({ path, content: `# ${name}\nvia the relay` }),
  });
  expect(created.status).toBe(201);
  const got = await json(await fetch(`${base}/api/v1/notes/${encodeURIComponent(path)}`, { headers: h }));
  expect(got.body.data).toMatchObject({ path, title: name, content: `# ${name}\nvia the relay` });
  const list = await json(await fetch(`${base}/api/v1/notes`, { headers: h }));
  expect(list.body.data.map((n: any) => n.path)).toContain(path);
  const del = await json(
    await fetch(`${base}/api/v1/notes/${encodeURIComponent(path)}`, { method: 'DELETE', headers: h }),
  );
  expect(del.body.data).toMatchObject({ deleted: path });
  expect(typeof del.body.data.trashId).toBe('string'); // deletes go to the trash (docs/reference/history.md)
  expect((await fetch(`${base}/api/v1/notes/${encodeURIComponent(path)}`, { headers: h })).status).toBe(404);
}

describe('npm start with the embedded relay', () => {
  it('pairs a client with the setup code and serves notes through /r/:serverId', async () => {
    const { setup } = await startServer();
    const relayUrl: string = setup.pairing.relayUrl;
    const code: string = setup.pairing.relayCode;
    expect(setup.links.apiBase).toBe(`${relayUrl}/r/${setup.serverId}/api/v1`);

    const paired = await exchange(relayUrl, code);
    expect(paired.status).toBe(200);
    expect(paired.body.data).toMatchObject({
      serverId: setup.serverId,
      serverUrl: `${relayUrl}/r/${setup.serverId}`,
    });
    const apiKey: string = paired.body.data.apiKey;
    expect(apiKey).toMatch(/^quire_sk_/);
    expect(apiKey).not.toBe(setup.apiKey);
    await roundTrip(paired.body.data.serverUrl, apiKey, 'embedded');

    const h = { 'x-service-key': apiKey, 'content-type': 'application/json' };
    const base = paired.body.data.serverUrl as string;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${base}/api/v1/notes`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify({ path: `c/n${i}.md`, content: `body ${i}` }),
        }),
      ),
    );
    const reads = await Promise.all(
      Array.from(
        { length: 50 },
        async (_, i) => (await json(await fetch(`${base}/api/v1/notes/c%2Fn${i}.md`, { headers: h }))).body,
      ),
    );
    expect(reads.map((r) => r.data.content)).toEqual(Array.from({ length: 50 }, (_, i) => `body ${i}`));

    expect((await exchange(relayUrl, code)).status).toBe(401);
    const wrong = await fetch(`${paired.body.data.serverUrl}/api/v1/notes`, {
      headers: { 'x-service-key': 'quire_sk_nope' },
    });
    expect(wrong.status).toBe(401);
  });
});

describe('npm start with two relay processes on one Redis', () => {
  it('takes a request in through one relay while the server pulls through the other', async () => {
    const redis = await redisClient();
    const prefix = uniquePrefix();
    cleanups.push(async () => {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    });
    const relayEnv = {
      REDIS_URL,
      RELAY_QUEUE_KEY: TEST_QUEUE_KEY,
      RELAY_REDIS_PREFIX: prefix,
      RELAY_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    };
    const relays: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = runTs('deploy/relay/main.ts', relayEnv);
      cleanups.push(stopChild(r));
      relays.push((await r.waitForLog((l) => l.msg === 'relay listening')).url);
    }
    const [a, b] = relays as [string, string];
    const { setup } = await startServer({ RELAY_URL: a });
    const paired = await exchange(b, setup.pairing.relayCode);
    expect(paired.status).toBe(200);
    const viaB = `${b}/r/${setup.serverId}`;
    await roundTrip(viaB, paired.body.data.apiKey, 'two-relays');
    const rogue = await json(
      await fetch(`${b}/api/v1/relay/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // A statement properly signed, by a key that is not the server's.
        body: JSON.stringify(
          await registerBody({ identity: await createIdentity(), serverId: setup.serverId }),
        ),
      }),
    );
    expect(rogue.status).toBe(403);
  });
});
