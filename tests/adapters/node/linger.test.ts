/**
 * Lingering close (http-kit/node/linger.ts, installed by httpDrain): an answer sent before the
 * request body was read, on a connection the server then closes, must reach a client that is
 * still sending that body, not be lost to a reset.
 */
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpDrain } from '../../../http-kit/node/http-drain.ts';
import { uploadThenRead } from '../../helpers/upload.ts';
import { until } from '../../helpers/wait.ts';

/** More than the socket buffers hold: the client goes on writing after the early answer. */
const BODY = 16 * 1024 * 1024;
const CHUNK = 64 * 1024;

const servers: http.Server[] = [];
const clients: Socket[] = [];
/** A client socket to `port`, destroyed after the test. */
const client = (opts: { port: number; allowHalfOpen?: boolean }) => {
  const socket = connect({ host: '127.0.0.1', ...opts });
  clients.push(socket);
  return socket;
};
afterEach(() => {
  for (const c of clients.splice(0)) c.destroy();
  for (const s of servers.splice(0)) s.closeAllConnections();
});

/** A server that refuses every request at once, before reading its body (or 503 while draining). */
async function refusingServer(lingerMs?: number) {
  let draining = () => false;
  const server = http.createServer((_req, res) => {
    const status = draining() ? 503 : 413;
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
    res.end(`refused ${status}`);
  });
  const drain = httpDrain(server, { lingerMs });
  draining = () => drain.draining;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const connections = () =>
    new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
  return { server, drain, port, connections };
}

/** The outcome of `uploadThenRead` without what was read. */
const upload = async (socket: Socket) => {
  const { status, error } = await uploadThenRead(socket, { path: '/upload', bytes: BODY });
  return { status, error };
};

describe('lingering close of a connection answered before its body was read', () => {
  it('the early answer reaches a client still sending its body, not a reset', async () => {
    const { port } = await refusingServer(10_000);
    expect(await upload(client({ port }))).toEqual({ status: 413, error: undefined });
  });

  it('a refusal while draining reaches the client too: the sweep leaves a lingering connection to its linger', async () => {
    const { server, drain, port } = await refusingServer(10_000);
    const accepted = new Promise<void>((resolve) => server.once('connection', () => resolve()));
    const socket = client({ port });
    await accepted;
    const closing = drain.close(10_000);
    expect(await upload(socket)).toEqual({ status: 503, error: undefined });
    expect(await closing).toEqual({ cut: false });
  });

  it('the connection closes as soon as the client closes its side, not at the end of the linger', async () => {
    const { port, connections } = await refusingServer(60_000);
    const socket = client({ port });
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${BODY}\r\n\r\n`);
    socket.write(Buffer.alloc(CHUNK, 1));
    // The client reads the answer and the server's FIN, and (not half-open) closes its side.
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    await until('the server to close its side', async () => (await connections()) === 0, 5_000);
  });

  it('a client that never closes its side is cut after the linger', async () => {
    const { port, connections } = await refusingServer(200);
    const socket = client({ port, allowHalfOpen: true });
    let text = '';
    let ended = false;
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('end', () => {
      ended = true;
    });
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${BODY}\r\n\r\n`);
    socket.write(Buffer.alloc(CHUNK, 1));
    await until('the answer and the FIN', () => ended, 5_000);
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    // Half-open on the client's side: only the linger's bound closes the server's.
    await until('the linger to end', async () => (await connections()) === 0, 5_000);
  });
});
