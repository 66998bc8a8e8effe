/**
 * A stranger cannot fill the relay's memory. The relay runs as a child process (`npm run relay`'s
 * entry point) so its RSS is its own; a real server holds a tunnel from this process; 60 slow-body
 * connections go to a serverId nobody registered and 60 to the real one (each declaring 10 MiB,
 * sending a little, then stalling). The relay answers the first 503 and most of the second 429
 * before reading a body byte, cuts the admitted ones with 408 at the body time-out, keeps its RSS
 * within 100 MiB of idle and answers other clients throughout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tunnelConnector } from '../../../relay/connector/tunnel-connector.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';
import { newIdentity, pairing, smallApp } from '../fixtures.ts';
import * as flood from '../flood.ts';

const BODY_TIMEOUT_MS = 3_000;
let child: ChildProcess;
let relayUrl = '';
let port = 0;
let stopServer: () => Promise<void> = async () => {};
let serverId = '';
const sockets: Socket[] = [];
/** A slow body from `address` (the relay trusts X-Forwarded-For here). */
const slowBody = (path: string, address: string, declared: number, sent: number) =>
  flood.slowBody({
    port,
    path,
    headers: { 'x-forwarded-for': address, 'content-type': 'application/octet-stream' },
    declared,
    sent,
    fill: 7,
    sockets,
  });

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'deploy/relay/main.ts'], {
    env: {
      ...process.env,
      RELAY_HOST: '127.0.0.1',
      RELAY_PORT: '0',
      RELAY_TRUST_PROXY: '1',
      RELAY_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      REDIS_URL: '',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d) => {
    out += d.toString();
  });
  relayUrl = await until(
    'the relay to listen',
    () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1] ?? '',
    20_000,
  );
  port = Number(new URL(relayUrl).port);
  const app = smallApp();
  const pair = pairing();
  const who = await newIdentity();
  serverId = who.serverId;
  const connector = tunnelConnector({
    relayUrl,
    serverId,
    identity: who.identity,
    handle: app.handle,
    redeemPairCode: pair.redeemPairCode,
    pairCodeHash: pair.pairCodeHash,
    logger: silentLogger,
    backoff: { minMs: 20, maxMs: 200 },
  });
  connector.start();
  stopServer = () => connector.stop(200);
  await until('the tunnel to be online', () => connector.status().state === 'online', 10_000);
}, 40_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await stopServer();
  if (child && child.exitCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
});

describe('the relay door under a slow-body flood (child process, real sockets)', () => {
  it('120 slow bodies leave RSS within 100 MiB of idle; other clients answered; stalled bodies cut with 408', async () => {
    const n = await fetch(`${relayUrl}/r/${serverId}/api/v1/n/1`);
    expect(n.status).toBe(200);
    await n.arrayBuffer();
    const idle = flood.rssMiB(child.pid);
    const unknown = Array.from({ length: 60 }, () =>
      slowBody(`/r/${'a'.repeat(32)}/x`, '198.51.100.7', 10_485_760, 1024 * 1024),
    );
    const real = Array.from({ length: 60 }, () =>
      slowBody(`/r/${serverId}/api/v1/echo/up`, '198.51.100.8', 10_485_760, 256 * 1024),
    );
    // The unknown server: 503 at once, before its body (10 MiB declared, 1 MiB sent) is read.
    const unknownStatus = await Promise.all(unknown.map((u) => u.status()));
    expect(new Set(unknownStatus)).toEqual(new Set([503]));
    // The real one: 10 MiB declared each, 32 MiB in flight per address: three admitted, the rest 429.
    const early = await flood.overBudgetRefused(real, 57);
    expect(early.filter((s) => s === 429)).toHaveLength(57);
    // Another address is served throughout: a GET (the fast lane) and a POST with a body (the route).
    const other = { 'x-forwarded-for': '203.0.113.9' };
    const get = await fetch(`${relayUrl}/r/${serverId}/api/v1/n/7`, { headers: other });
    expect([get.status, await get.json()]).toEqual([200, { n: 7 }]);
    const post = await fetch(`${relayUrl}/r/${serverId}/api/v1/echo/x`, {
      method: 'POST',
      headers: other,
      body: new Uint8Array(100_000).fill(3),
    });
    expect([post.status, (await post.arrayBuffer()).byteLength]).toEqual([200, 100_000]);
    expect(flood.rssMiB(child.pid) - idle).toBeLessThan(100);
    // The admitted ones stall: cut with 408 REQUEST_TIMEOUT in the envelope at the body time-out.
    const answers = await Promise.all(real.map((r) => r.answered));
    const cut = answers.filter((a) => a.startsWith('HTTP/1.1 408'));
    expect(cut).toHaveLength(3);
    for (const a of cut) expect(a).toContain('connection: close');
    expect(flood.rssMiB(child.pid) - idle).toBeLessThan(100);
  }, 30_000);

  it('a stalled body answers 408 with REQUEST_TIMEOUT in the envelope', async () => {
    const s = slowBody(`/r/${serverId}/api/v1/echo/stall`, '192.0.2.44', 5_000, 100);
    const started = Date.now();
    await until(
      'the 408',
      async () => ((await s.answered).includes('REQUEST_TIMEOUT') ? true : null),
      10_000,
    );
    const text = await s.answered;
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 500);
    // The relay is still well: the same address is served right after.
    const again = await fetch(`${relayUrl}/r/${serverId}/api/v1/n/2`, {
      headers: { 'x-forwarded-for': '192.0.2.44' },
    });
    expect(again.status).toBe(200);
  }, 15_000);
});
