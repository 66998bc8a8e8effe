import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { tunnelConnector } from '../../relay/connector/tunnel-connector.ts';
import { silentLogger } from '../helpers/logger.ts';
import { freePort } from '../helpers/ports.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld } from '../relay/e2e-harness.ts';
import { newIdentity, smallApp } from '../relay/fixtures.ts';

let world: ReturnType<typeof e2eWorld>;
afterEach(async () => {
  await world.cleanup();
});

/** A throwaway redis-server on `port` (no persistence), ready when the promise resolves. */
async function redisServer(port: number) {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await until(
    'redis-server to accept connections',
    () => out.includes('Ready to accept connections'),
    10_000,
  );
  return {
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

describe('relay connector resilience', () => {
  it('resumes on its own after the relay restarts (memory queue: the relay forgot it)', async () => {
    world = e2eWorld();
    const w = world;
    const first = await w.relay({ redisUrl: null });
    const srv = await w.server(first.url);
    await srv.online();
    const path = `/r/${srv.serverId}/api/v1/n/1`;
    expect((await call(`${first.url}${path}`)).json.n).toBe(1);
    await first.stop();
    await until('the connector to notice', () => srv.connector.status().state === 'offline');
    const second = await w.relay({ redisUrl: null, port: first.port });
    await until(
      'requests to flow again',
      async () => (await call(`${second.url}${path}`)).json?.n === 1,
      15_000,
    );
    expect(srv.connector.status().state).toBe('online');
    expect(srv.connector.status().reconnects).toBeGreaterThanOrEqual(1);
  });

  it('rides out a Redis outage and resumes on its own once Redis is back', async () => {
    world = e2eWorld();
    const w = world;
    const port = await freePort();
    let redis = await redisServer(port);
    w.defer(() => redis.kill());
    const redisUrl = `redis://127.0.0.1:${port}`;
    const relay = await w.relay({ redisUrl });
    const srv = await w.server(relay.url);
    await srv.online();
    const url = `${relay.url}/r/${srv.serverId}/api/v1/n/7`;
    expect((await call(url)).json.n).toBe(7);

    await redis.kill();
    const during = await call(url);
    expect([during.status, during.json.error.code]).toEqual([503, 'NOT_READY']);
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(`${relay.url}/api/v1/health`)).json.data).toMatchObject({
      status: 'degraded',
      queue: { backend: 'redis', reachable: false },
    });
    await until('the connector to notice', () => srv.connector.status().state === 'offline');

    // Back empty (no persistence): the connector must register again by itself.
    redis = await redisServer(port);
    await until('requests to flow again', async () => (await call(url)).json?.n === 7, 15_000);
    expect((await call(`${relay.url}/api/v1/health`)).json.data.queue.reachable).toBe(true);
    expect(srv.connector.status().state).toBe('online');
  });
  it('the tunnel rides out a Redis restart: served through the instance holding it, and across instances once Redis is back', async () => {
    world = e2eWorld();
    const w = world;
    const port = await freePort();
    let redis = await redisServer(port);
    w.defer(() => redis.kill());
    const redisUrl = `redis://127.0.0.1:${port}`;
    const a = await w.relay({ redisUrl });
    const b = await w.relay({ redisUrl });
    const who = await newIdentity();
    const app = smallApp();
    const connector = tunnelConnector({
      relayUrl: b.url,
      serverId: who.serverId,
      identity: who.identity,
      handle: app.handle,
      redeemPairCode: async () => null,
      logger: silentLogger,
      backoff: { minMs: 20, maxMs: 200 },
    });
    connector.start();
    w.defer(() => connector.stop(200));
    await until('the tunnel to be online', () => connector.status().state === 'online');
    const viaA = `${a.url}/r/${who.serverId}/api/v1/n/3`;
    const viaB = `${b.url}/r/${who.serverId}/api/v1/n/4`;
    expect((await call(viaA)).json.n).toBe(3);
    await redis.kill();
    // The instance holding the tunnel needs no Redis to serve it.
    expect((await call(viaB)).json.n).toBe(4);
    redis = await redisServer(port);
    // Back empty: the relay's presence refresh and queue pump resume by themselves.
    await until('requests to cross instances again', async () => (await call(viaA)).json?.n === 3, 20_000);
    expect((await call(viaB)).json.n).toBe(4);
  }, 40_000);
});
