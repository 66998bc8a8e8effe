import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { identitySigner, tunnelStatement } from '../../core/identity.ts';
import { tunnelConnector } from '../../relay/connector/tunnel-connector.ts';
import {
  decodeFrame,
  END,
  encodeFrame,
  encodeHead,
  type Frame,
  FrameType,
  frameHead,
  frameJson,
  type RequestHead,
  WIRE_VERSION,
} from '../../relay/protocol/frames.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld, postJson } from './e2e-harness.ts';
import { newIdentity, onlineTunnel, pairing, smallApp } from './fixtures.ts';
import { redisClient } from './helpers.ts';

let world: ReturnType<typeof e2eWorld>;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world.cleanup();
});

/**
 * A hand-made server end of a tunnel to `relayUrl`: it proves a fresh key, then hands each
 * request frame to `onRequest` with the socket to answer on. Resolves once the relay said READY.
 */
/** The path of a request frame's head. */
const pathOf = (f: Frame) => String(frameHead<RequestHead>(f).path);

async function handMadeServer(
  relayUrl: string,
  onRequest: (ws: WebSocket, f: Frame) => void,
  /** Every other frame after READY (RESET, DATA). */
  onFrame: (f: Frame) => void = () => {},
) {
  const who = await newIdentity();
  const signer = identitySigner(who.identity);
  const ws = new WebSocket(`${relayUrl.replace('http', 'ws')}/api/v1/relay/tunnel`);
  stops.push(async () => ws.close());
  let ready = false;
  ws.on('message', async (data: Buffer) => {
    const f = decodeFrame(new Uint8Array(data));
    if (f.type === FrameType.HELLO) {
      const { challenge } = frameJson<{ challenge: string }>(f);
      const signature = await signer.sign(tunnelStatement(who.serverId, signer.publicKey, challenge));
      ws.send(
        encodeFrame(FrameType.AUTH, 0, 0, {
          version: WIRE_VERSION,
          serverId: who.serverId,
          publicKey: signer.publicKey,
          signature,
        }),
      );
    } else if (f.type === FrameType.READY) ready = true;
    else if (f.type === FrameType.REQ) onRequest(ws, f);
    else onFrame(f);
  });
  await until('the tunnel to be ready', () => ready);
  return who;
}

