import { afterEach, describe, expect } from 'vitest';
import type { RelayConnector, RelayConnectorOptions } from '../../relay/connector/connector.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld, postJson } from '../relay/e2e-harness.ts';
import { newIdentity, pairing, smallApp } from '../relay/fixtures.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

/** Builds the connector under test from the options every transport shares. */
export type MakeConnector = (opts: RelayConnectorOptions) => RelayConnector;

export interface RelayConnectorContractOptions {
  make: MakeConnector;
  /** The relay's queue: the in-process memory queue, or Redis (under a fresh prefix). */
  queue: 'memory' | 'redis';
  skip?: DeclaredSkip[];
}

/** Titles of the cases a transport may declare it skips. */
export const RELAY_CONNECTOR_CASES = {
  concurrent: 'runs many requests at once, each answered with its own bytes',
  largeAnswer: 'an answer larger than the relay allows fails alone with 413 PAYLOAD_TOO_LARGE',
} as const;

/**
 * What every RelayConnector (relay/connector/connector.ts) does against a real relay on real
 * sockets, whatever its transport: online with its public URL, requests and answers byte for
 * byte both ways, pairing, errors of the server's app, and a stop the relay hears at once.
 */
export function runRelayConnectorContract(name: string, opts: RelayConnectorContractOptions) {
  describe(`RelayConnector contract: ${name} (${opts.queue} relay)`, () => {
    const { test, checkSkips } = withDeclaredSkips(opts.skip);
    let world: ReturnType<typeof e2eWorld>;
    afterEach(async () => {
      await world?.cleanup();
    });

    /** A relay, and the connector under test started against it for `smallApp`. */
    async function setup(limits: Record<string, number> = {}) {
      world = e2eWorld();
      const relay = await world.relay({ ...(opts.queue === 'memory' ? { redisUrl: null } : {}), limits });
      const app = smallApp();
      const pair = pairing();
      const who = await newIdentity();
      const connector = opts.make({
        relayUrl: relay.url,
        serverId: who.serverId,
        identity: who.identity,
        handle: app.handle,
        redeemPairCode: pair.redeemPairCode,
        pairCodeHash: pair.pairCodeHash,
        logger: silentLogger,
        backoff: { minMs: 20, maxMs: 200 },
      });
      world.defer(() => connector.stop(200));
      connector.start();
      await until('the connector to be online', () => connector.status().state === 'online', 10_000);
      return { relay, app, pair, connector, base: `${relay.url}/r/${who.serverId}`, serverId: who.serverId };
    }

    test('goes online and reports its public URL, never a secret', async () => {
      const { connector, relay, serverId } = await setup();
      const s = connector.status();
      expect(s).toMatchObject({ state: 'online', serverId, relayUrl: relay.url, lastError: null });
      expect(s.publicUrl).toMatch(new RegExp(`/r/${serverId}$`));
      expect(JSON.stringify(s)).not.toMatch(/secret|privateKey/i);
    });

    test('relays a request and its answer byte for byte: method, path and query, headers, binary body', async () => {
      const { base, connector } = await setup();
      const body = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) % 256);
      const r = await call(`${base}/api/v1/echo/a%2Fb?x=1&y=%20`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', 'x-custom': 'v' },
        body,
      });
      expect(r.status).toBe(200);
      expect([...r.bytes]).toEqual([...body]);
      expect(r.headers.get('x-method')).toBe('PUT');
      expect(r.headers.get('x-path')).toBe('/api/v1/echo/a%2Fb?x=1&y=%20');
      expect(r.headers.get('x-seen-headers')).toContain('x-custom');
      expect(r.headers.get('x-forwarded-prefix-seen')).toMatch(/\/r\/[^/]+$/);
      const bin = await call(`${base}/api/v1/binary`);
      expect([...bin.bytes]).toEqual(Array.from({ length: 256 }, (_, i) => i));
      const head = await call(`${base}/api/v1/n/4`, { method: 'HEAD' });
      expect([head.status, head.bytes.byteLength]).toEqual([200, 0]);
      expect(connector.status().handled).toBeGreaterThanOrEqual(3);
    });

    test(RELAY_CONNECTOR_CASES.concurrent, async () => {
      const { base } = await setup();
      const all = await Promise.all(Array.from({ length: 24 }, (_, i) => call(`${base}/api/v1/n/${i}`)));
      expect(all.map((r) => [r.status, r.json?.n])).toEqual(all.map((_, i) => [200, i]));
    });

    test("answers the app's errors as the app gave them; a handler that throws is a 500 envelope", async () => {
      const { base } = await setup();
      const boom = await call(`${base}/api/v1/boom`);
      expect([boom.status, boom.json.success, boom.json.error.code]).toEqual([500, false, 'INTERNAL_ERROR']);
      const missing = await call(`${base}/api/v1/nothing-here`);
      expect(missing.status).toBe(404);
    });

    test(RELAY_CONNECTOR_CASES.largeAnswer, async () => {
      const { base } = await setup({ maxBodyBytes: 200 });
      // The answer of /api/v1/binary is 256 bytes: over the limit the relay told the connector.
      const over = await call(`${base}/api/v1/binary`);
      expect([over.status, over.json?.error?.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      // It failed alone: the next request is answered.
      expect((await call(`${base}/api/v1/n/2`)).json.n).toBe(2);
    });

    test('redeems a pairing code through the relay exactly once', async () => {
      const { relay, pair, serverId } = await setup();
      // The code's hash reaches the relay on connect.
      const code = pair.code();
      const ok = await until('the exchange to succeed', async () => {
        const r = await postJson(`${relay.url}/api/v1/pair/exchange`, { code });
        return r.status === 200 ? r : null;
      });
      if (!ok) throw new Error('no exchange');
      expect(ok.json.data.serverId).toBe(serverId);
      expect(pair.keys.has(ok.json.data.apiKey)).toBe(true);
      expect((await postJson(`${relay.url}/api/v1/pair/exchange`, { code })).status).toBe(401);
    });

    test('stop() finishes what is in flight, then the relay answers 503 SERVER_OFFLINE at once', async () => {
      const { base, connector } = await setup();
      const slow = call(`${base}/api/v1/slow?ms=300`);
      await until('the slow request to run', () => connector.status().inFlight > 0 || null);
      await connector.stop(5_000);
      expect((await slow).status).toBe(200);
      expect(connector.status().state).toBe('stopped');
      const after = await call(`${base}/api/v1/n/1`);
      expect([after.status, after.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
    });

    checkSkips();
  });
}
