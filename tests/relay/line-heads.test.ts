/**
 * Line heads (relay/protocol/frames.ts LINES) between peers of different ages: each end sends
 * them only to a peer that said it reads them (HELLO's and AUTH's `heads`), so a relay of today
 * and a server from before, or a server of today and a relay from before, still talk JSON.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { identitySigner, tunnelStatement } from '../../core/identity.ts';
import {
  type AnswerHead,
  decodeFrame,
  encodeFrame,
  encodeInline,
  type Frame,
  FrameType,
  frameHead,
  frameJson,
  HEADS_LINES,
  inlineBody,
  LINES,
  type RequestHead,
} from '../../relay/protocol/frames.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld } from './e2e-harness.ts';
import { newIdentity, onlineTunnel, smallApp } from './fixtures.ts';
import { framePeer, type PeerAnswer } from './frame-peer.ts';

let world: ReturnType<typeof e2eWorld> | undefined;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await world?.cleanup();
  world = undefined;
});

/**
 * A hand-made server end on `relayUrl`: proves a fresh key; `lines` says in AUTH that it reads
 * line heads (a server of today), else it is a server from before them and reads JSON only. It
 * answers every request with its method, path, header names and body, as lines when the relay's
 * HELLO offered them (and it reads them).
 */
async function handMadeServer(relayUrl: string, lines: boolean) {
  const who = await newIdentity();
  const signer = identitySigner(who.identity);
  const ws = new WebSocket(`${relayUrl.replace('http', 'ws')}/api/v1/relay/tunnel`);
  stops.push(async () => ws.close());
  const seen: { flags: number; head: RequestHead }[] = [];
  let hello: { heads?: unknown } = {};
  let ready = false;
  ws.on('message', async (data: Buffer) => {
    const f = decodeFrame(new Uint8Array(data));
    if (f.type === FrameType.HELLO) {
      hello = frameJson<{ challenge: string; heads?: unknown }>(f);
      const { challenge } = hello as { challenge: string };
      const signature = await signer.sign(tunnelStatement(who.serverId, signer.publicKey, challenge));
      const auth = { serverId: who.serverId, publicKey: signer.publicKey, signature };
      ws.send(encodeFrame(FrameType.AUTH, 0, 0, lines ? { ...auth, heads: [HEADS_LINES] } : auth));
    } else if (f.type === FrameType.READY) ready = true;
    else if (f.type === FrameType.REQ) answer(f);
  });
  function answer(f: Frame) {
    // A server from before reads JSON only (and would fail on a line head).
    const head = lines ? frameHead<RequestHead>(f) : frameJson<RequestHead>(f);
    seen.push({ flags: f.flags, head });
    const body = inlineBody(f) ?? new Uint8Array(0);
    const offered = Array.isArray(hello.heads) && hello.heads.includes(HEADS_LINES);
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
    ws.send(encodeInline(FrameType.RES, f.stream, out, echo, lines && offered) as Uint8Array);
  }
  await until('the tunnel to be ready', () => ready);
  return { serverId: who.serverId, seen, hello: () => hello };
}

describe('line heads between a relay and a server of different ages', () => {
  for (const lines of [false, true]) {
    it(`a relay of today and a server ${lines ? 'of today: requests and answers as lines' : 'from before line heads: JSON both ways'} (lane and route)`, async () => {
      world = e2eWorld();
      const relay = await world.relay({ redisUrl: null });
      const server = await handMadeServer(relay.url, lines);
      expect(server.hello().heads).toEqual([HEADS_LINES]);
      const base = `${relay.url}/r/${server.serverId}`;
      const got = await call(`${base}/api/v1/notes/a.md?x=1`, { headers: { 'x-service-key': 'k' } });
      expect([got.status, got.headers.get('x-odd')]).toEqual([200, 'é ü']);
      expect(got.json).toMatchObject({ method: 'GET', path: '/api/v1/notes/a.md?x=1', body: '' });
      expect(got.json.names).toContain('x-service-key');
      const posted = await call(`${base}/api/v1/echo`, { method: 'POST', body: 'hello' });
      expect(posted.json).toMatchObject({ method: 'POST', path: '/api/v1/echo', body: 'hello' });
      expect(relay.laneTaken()).toBe(1);
      // Each request came in the form this server reads.
      expect(server.seen.map((s) => (s.flags & LINES) !== 0)).toEqual([lines, lines]);
    });
  }

  it('a server of today answers a relay from before in JSON, and a relay of today as lines, the same answer', async () => {
    const answers: PeerAnswer[][] = [];
    for (const lines of [false, true]) {
      const peer = await framePeer({ lines });
      stops.push(() => peer.close());
      await onlineTunnel(peer.url, smallApp(), stops);
      const got: PeerAnswer[] = [];
      for (const path of ['/api/v1/n/7', '/api/v1/cookies', '/api/v1/echo/x?y=1', '/api/v1/binary'])
        got.push(await peer.ask('GET', path, [['x-forwarded-for', '203.0.113.9']]));
      expect(got.map((a) => (a.flags & LINES) !== 0)).toEqual(got.map(() => lines));
      answers.push(got);
    }
    const [json, asLines] = answers as [PeerAnswer[], PeerAnswer[]];
    const plain = (a: PeerAnswer) => ({ status: a.status, headers: a.headers, body: [...a.body] });
    expect(asLines.map(plain)).toEqual(json.map(plain));
    expect(json.every((a) => a.status === 200)).toBe(true);
  });
});
