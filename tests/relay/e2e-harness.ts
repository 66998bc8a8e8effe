import type { Redis } from 'ioredis';
import { serverIdOf } from '../../core/identity.ts';
import {
  type RelayConnector,
  type RelayConnectorOptions,
  relayConnector,
} from '../../relay/connector/connector.ts';
import { type RunningRelay, startRelay } from '../../relay/node/server.ts';
import { silentLogger } from '../helpers/logger.ts';
import { type RelayOverrides, relayConfig } from '../helpers/relay-config.ts';
import { until } from '../helpers/wait.ts';
import { newIdentity, pairing, smallApp } from './fixtures.ts';
import { deleteKeys, REDIS_URL, redisClient, TEST_QUEUE_KEY, uniquePrefix } from './helpers.ts';

/**
 * Real sockets, real Redis: relays on port 0 sharing one key prefix, connectors, and cleanup
 * that stops every connector and relay and deletes the prefix's keys.
 */
export function e2eWorld() {
  const prefix = uniquePrefix();
  const relays: RunningRelay[] = [];
  const connectors: RelayConnector[] = [];
  const extra: (() => Promise<void>)[] = [];
  let admin: Redis | null = null;

  return {
    prefix,
    /** A relay on 127.0.0.1:0 (Redis at REDIS_URL under this world's prefix unless overridden). */
    async relay(config: RelayOverrides = {}) {
      const cfg = relayConfig({
        host: '127.0.0.1',
        port: 0,
        redisUrl: REDIS_URL,
        redisPrefix: prefix,
        queueKey: TEST_QUEUE_KEY,
        shutdownGraceMs: 200,
        ...config,
        limits: { pullWaitMs: 1_000, ...config.limits },
      });
      // A client reuses an idle keep-alive socket until its own timer (the server's hint less a
      // second) closes it. When this one process (client, relay and tunnel server alike) is starved
      // for seconds on a busy machine, the relay's timer can close a socket the client then picks:
      // ECONNRESET on a POST, which no client retries. That race belongs to HTTP/1.1, not to what
      // these tests check, so idle sockets here live a minute unless a test sets its own timeouts.
      if (!config.timeouts) cfg.timeouts = { ...cfg.timeouts, keepAliveMs: 60_000 };
      const r = await startRelay(cfg, { logger: silentLogger });
      relays.push(r);
      return r;
    },
    /** A started connector for `smallApp` (or `handle`) with real pairing and a fresh identity. */
    async server(relayUrl: string, over: Partial<RelayConnectorOptions> = {}) {
      const app = smallApp();
      const pair = pairing();
      const id = over.identity
        ? { identity: over.identity, serverId: (await serverIdOf(over.identity.publicKey)) as string }
        : await newIdentity();
      const serverId = over.serverId ?? id.serverId;
      const connector = relayConnector({
        relayUrl,
        serverId,
        identity: id.identity,
        handle: app.handle,
        redeemPairCode: pair.redeemPairCode,
        pairCodeHash: pair.pairCodeHash,
        logger: silentLogger,
        backoff: { minMs: 20, maxMs: 200 },
        ...over,
      });
      connectors.push(connector);
      connector.start();
      const online = () =>
        until('the connector to be online', () => connector.status().state === 'online', 10_000);
      return { app, pair, serverId, identity: id.identity, connector, online };
    },
    /** Runs `fn` at cleanup. */
    defer(fn: () => Promise<void>) {
      extra.push(fn);
    },
    async cleanup() {
      for (const c of connectors.splice(0)) await c.stop();
      for (const r of relays.splice(0)) await r.stop();
      for (const fn of extra.splice(0).reverse()) await fn();
      admin ??= await redisClient();
      await deleteKeys(admin, prefix);
      await admin.quit();
      admin = null;
    },
  };
}

/** fetch + JSON (null when the body is not JSON). */
export async function call(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  let json: any = null;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {}
  return { status: res.status, headers: res.headers, json, bytes };
}

/** POST a JSON body. */
export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
