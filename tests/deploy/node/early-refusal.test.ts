/**
 * Early refusals on the real Node servers reach a client that is still sending its body: the
 * relay's (503 for a server that is not online, 413 for a declared body over the limit; both
 * close the connection) and the note server's (401 without a key, 413 over MAX_BODY_BYTES; they
 * keep it, and @hono/node-server ends its drain of the unread body after 500 ms with
 * `socket.destroySoon()`). The client writes its whole body before it reads
 * (tests/helpers/upload.ts): a connection closed without lingering (http-kit/node/linger.ts)
 * resets it and the answer is lost, which each of the four did before the linger.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRelay, startRelay } from '../../../relay/node/server.ts';
import { type LiveServer, liveServer } from '../../helpers/live-server.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { relayConfig } from '../../helpers/relay-config.ts';
import { uploadThenRead } from '../../helpers/upload.ts';

const MiB = 1024 * 1024;
let relay: RunningRelay;
let server: LiveServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  relay = await startRelay(relayConfig({ host: '127.0.0.1', port: 0, redisUrl: null }), {
    logger: silentLogger,
  });
  server = await liveServer({ PAIRING_MODE: 'open-port' });
}, 30_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await relay?.stop();
  await server?.stop();
});

/** POSTs `bytes` to `url`'s path, writing all of it before reading; the status and the error code. */
async function upload(url: string, bytes: number, headers: Record<string, string> = {}) {
  const { port, pathname } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  const got = await uploadThenRead(socket, { path: pathname, bytes, headers });
  return { status: got.status, error: got.error, code: /"code":"([A-Z_]+)"/.exec(got.text)?.[1] };
}

describe('an early refusal reaches a client still sending its body', () => {
  it('relay: 503 SERVER_OFFLINE for a server not online (the connection closes, lingering)', async () => {
    const got = await upload(`${relay.url}/r/${'a'.repeat(32)}/api/v1/notes`, 8 * MiB);
    expect(got).toEqual({ status: 503, error: undefined, code: 'SERVER_OFFLINE' });
  });

  it('relay: 413 PAYLOAD_TOO_LARGE for a declared body over the limit', async () => {
    const got = await upload(`${relay.url}/r/${'a'.repeat(32)}/api/v1/notes`, 12 * MiB);
    expect(got).toEqual({ status: 413, error: undefined, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('note server: 401 without a key', async () => {
    const got = await upload(`${server.url}/api/v1/notes`, 8 * MiB);
    expect(got).toMatchObject({ status: 401, error: undefined });
  });

  it('note server: 413 over MAX_BODY_BYTES', async () => {
    const got = await upload(`${server.url}/api/v1/notes`, 12 * MiB, { 'x-service-key': server.firstKey });
    expect(got).toEqual({ status: 413, error: undefined, code: 'PAYLOAD_TOO_LARGE' });
  });
});