describe('tunnel faults (real sockets, Redis)', () => {
  it('an answer with a header value no HTTP message can carry fails alone with 500 (lane and route); the relay stays up', async () => {
    world = e2eWorld();
    for (const fastLane of [true, false]) {
      const relay = await world.relay({ redisUrl: null, hotRoutes: fastLane });
      const who = await handMadeServer(relay.url, (ws, f) => {
        const bad = pathOf(f).endsWith('/bad');
        // A lone CR: a head line can carry it, no HTTP message can.
        const headers: [string, string][] = bad
          ? [['x-bad', 'line\rbreak']]
          : [['content-type', 'text/plain']];
        ws.send(encodeHead(FrameType.RES, f.stream, END, { status: 200, headers }));
      });
      const base = `${relay.url}/r/${who.serverId}`;
      for (const method of ['GET', 'POST']) {
        const bad = await call(`${base}/bad`, { method });
        expect([method, fastLane, bad.status, bad.json?.error?.code]).toEqual([
          method,
          fastLane,
          500,
          'INTERNAL_ERROR',
        ]);
        expect((await call(`${base}/fine`, { method })).status).toBe(200);
      }
      if (fastLane) expect(relay.laneTaken()).toBe(2);
    }
  });

  it('a client that leaves before its answer: its stream is reset at the server end and its place at the door given back (lane and route)', async () => {
    world = e2eWorld();
    for (const fastLane of [true, false]) {
      // One request open per address: a place not given back would refuse the next one with 429.
      const relay = await world.relay({
        redisUrl: null,
        hotRoutes: fastLane,
        limits: { maxOpenPerClient: 1 },
      });
      const asked: number[] = [];
      const resets: { stream: number; code: string }[] = [];
      const who = await handMadeServer(
        relay.url,
        (ws, f) => {
          asked.push(f.stream);
          // `/slow` is never answered; anything else at once.
          if (!pathOf(f).endsWith('/slow'))
            ws.send(encodeHead(FrameType.RES, f.stream, END, { status: 200, headers: [] }));
        },
        (f) => {
          if (f.type === FrameType.RESET)
            resets.push({ stream: f.stream, code: frameJson<{ code: string }>(f).code });
        },
      );
      const base = `${relay.url}/r/${who.serverId}`;
      const leaving = new AbortController();
      const slow = fetch(`${base}/slow`, { signal: leaving.signal }).catch(() => null);
      await until('the slow request to reach the server end', () => asked.length === 1);
      leaving.abort();
      expect(await slow).toBeNull();
      await until('its stream to be reset', () => resets.length === 1);
      expect([fastLane, resets[0]]).toEqual([fastLane, { stream: asked[0], code: 'RELAY_TIMEOUT' }]);
      expect((await call(`${base}/fine`)).status).toBe(200);
      // The lane wrote the second answer only: nobody was left to write the first to.
      if (fastLane) expect(relay.laneTaken()).toBe(1);
    }
  });

  it('a request that reaches a stopping server after its GOAWAY is refused with 503 and never run', async () => {
    world = e2eWorld();
    // A hand-made relay end: it sends one slow request, and one more right after the GOAWAY.
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    stops.push(() => new Promise((r) => wss.close(r)));
    const app = smallApp();
    const frames: { type: number; stream: number; json?: unknown }[] = [];
    let sawGoaway!: () => void;
    const goaway = new Promise<void>((r) => {
      sawGoaway = r;
    });
    wss.on('connection', (ws) => {
      ws.send(encodeFrame(FrameType.HELLO, 0, 0, { challenge: 'c'.repeat(43), version: WIRE_VERSION }));
      ws.on('message', (data: Buffer) => {
        const f = decodeFrame(new Uint8Array(data));
        if (f.type === FrameType.AUTH) {
          ws.send(encodeFrame(FrameType.READY, 0, 0, { publicUrl: 'http://relay/r/x', now: Date.now() }));
          const slow: RequestHead = {
            kind: 'http',
            method: 'GET',
            path: '/api/v1/slow?ms=300',
            headers: [],
            ttlMs: 5_000,
          };
          ws.send(encodeHead(FrameType.REQ, 1, END, slow));
          return;
        }
        frames.push({
          type: f.type,
          stream: f.stream,
          json: f.type === FrameType.RESET ? frameJson(f) : undefined,
        });
        if (f.type === FrameType.GOAWAY) {
          const late: RequestHead = {
            kind: 'http',
            method: 'GET',
            path: '/api/v1/n/7',
            headers: [],
            ttlMs: 5_000,
          };
          ws.send(encodeHead(FrameType.REQ, 3, END, late));
          sawGoaway();
        }
      });
    });
    const { connector } = await onlineTunnel(
      `http://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      app,
      stops,
    );
    await until('the slow request to run', () => app.calls.get('/api/v1/slow') === 1);
    const stopped = connector.stop(5_000);
    await goaway;
    await stopped;
    // The slow one in flight was answered; the late one got RESET 503 and never reached the app.
    expect(frames.some((f) => f.stream === 1 && f.type === FrameType.RES)).toBe(true);
    expect(frames.find((f) => f.stream === 3)).toEqual({
      type: FrameType.RESET,
      stream: 3,
      json: { code: 'SERVER_OFFLINE', status: 503, message: 'The server is stopping.' },
    });
    expect(app.calls.has('/api/v1/n/7')).toBe(false);
  });

  it('a malformed frame fails its own request alone; the others in flight are answered', async () => {
    world = e2eWorld();
    const relay = await world.relay({ redisUrl: null });
    // A hand-made server end: it answers every request, but stream 2 gets a garbage answer head.
    const seen: number[] = [];
    const who = await handMadeServer(relay.url, (ws, f) => {
      const head = { path: pathOf(f) };
      seen.push(f.stream);
      if (head.path.endsWith('/bad')) {
        ws.send(encodeFrame(FrameType.RES, f.stream, END, new Uint8Array([0x7b, 0xff, 0x00])));
        // And a frame of an unknown type: ignored, nothing else is touched.
        ws.send(new Uint8Array([99, 0, 0, 0, 0, 0]));
      } else {
        const body = new TextEncoder().encode(head.path);
        ws.send(
          encodeHead(FrameType.RES, f.stream, 0, { status: 200, headers: [['content-type', 'text/plain']] }),
        );
        setTimeout(() => ws.send(encodeFrame(FrameType.DATA, f.stream, END, body)), 50);
      }
    });
    const base = `${relay.url}/r/${who.serverId}`;
    const [a, bad, b] = await Promise.all([call(`${base}/one`), call(`${base}/bad`), call(`${base}/two`)]);
    expect([a.status, new TextDecoder().decode(a.bytes)]).toEqual([200, '/one']);
    expect([b.status, new TextDecoder().decode(b.bytes)]).toEqual([200, '/two']);
    expect(bad.status).toBe(502);
    expect(bad.json.success).toBe(false);
    expect(seen).toHaveLength(3);
    // The tunnel is still up for the next request.
    expect((await call(`${base}/three`)).status).toBe(200);
  });

  it('a RESET carries its error code to the client, through the tunnel and through the queue; one without a known code fails as undecodable', async () => {
    world = e2eWorld();
    const entry = await world.relay();
    const home = await world.relay();
    const who = await handMadeServer(home.url, (ws, f) => {
      const path = pathOf(f);
      const body = path.endsWith('/coded')
        ? { code: 'REQUEST_TIMEOUT', status: 408, message: 'coded' }
        : { status: 413, message: 'no code' };
      ws.send(encodeFrame(FrameType.RESET, f.stream, END, body));
    });
    for (const relay of [home, entry]) {
      const base = `${relay.url}/r/${who.serverId}`;
      const coded = await call(`${base}/coded`);
      expect([coded.status, coded.json.error]).toEqual([408, { code: 'REQUEST_TIMEOUT', message: 'coded' }]);
      // Nothing guesses a code from a status: the answer does not decode, its client gets a 502.
      const uncoded = await call(`${base}/uncoded`);
      expect([uncoded.status, uncoded.json.error.code]).toEqual([502, 'INTERNAL_ERROR']);
    }
  });

  it('no X-Service-Key and no minted key is readable in Redis: every key scanned during traffic through two relays', async () => {
    world = e2eWorld();
    const a = await world.relay();
    const b = await world.relay();
    const pair = pairing();
    const app = smallApp();
    const who = await newIdentity();
    const connector = tunnelConnector({
      relayUrl: b.url,
      serverId: who.serverId,
      identity: who.identity,
      handle: app.handle,
      redeemPairCode: pair.redeemPairCode,
      pairCodeHash: pair.pairCodeHash,
      logger: silentLogger,
    });
    connector.start();
    stops.push(() => connector.stop(200));
    await until('the tunnel to be online', () => connector.status().state === 'online');
    const admin = await redisClient();
    stops.push(() => admin.quit());
    const clientKey = 'quire_sk_CLIENT-KEY-MUST-NOT-BE-IN-REDIS';
    const found: string[] = [];
    const seenKeys = new Set<string>();
    let scanning = true;
    const scanner = (async () => {
      while (scanning) {
        let cursor = '0';
        do {
          const [next, keys] = await admin.scan(cursor, 'MATCH', `${world.prefix}*`, 'COUNT', 500);
          cursor = next;
          for (const k of keys) {
            seenKeys.add(k.replace(/[0-9a-f-]{36}/g, '<id>'));
            const type = await admin.type(k);
            const values =
              type === 'string'
                ? [await admin.get(k)]
                : type === 'list'
                  ? await admin.lrange(k, 0, -1)
                  : type === 'hash'
                    ? Object.values(await admin.hgetall(k))
                    : [];
            for (const v of values) if (v && (v.includes('CLIENT-KEY') || /quire_sk_/.test(v))) found.push(k);
          }
        } while (cursor !== '0');
      }
    })();
    // Traffic entering A (so it crosses Redis to the tunnel on B): keyed requests and a pairing.
    const sent = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        call(`${a.url}/r/${who.serverId}/api/v1/slow?ms=150&n=${n}`, {
          headers: { 'x-service-key': clientKey },
        }),
      ),
    );
    const exchanged = await postJson(`${a.url}/api/v1/pair/exchange`, { code: pair.code() });
    scanning = false;
    await scanner;
    expect(sent.map((r) => r.status)).toEqual(Array(40).fill(200));
    expect(exchanged.status).toBe(200);
    expect(exchanged.json.data.apiKey).toMatch(/./);
    // The scan did see queued requests and answers (so the check could have failed) ...
    expect([...seenKeys].some((k) => /:(req|resp|wait):/.test(k))).toBe(true);
    // ... and none of them held a key in clear.
    expect(found).toEqual([]);
  }, 30_000);
});
