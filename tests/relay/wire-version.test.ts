/**
 * The tunnel's one wire version (relay/protocol/frames.ts WIRE_VERSION): the relay names it in
 * HELLO, the server in AUTH, and each end refuses a peer of another version (or none) with close
 * code CLOSE_WIRE_VERSION and a reason that names both versions. Heads are lines both ways.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { identitySigner, tunnelStatement } from '../../core/identity.ts';
import {
  type AnswerHead,
  CLOSE_WIRE_VERSION,
  decodeFrame,
  encodeFrame,
  encodeInline,
  type Frame,
  FrameType,
  frameHead,
  frameJson,
  inlineBody,
  type RequestHead,
  WIRE_VERSION,
} from '../../relay/protocol/frames.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld } from './e2e-harness.ts';
import { newIdentity, smallApp, startTunnel } from './fixtures.ts';
import { framePeer } from './frame-peer.ts';

let world: ReturnType<typeof e2eWorld> | undefined;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world?.cleanup();
  world = undefined;
});

/**
 * A hand-made server end on `relayUrl`: proves a fresh key, naming wire `version` in AUTH
 * (`undefined`: no version at all). It answers every request with its method, path, header names
 * and body.
 */
async function handMadeServer(relayUrl: string, version: unknown) {
  const who = await newIdentity();
  const signer = identitySigner(who.identity);
  const ws = new WebSocket(`${relayUrl.replace('http', 'ws')}/api/v1/relay/tunnel`);
  stops.push(async () => ws.close());
  const seen: RequestHead[] = [];
  let hello: { version?: unknown } = {};
  let ready = false;
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('message', async (data: Buffer) => {
    const f = decodeFrame(new Uint8Array(data));
    if (f.type === FrameType.HELLO) {
      hello = frameJson<{ challenge: string; version?: unknown }>(f);
      const { challenge } = hello as { challenge: string };
      const signature = await signer.sign(tunnelStatement(who.serverId, signer.publicKey, challenge));
      ws.send(
        encodeFrame(FrameType.AUTH, 0, 0, {
          version,
          serverId: who.serverId,
          publicKey: signer.publicKey,
          signature,
        }),
      );
    } else if (f.type === FrameType.READY) ready = true;
    else if (f.type === FrameType.REQ) answer(f);
  });
  function answer(f: Frame) {
    const head = frameHead<RequestHead>(f);
    seen.push(head);
    const body = inlineBody(f) ?? new Uint8Array(0);
    const echo = new TextEncoder().encode(
      JSON.stringify({
        method: head.method,
        path: head.path,
        names: (head.headers ?? []).map(([k]) => k),
        body: new TextDecoder().decode(body),
      }),
    );
    const out: AnswerHead = {
      status: 200,
      headers: [
        ['content-type', 'application/json'],
        ['x-odd', 'é ü'],
      ],
    };
    ws.send(encodeInline(FrameType.RES, f.stream, out, echo) as Uint8Array);
  }
  return { serverId: who.serverId, seen, hello: () => hello, ready: () => ready, closed };
}

describe('the tunnel wire version', () => {
  it('a relay and a server of this version: the greeting names it, heads are lines both ways (lane and route)', async () => {
    world = e2eWorld();
    const relay = await world.relay({ redisUrl: null });
    const server = await handMadeServer(relay.url, WIRE_VERSION);
    await until('the tunnel to be ready', () => server.ready());
    expect(server.hello().version).toBe(WIRE_VERSION);
    const base = `${relay.url}/r/${server.serverId}`;
    const got = await call(`${base}/api/v1/notes/a.md?x=1`, { headers: { 'x-service-key': 'k' } });
    expect([got.status, got.headers.get('x-odd')]).toEqual([200, 'é ü']);
    expect(got.json).toMatchObject({ method: 'GET', path: '/api/v1/notes/a.md?x=1', body: '' });
    expect(got.json.names).toContain('x-service-key');
    const posted = await call(`${base}/api/v1/echo`, { method: 'POST', body: 'hello' });
    expect(posted.json).toMatchObject({ method: 'POST', path: '/api/v1/echo', body: 'hello' });
    expect(relay.laneTaken()).toBe(1);
    expect(server.seen.map((h) => h.kind)).toEqual(['http', 'http']);
  });

  for (const version of [WIRE_VERSION + 1, 0, '1', undefined]) {
    it(`the relay refuses a server naming wire version ${JSON.stringify(version) ?? 'none'} in AUTH, clearly`, async () => {
      world = e2eWorld();
      const relay = await world.relay({ redisUrl: null });
      const server = await handMadeServer(relay.url, version);
      const why = await server.closed;
      expect(why.code).toBe(CLOSE_WIRE_VERSION);
      const named = version === undefined ? 'none' : String(version);
      expect(why.reason).toBe(
        `tunnel wire version ${named} is not supported (this end speaks ${WIRE_VERSION}); update the older end`,
      );
      expect(server.ready()).toBe(false);
      // It never came online: its clients are told so.
      const got = await call(`${relay.url}/r/${server.serverId}/api/v1/health`);
      expect([got.status, got.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
    });
  }

  it('a server refuses a relay naming another wire version in HELLO, clearly, before proving its key', async () => {
    const peer = await framePeer({ version: WIRE_VERSION + 1 });
    stops.push(() => peer.close());
    const { connector } = await startTunnel(peer.url, smallApp(), stops);
    const why = await peer.closed;
    expect(why).toEqual({
      code: CLOSE_WIRE_VERSION,
      reason: `tunnel wire version ${WIRE_VERSION + 1} is not supported (this end speaks ${WIRE_VERSION}); update the older end`,
    });
    // No AUTH: the proof of key is not sent to a relay this server cannot talk to.
    expect(peer.received).toEqual([]);
    await until('the connector to say why', () => connector.status().state === 'refused');
    expect(connector.status().lastError).toBe(`tunnel closed ${CLOSE_WIRE_VERSION}: ${why.reason}`);
  });

  it('a server of this version comes online on a relay of this version (the frame peer)', async () => {
    const peer = await framePeer();
    stops.push(() => peer.close());
    const { online } = await startTunnel(peer.url, smallApp(), stops);
    await online();
    const got = await peer.ask('GET', '/api/v1/n/7', []);
    expect(got.status).toBe(200);
    expect(peer.received[0]).toBe(FrameType.AUTH);
  });
});
