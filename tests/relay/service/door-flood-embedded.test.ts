/**
 * A stranger cannot fill the relay's memory, for the relay embedded in `npm start`: 60 connections
 * to the relay of the note server's own process grew that process from 100 to 714 MiB. The note
 * server runs as a child process (its entry point, `deploy/node/main.ts`) so its RSS is its own; 60
 * slow-body connections go to a serverId nobody registered and 60 to the server's own (each
 * declaring 10 MiB, sending a little, then stalling). The embedded relay reads the RELAY_* limit
 * variables like the standalone one (RELAY_BODY_TIMEOUT_MS here), answers before reading bodies,
 * cuts the admitted ones with 408, keeps the process within 100 MiB of idle and other requests
 * answered.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.ts';
import { until } from '../../helpers/wait.ts';
import * as flood from '../flood.ts';

const BODY_TIMEOUT_MS = 3_000;
let child: ChildProcess;
let tmp: Awaited<ReturnType<typeof tempDir>>;
let serverUrl = '';
let relayPort = 0;
let serverId = '';
let apiKey = '';
const sockets: Socket[] = [];
/** A slow body with the server's key. */
const slowBody = (path: string, declared: number, sent: number) =>
  flood.slowBody({
    port: relayPort,
    path,
    headers: { 'x-service-key': apiKey, 'content-type': 'application/json' },
    declared,
    sent,
    fill: 32,
    sockets,
  });

beforeAll(async () => {
  tmp = await tempDir('quire-flood-embedded-');
  child = spawn(process.execPath, ['--import', 'tsx', 'deploy/node/main.ts'], {
    env: {
      ...process.env,
      DATA_DIR: join(tmp.dir, 'data'),
      HOST: '127.0.0.1',
      PORT: '0',
      RELAY_PORT: '0',
      RELAY_URL: '',
      RELAY_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
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
  serverUrl = await until(
    'the server to listen',
    () => /"msg":"listening","url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1] ?? '',
    60_000,
  );
  const relayUrl = await until(
    'the relay to listen',
    () => /"msg":"relay listening","url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1] ?? '',
    30_000,
  );
  relayPort = Number(new URL(relayUrl).port);
  const setup = ((await (await fetch(`${serverUrl}/api/v1/system/setup`)).json()) as any).data;
  serverId = setup.serverId;
  apiKey = setup.apiKey;
  await until(
    'the tunnel to be online',
    async () => (await fetch(`${relayUrl}/r/${serverId}/api/v1/health`)).status === 200,
    30_000,
  );
}, 120_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  if (child && child.exitCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
  await tmp?.cleanup();
});

describe('the embedded relay under a slow-body flood (npm start as a child process)', () => {
  it('120 slow bodies leave the server within 100 MiB of idle; others answered; stalled bodies cut with 408', async () => {
    const relay = `http://127.0.0.1:${relayPort}/r/${serverId}`;
    const key = { 'x-service-key': apiKey };
    expect((await fetch(`${relay}/api/v1/notes`, { headers: key })).status).toBe(200);
    const idle = flood.rssMiB(child.pid);
    const unknown = Array.from({ length: 60 }, () =>
      slowBody(`/r/${'a'.repeat(32)}/api/v1/notes`, 10_485_760, 1024 * 1024),
    );
    const real = Array.from({ length: 60 }, () =>
      slowBody(`/r/${serverId}/api/v1/notes`, 10_485_760, 256 * 1024),
    );
    // The unknown server: 503 at once, before its body is read.
    const unknownStatus = await Promise.all(unknown.map((u) => u.status()));
    expect(new Set(unknownStatus)).toEqual(new Set([503]));
    // The real one: 32 MiB in flight per address: three admitted, the rest 429 before a body byte.
    const early = await flood.overBudgetRefused(real, 57);
    expect(early.filter((s) => s === 429)).toHaveLength(57);
    // Others are served meanwhile: the server directly, a GET and a POST with a body through the relay.
    expect((await fetch(`${serverUrl}/api/v1/health`)).status).toBe(200);
    expect((await fetch(`${relay}/api/v1/notes`, { headers: key })).status).toBe(200);
    const post = await fetch(`${relay}/api/v1/notes`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'during-flood.md', content: 'x'.repeat(100_000) }),
    });
    expect(post.status).toBe(201);
    expect(flood.rssMiB(child.pid) - idle).toBeLessThan(100);
    // The admitted ones stall: cut with 408 at RELAY_BODY_TIMEOUT_MS (the embedded relay reads it;
    // REQUEST_TIMEOUT is only ever that time-out's answer, so no clock is asked here).
    const answers = await Promise.all(real.map((r) => r.answered));
    const cut = answers.filter((a) => a.startsWith('HTTP/1.1 408'));
    expect(cut).toHaveLength(3);
    for (const a of cut) expect(a).toContain('REQUEST_TIMEOUT');
    expect(flood.rssMiB(child.pid) - idle).toBeLessThan(100);
  }, 45_000);
});
