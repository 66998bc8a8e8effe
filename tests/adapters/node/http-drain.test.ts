import http from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpDrain } from '../../../http-kit/node/http-drain.ts';
import { until } from '../../helpers/wait.ts';
import { httpClient } from '../../reliability/scenarios/http.ts';

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.closeAllConnections();
});

/** A server whose handler waits `?ms=` before answering, refusing with 503 while draining. */
async function slowServer(opts: Parameters<typeof httpDrain>[1] = {}) {
  let draining = () => false;
  const server = http.createServer((req, res) => {
    if (draining()) {
      res.statusCode = 503;
      res.end('shutting down');
      return;
    }
    const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? 0);
    setTimeout(() => res.end('done'), ms);
  });
  const drain = httpDrain(server, opts);
  draining = () => drain.draining;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, drain, port, url: `http://127.0.0.1:${port}` };
}

describe('httpDrain (graceful close of a node:http server)', () => {
  it('finishes the request in flight (closing its connection), refuses new connections, resolves when all is closed', async () => {
    const { server, drain, url } = await slowServer();
    const client = httpClient({ keepAlive: true });
    let seen = 0;
    server.on('request', () => seen++);
    const inFlight = client.request('GET', `${url}/?ms=200`);
    while (seen === 0) await new Promise((r) => setTimeout(r, 5));
    const closing = drain.close(5_000);
    expect(drain.draining).toBe(true);
    const refused = await client.request('GET', `${url}/`);
    expect(refused).toMatchObject({ status: 0, error: 'ECONNREFUSED', sent: false });
    expect(await inFlight).toMatchObject({ status: 200 });
    expect(await closing).toEqual({ cut: false });
    client.close();
  });

  it('counts the requests in flight (what background work after a start waits for)', async () => {
    const { server, drain, url } = await slowServer();
    const client = httpClient({ keepAlive: true });
    let seen = 0;
    server.on('request', () => seen++);
    expect(drain.inFlight).toBe(0);
    const answers = [client.request('GET', `${url}/?ms=150`), client.request('GET', `${url}/?ms=150`)];
    while (seen < 2) await new Promise((r) => setTimeout(r, 5));
    expect(drain.inFlight).toBe(2);
    await Promise.all(answers);
    await until('no request in flight', () => drain.inFlight === 0);
    client.close();
  });

  it('does not count requests that wait for news (a change feed) as working; they stay in flight', async () => {
    const { server, drain, url } = await slowServer({
      waits: (req) => req.url?.startsWith('/feed') === true,
    });
    const client = httpClient({ keepAlive: true });
    let seen = 0;
    server.on('request', () => seen++);
    const feed = client.request('GET', `${url}/feed?ms=300`);
    while (seen < 1) await new Promise((r) => setTimeout(r, 5));
    expect(drain.inFlight).toBe(1);
    expect(drain.working).toBe(0);
    const work = client.request('GET', `${url}/?ms=100`);
    while (seen < 2) await new Promise((r) => setTimeout(r, 5));
    expect(drain.working).toBe(1);
    await work;
    await until('the work answered', () => drain.working === 0);
    expect(drain.inFlight).toBe(1);
    await feed;
    await until('the feed answered', () => drain.inFlight === 0);
    client.close();
  });

  it('gives a connection accepted just before the close time to send its request, and refuses it properly', async () => {
    const { server, drain, port } = await slowServer();
    const accepted = new Promise<void>((resolve) => server.once('connection', () => resolve()));
    const socket = connect(port, '127.0.0.1');
    await accepted;
    const closing = drain.close(5_000);
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
    });
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n');
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(await closing).toEqual({ cut: false });
  });

  it('cuts what is still running when the grace ends', async () => {
    const { server, drain, url } = await slowServer();
    const client = httpClient({ keepAlive: false });
    const arrived = new Promise<void>((resolve) => server.once('request', () => resolve()));
    const hung = client.request('GET', `${url}/?ms=10000`);
    await arrived;
    const started = Date.now();
    expect(await drain.close(100)).toEqual({ cut: true });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await hung).status).toBe(0);
  });
});
