import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../deploy/node/server.ts';
import { loadRelayConfig } from '../../deploy/shared/config/relay.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { startRelay } from '../../relay/node/server.ts';
import { tempDir } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';
import { relayConfig } from '../helpers/relay-config.ts';
import { newIdentity, registerBody } from '../relay/fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Sends `bytes` and keeps the socket open; resolves with what came back once the peer closes. */
function slowClient(port: number, bytes: string): Promise<{ data: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let data = '';
    socket.on('data', (d) => {
      data += d;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ data, ms: Date.now() - started }));
  });
}

async function server(env: Record<string, string>) {
  const tmp = await tempDir('quire-timeouts-');
  cleanups.push(tmp.cleanup);
  const config = loadConfig(
    { DATA_DIR: join(tmp.dir, 'data'), PORT: '0', PAIRING_MODE: 'open-port', ...env },
    tmp.dir,
  );
  const running = await startServer(config, { logger: silentLogger });
  cleanups.push(() => running.stop());
  await running.ready;
  return running;
}

describe('time-outs against slow clients', () => {
  it('reads and validates the variables (server and relay)', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '10' })).toThrow(/HEADERS_TIMEOUT_MS/);
    // Headers can take at most as long as the whole request.
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '2000' }).timeouts.headersMs).toBe(
      2000,
    );
    expect(
      loadRelayConfig({ RELAY_HEADERS_TIMEOUT_MS: '5000', RELAY_REQUEST_TIMEOUT_MS: '2000' }).timeouts
        .headersMs,
    ).toBe(2000);
    expect(() => loadRelayConfig({ RELAY_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/RELAY_REQUEST_TIMEOUT_MS/);
    expect(loadConfig({}).timeouts).toEqual({ headersMs: 20_000, requestMs: 120_000, keepAliveMs: 5_000 });
    const env = { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000', KEEP_ALIVE_TIMEOUT_MS: '3000' };
    expect(loadConfig(env).timeouts).toEqual({ headersMs: 1000, requestMs: 2000, keepAliveMs: 3000 });
    const relayEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [`RELAY_${k}`, v]));
    expect(loadRelayConfig(relayEnv).timeouts).toEqual({
      headersMs: 1000,
      requestMs: 2000,
      keepAliveMs: 3000,
    });
    expect(
      loadConfig({ TLS_TERMINATED_BY_PROXY: '1', KEY_MAX_AGE_DAYS: '30', DEVICE_KEY_IDLE_DAYS: '7' }),
    ).toMatchObject({
      tlsTerminatedByProxy: true,
      keyMaxAgeDays: 30,
      deviceKeyIdleDays: 7,
    });
    expect(() => loadConfig({ KEY_MAX_AGE_DAYS: 'old' })).toThrow(/KEY_MAX_AGE_DAYS/);
    expect(() => loadConfig({ DEVICE_KEY_IDLE_DAYS: '0' })).toThrow(/DEVICE_KEY_IDLE_DAYS/);
    expect(() => loadConfig({ TLS_TERMINATED_BY_PROXY: 'maybe' })).toThrow(/TLS_TERMINATED_BY_PROXY/);
  });

  it('the server cuts off a client that never finishes its headers, or its body', async () => {
    const s = await server({ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1500' });
    const headers = await slowClient(s.port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n');
    expect(headers.data === '' || headers.data.startsWith('HTTP/1.1 408')).toBe(true);
    expect(headers.ms).toBeLessThan(10_000);
    const setup = (await (await fetch(`${s.url}/api/v1/system/setup`)).json()).data;
    const body = await slowClient(
      s.port,
      `POST /api/v1/notes HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${setup.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pa`,
    );
    expect(body.data === '' || body.data.startsWith('HTTP/1.1 408')).toBe(true);
    expect(body.ms).toBeLessThan(10_000);
    // The server still answers everyone else.
    expect((await fetch(`${s.url}/api/v1/health`)).status).toBe(200);
  }, 30_000);

  it('the relay cuts off slow clients but not long polls (their request is complete)', async () => {
    const relay = await startRelay(
      relayConfig({
        host: '127.0.0.1',
        port: 0,
        timeouts: { headersMs: 1000, requestMs: 1000, keepAliveMs: 1000 },
        limits: { pullWaitMs: 5_000 },
      }),
      { logger: silentLogger },
    );
    cleanups.push(() => relay.stop());
    const slow = await slowClient(relay.port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n');
    expect(slow.data === '' || slow.data.startsWith('HTTP/1.1 408')).toBe(true);

    const who = await newIdentity();
    const post = (path: string, body: unknown) =>
      fetch(`${relay.url}/api/v1/relay/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const body = await registerBody(who);
    expect((await post('register', body)).status).toBe(200);
    const id = { serverId: who.serverId, secret: body.secret };
    const started = Date.now();
    const pull = await post('pull', { ...id, waitMs: 2_500 });
    expect(pull.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect((await pull.json()).data.items).toEqual([]);
  }, 30_000);
});
