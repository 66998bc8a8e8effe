import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { tunnelConnector } from '../../relay/connector/tunnel-connector.ts';
import { type RunningRelay, startRelay } from '../../relay/node/server.ts';
import { silentLogger } from '../helpers/logger.ts';
import { relayConfig } from '../helpers/relay-config.ts';
import { until } from '../helpers/wait.ts';
import { newIdentity, pairing } from './fixtures.ts';

/**
 * A network cut on a live tunnel: a TCP proxy of our own sits between the connector and the
 * relay, and at the cut every proxied socket is reset (TCP RST) on both sides while client
 * requests are in flight. Not a relay restart: the relay and the server keep running.
 */

const ANSWER_TIMEOUT_MS = 2_000;
const KEY = 'quire_sk_tunnel-cut-test-key';

const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
});

/** A TCP proxy on 127.0.0.1:0 to `target`; `cut()` resets every proxied socket, both sides. */
async function tcpProxy(targetPort: number) {
  const pairs = new Set<[Socket, Socket]>();
  let accepted = 0;
  const server: Server = createServer((down) => {
    accepted += 1;
    const up = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [down, up];
    pairs.add(pair);
    for (const s of pair) {
      s.setNoDelay(true);
      s.on('error', () => undefined);
      s.on('close', () => {
        pairs.delete(pair);
        for (const other of pair) if (!other.destroyed) other.destroy();
      });
    }
    down.pipe(up);
    up.pipe(down);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    open: () => pairs.size,
    /** A TCP RST to the connector and to the relay on every proxied connection. */
    cut() {
      const n = pairs.size;
      for (const pair of [...pairs]) for (const s of pair) if (!s.destroyed) s.resetAndDestroy();
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) for (const s of pair) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The real note app over an in-memory vault, slowed so requests are in flight; counts executions. */
async function slowNoteServer() {
  const clock = { now: () => Date.now() };
  const notes = createNoteService({ store: memoryNoteStore({ clock }), clock, logger: silentLogger });
  await notes.load();
  const app = createApp({ notes, version: '0.0.0-test', clock, logger: silentLogger });
  const createsRun = new Map<string, number>();
  let inside = 0;
  let insideCreates = 0;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const handle = async (req: Request): Promise<Response> => {
    if (req.headers.get('x-service-key') !== KEY)
      return Response.json(
        { success: false, error: { code: 'UNAUTHORIZED', message: 'key' } },
        { status: 401 },
      );
    inside += 1;
    const create = req.method === 'POST';
    if (create) insideCreates += 1;
    try {
      // Some work before and after the write, so the cut finds requests on both sides of it
      // (reads longer, so some are surely inside when the creates, whose bodies come later, are).
      await pause((create ? 20 : 150) + Math.floor(Math.random() * 100));
      if (req.method === 'POST') {
        const { path } = (await req.clone().json()) as { path: string };
        createsRun.set(path, (createsRun.get(path) ?? 0) + 1);
      }
      const res = await app.fetch(req);
      await pause(Math.floor(Math.random() * 100));
      return res;
    } finally {
      inside -= 1;
      if (create) insideCreates -= 1;
    }
  };
  return { notes, handle, createsRun, inside: () => inside, insideCreates: () => insideCreates };
}

interface Outcome {
  kind: 'create' | 'read';
  path: string;
  status: number | 'hang' | 'error';
  code?: string;
  ms: number;
}

describe('the tunnel through a network cut (TCP RST on a live socket, relay and server keep running)', () => {
  it('reconnects by itself; in flight at the cut: answered or 504 RELAY_TIMEOUT, never a hang; no create runs twice', async () => {
    const relay: RunningRelay = await startRelay(
      relayConfig({
        host: '127.0.0.1',
        port: 0,
        redisUrl: null,
        shutdownGraceMs: 200,
        limits: { answerTimeoutMs: ANSWER_TIMEOUT_MS, pullWaitMs: 1_000 },
      }),
      { logger: silentLogger },
    );
    stops.push(() => relay.stop());
    const proxy = await tcpProxy(relay.port);
    stops.push(() => proxy.close());
    const srv = await slowNoteServer();
    const who = await newIdentity();
    const pair = pairing();
    const connector = tunnelConnector({
      relayUrl: proxy.url,
      serverId: who.serverId,
      identity: who.identity,
      handle: srv.handle,
      redeemPairCode: pair.redeemPairCode,
      pairCodeHash: pair.pairCodeHash,
      logger: silentLogger,
      backoff: { minMs: 20, maxMs: 200 },
      heartbeatMs: 5_000,
    });
    connector.start();
    stops.push(() => connector.stop(500));
    await until('the tunnel to be online through the proxy', () => connector.status().state === 'online');
    expect(proxy.accepted()).toBe(1);

    const base = `${relay.url}/r/${who.serverId}/api/v1/notes`;
    const headers = { 'x-service-key': KEY, 'content-type': 'application/json' };
    const seed = await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path: 'seed.md', content: 'seed' }),
    });
    expect(seed.status).toBe(201);

    // Every request is bounded on the client side far past the relay's answer time-out: a request
    // still unanswered then is a hang. (Far: on a busy machine an answer can take seconds to come;
    // a hang never comes, so the bound decides nothing but when to stop waiting.)
    const bound = ANSWER_TIMEOUT_MS + 30_000;
    let serial = 0;
    const send = async (kind: Outcome['kind']): Promise<Outcome> => {
      const path = kind === 'create' ? `cut/n-${serial++}-${crypto.randomUUID()}.md` : 'seed.md';
      const began = Date.now();
      try {
        const res =
          kind === 'create'
            ? await fetch(base, {
                method: 'POST',
                headers,
                body: JSON.stringify({ path, content: `body of ${path}` }),
                signal: AbortSignal.timeout(bound),
              })
            : await fetch(`${base}/${path}`, { headers, signal: AbortSignal.timeout(bound) });
        const json = (await res.json().catch(() => null)) as { error?: { code?: string } } | null;
        return { kind, path, status: res.status, code: json?.error?.code, ms: Date.now() - began };
      } catch (err) {
        const hang = (err as Error).name === 'TimeoutError';
        return { kind, path, status: hang ? 'hang' : 'error', ms: Date.now() - began };
      }
    };
    const wave = (n: number) => Array.from({ length: n }, (_, i) => send(i % 4 === 3 ? 'read' : 'create'));

    // In flight at the cut: a wave of creates and reads, cut once several are inside the server.
    const atCut = wave(40);
    await until(
      'creates and reads to be inside the server',
      () => srv.insideCreates() >= 2 && srv.inside() - srv.insideCreates() >= 1,
      60_000,
      1,
    );
    expect(proxy.cut()).toBe(1);
    // More traffic while the tunnel is down and coming back.
    const during = wave(20);

    // (1) The tunnel comes back by itself (a new proxied connection) and new requests succeed.
    await until(
      'the tunnel to reconnect',
      () => connector.status().reconnects >= 1 && connector.status().state === 'online',
      10_000,
    );
    expect(proxy.accepted()).toBeGreaterThanOrEqual(2);
    const after = await Promise.all(wave(12));
    expect(after.map((o) => o.status)).toEqual(after.map((o) => (o.kind === 'create' ? 201 : 200)));

    // (2) Every request got its answer or a 504 RELAY_TIMEOUT (none hung).
    const settled = [...(await Promise.all(atCut)), ...(await Promise.all(during))];
    const summary = (o: Outcome) => `${o.kind} ${o.status}${o.code ? ` ${o.code}` : ''}`;
    for (const o of settled) {
      const ok = o.kind === 'create' ? 201 : 200;
      if (o.status !== ok) expect(summary(o)).toBe(`${o.kind} 504 RELAY_TIMEOUT`);
    }
    // The cut did hit requests in flight (else this test proves nothing about them).
    expect(settled.filter((o) => o.status === 504).length).toBeGreaterThan(0);

    // (3) No create ran twice. Once the server is idle, list the vault.
    await until('the server to be idle', () => srv.inside() === 0 && connector.status().inFlight === 0);
    const listed = srv.notes.list().items.map((n) => n.path);
    expect(new Set(listed).size).toBe(listed.length);
    const existing = new Set(listed);
    const creates = [...settled, ...after].filter((o) => o.kind === 'create');
    for (const o of creates) {
      expect(srv.createsRun.get(o.path) ?? 0).toBeLessThanOrEqual(1);
      if (o.status === 201) {
        expect(existing.has(o.path)).toBe(true);
        expect(srv.createsRun.get(o.path)).toBe(1);
      }
      // A note exists only for a create that ran (once).
      if (existing.has(o.path)) expect(srv.createsRun.get(o.path)).toBe(1);
    }
    // Nothing in the vault that no client asked for.
    const asked = new Set(['seed.md', ...creates.map((o) => o.path)]);
    expect(listed.filter((p) => !asked.has(p))).toEqual([]);
    // And the tunnel still serves after all of it.
    expect((await send('read')).status).toBe(200);
  }, 120_000);
});
