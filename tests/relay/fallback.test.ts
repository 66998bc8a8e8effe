import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayApp } from '../../relay/http/app.ts';
import { memoryRelayQueue } from '../../relay/queue/memory.ts';
import { silentLogger } from '../helpers/logger.ts';
import { call } from './e2e-harness.ts';
import { onlineTunnel, smallApp } from './fixtures.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A relay without the tunnel endpoint (as before the tunnel): its upgrade answers 404. */
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

describe('the tunnel connector falls back to long-poll (relay/connector/fallback.ts)', () => {
  it('moves to the long-poll protocol when the upgrade answers 404, serves requests, and stops cleanly', async () => {
    const relay = await longPollOnlyRelay();
    const app = smallApp();
    const { connector, ...who } = await onlineTunnel(relay.url, app, cleanups);
    expect(relay.upgrades()).toBe(1);
    const r = await call(`${relay.url}/r/${who.serverId}/api/v1/n/5`);
    expect([r.status, r.json.n]).toEqual([200, 5]);
    expect(connector.status().publicUrl).toBe(`http://relay.test/r/${who.serverId}`);
    await connector.stop(1_000);
    expect(connector.status().state).toBe('stopped');
    const after = await call(`${relay.url}/r/${who.serverId}/api/v1/n/5`);
    expect([after.status, after.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
    // Once moved, it stays on long-poll: no second upgrade is tried.
    expect(relay.upgrades()).toBe(1);
  });
});
