import { afterEach, describe, expect, it } from 'vitest';
import { relayConnector } from '../../../relay/connector/connector.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';
import { call, e2eWorld, postJson } from '../e2e-harness.ts';
import { newIdentity, registerBody, smallApp } from '../fixtures.ts';
import { deleteKeys, redisClient } from '../helpers.ts';

let world: ReturnType<typeof e2eWorld>;
afterEach(async () => {
  await world.cleanup();
});

/** A stranger's attempts on `serverId` at `url`: every one must be refused. */
async function strangerTries(url: string, serverId: string, ownerPublicKey: string) {
  const stranger = await newIdentity();
  // Its own key, the victim's id.
  const own = await postJson(
    `${url}/api/v1/relay/register`,
    await registerBody({ identity: stranger.identity, serverId }),
  );
  // The victim's public key (it is not secret), its own signature.
  const borrowed = await registerBody({ identity: stranger.identity, serverId });
  borrowed.publicKey = ownerPublicKey;
  const claimed = await postJson(`${url}/api/v1/relay/register`, borrowed);
  // A secret of its own choosing and no key: not a register at all (first come is never served).
  const old = await postJson(`${url}/api/v1/relay/register`, { serverId, secret: 'x'.repeat(40) });
  // Pulling with a guessed session.
  const pull = await postJson(`${url}/api/v1/relay/pull`, { serverId, secret: 'y'.repeat(43), waitMs: 0 });
  return [own.status, claimed.status, old.status, [401, 403].includes(pull.status) ? 'refused' : pull.status];
}

const REFUSED = [403, 403, 400, 'refused'];

describe('key-based server identity (real sockets, Redis)', () => {
  it('a stranger cannot take a serverId: fresh relay, restarted memory relay, flushed Redis, second instance; no request reaches it', async () => {
    world = e2eWorld();
    const w = world;
    // The real server, behind a connector, on a memory relay.
    const mem = await w.relay({ redisUrl: null });
    const owner = await w.server(mem.url);
    await owner.online();
    const pub = owner.identity.publicKey;

    // 1. A fresh relay that never saw the server.
    const fresh = await w.relay({ redisUrl: null });
    expect(await strangerTries(fresh.url, owner.serverId, pub)).toEqual(REFUSED);

    // 2. The memory relay restarts on the same port: it forgot everything, and still refuses.
    const port = mem.port;
    await mem.stop();
    const restarted = await w.relay({ redisUrl: null, port });
    expect(await strangerTries(restarted.url, owner.serverId, pub)).toEqual(REFUSED);
    // The owner comes back by itself and serves its clients.
    await until('the owner to serve again', async () => {
      const r = await call(`${restarted.url}/r/${owner.serverId}/api/v1/n/7`);
      return r.status === 200 && r.json.n === 7;
    });

    // 3. Redis: two instances on one Redis, the owner registered through A.
    const a = await w.relay();
    const b = await w.relay();
    const ownerB = await w.server(a.url, { identity: owner.identity, serverId: owner.serverId });
    await ownerB.online();
    expect(await strangerTries(b.url, owner.serverId, pub)).toEqual(REFUSED);
    // 4. Redis loses every key of this relay: still refused on both instances.
    const admin = await redisClient();
    await deleteKeys(admin, w.prefix);
    await admin.quit();
    expect(await strangerTries(a.url, owner.serverId, pub)).toEqual(REFUSED);
    expect(await strangerTries(b.url, owner.serverId, pub)).toEqual(REFUSED);

    // A stranger's connector with its own key, pointed at the owner's id, stays refused and
    // never receives a request, while the owner (re-registering after the flush) gets them all.
    const strangerApp = smallApp();
    const stranger = relayConnector({
      relayUrl: b.url,
      serverId: owner.serverId,
      identity: (await newIdentity()).identity,
      handle: strangerApp.handle,
      redeemPairCode: async () => ({ apiKey: 'stolen' }),
      logger: silentLogger,
      backoff: { minMs: 20, maxMs: 100 },
    });
    stranger.start();
    w.defer(() => stranger.stop(100));
    await until('the stranger to be refused', () => stranger.status().state === 'refused');
    const answers = await until(
      'the owner to answer through B after the flush',
      async () => {
        const r = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            call(`${b.url}/r/${owner.serverId}/api/v1/n/${i}`, { headers: { 'x-service-key': 'k' } }),
          ),
        );
        return r.every((x) => x.status === 200) ? r : null;
      },
      10_000,
    );
    expect(answers?.map((r) => r.json.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(strangerApp.calls.size).toBe(0);
    expect(stranger.status().handled).toBe(0);
  }, 30_000);
});
