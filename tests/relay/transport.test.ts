/**
 * How a server reaches its relay (RELAY_TRANSPORT): the tunnel, or the spec's long-poll
 * register/pull/respond. Nothing switches by itself: a relay that only long-polls (its tunnel
 * upgrade answers 404) leaves the tunnel connector refused with a sentence naming the variable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { relayConnector } from '../../relay/connector/connector.ts';
import { createRelayApp } from '../../relay/http/app.ts';
import { memoryRelayQueue } from '../../relay/queue/memory.ts';
import { liveServer } from '../helpers/live-server.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';
import { call } from './e2e-harness.ts';
import { newIdentity, pairing, smallApp, startTunnel } from './fixtures.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A relay with the spec's long-poll endpoints and no tunnel endpoint: its upgrade answers 404. */
async function longPollOnlyRelay() {
  const queue = memoryRelayQueue();
  const closing = new AbortController();
  const server: Server = createServer(
    getRequestListener(
      createRelayApp({
        queue,
        publicBaseUrl: 'http://relay.test',
        logger: silentLogger,
        closing: closing.signal,
        limits: { pullWaitMs: 500 },
      }).fetch,
    ),
  );
  let upgrades = 0;
  server.on('upgrade', (_req, socket) => {
    upgrades += 1;
    socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    closing.abort();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await queue.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, upgrades: () => upgrades };
}

describe('the relay transport', () => {
  it('the tunnel connector on a relay without the tunnel endpoint is refused, saying what to set', async () => {
    const relay = await longPollOnlyRelay();
    const { connector, serverId } = await startTunnel(relay.url, smallApp(), cleanups);
    await until('the connector to be refused', () => connector.status().state === 'refused');
    expect(connector.status()).toMatchObject({
      transport: 'tunnel',
      lastError:
        'the relay has no tunnel endpoint (upgrade answered 404); set RELAY_TRANSPORT=poll for a relay that only long-polls',
    });
    const r = await call(`${relay.url}/r/${serverId}/api/v1/n/5`);
    expect([r.status, r.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
  });

  it('the long-poll connector (RELAY_TRANSPORT=poll) serves through that relay', async () => {
    const relay = await longPollOnlyRelay();
    const who = await newIdentity();
    const connector = relayConnector({
      relayUrl: relay.url,
      serverId: who.serverId,
      identity: who.identity,
      handle: smallApp().handle,
      redeemPairCode: pairing().redeemPairCode,
      logger: silentLogger,
      backoff: { minMs: 20, maxMs: 200 },
    });
    connector.start();
    cleanups.push(() => connector.stop(500));
    await until('the connector to be online', () => connector.status().state === 'online');
    const r = await call(`${relay.url}/r/${who.serverId}/api/v1/n/5`);
    expect([r.status, r.json.n]).toEqual([200, 5]);
    expect(connector.status().transport).toBe('poll');
    expect(relay.upgrades()).toBe(0);
  });

  for (const transport of ['tunnel', 'poll'] as const) {
    it(`the server runs the connector RELAY_TRANSPORT names (${transport}) and is reached through the relay`, async () => {
      const server = await liveServer({ RELAY_TRANSPORT: transport });
      cleanups.push(() => server.stop());
      const info = await call(`${server.url}/api/v1/system/info`, {
        headers: { 'x-service-key': server.firstKey },
      });
      expect(info.json.data.relay).toMatchObject({ state: 'online', transport });
      const setup = await server.setup();
      const relayed = await call(`${setup.links.relayApiBase}/notes`, {
        headers: { 'x-service-key': server.firstKey },
      });
      expect(relayed.status).toBe(200);
    });
  }
});
