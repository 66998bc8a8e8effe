/**
 * Tunnel-frame fuzzing (security review, third round): a hand-made server end connects to a real
 * relay's tunnel and sends random and malformed frames, before and after signing in, and as answers
 * to the requests the relay hands it. The relay must survive, answer those clients with enveloped
 * errors (never a crash, never a stack), and keep serving a well-behaved server beside it.
 * FUZZ_RUNS raises the number of frames (CI: the short form).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { identitySigner, tunnelStatement } from '../../core/identity.ts';
import {
  decodeFrame,
  END,
  encodeFrame,
  type Frame,
  FrameType,
  frameJson,
  INLINE,
  WIRE_VERSION,
} from '../../relay/protocol/frames.ts';
import { until } from '../helpers/wait.ts';
import { call, e2eWorld } from '../relay/e2e-harness.ts';
import { newIdentity } from '../relay/fixtures.ts';
import { SEED } from './arbitraries.ts';

/** Frames in all (half before sign-in on fresh sockets, half as answers); CI keeps it small. */
const FRAMES = Math.min(Number(process.env.FUZZ_RUNS ?? 600), 200_000);
const STACK = /\n\s+at\s|node:internal|\.ts:\d+:\d+|\.js:\d+:\d+/;

let world: ReturnType<typeof e2eWorld>;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await world.cleanup();
});

const json = fc.jsonValue({ maxDepth: 3 });
const head = fc.oneof(
  fc.record({
    status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.integer(), fc.constantFrom(0, -1, 1000, 200.5)),
    headers: fc.oneof(
      fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 30 })), { maxLength: 4 }),
      fc.constant([
        ['content-type', 'text/html'],
        ['set-cookie', 'a=b'],
      ]),
      fc.constant([['x-bad', 'line\r\nbreak']]),
      json,
    ),
  }),
  json,
);
/** An answer head as lines (frames.ts): a status, then names and values, any of them odd. */
const lineHead = fc
  .tuple(
    fc.oneof(fc.integer({ min: 100, max: 599 }), fc.integer(), fc.constantFrom('0', '-1', '200.5', 'x', '')),
    fc.array(fc.string({ maxLength: 30 }), { maxLength: 9 }),
  )
  .map(([status, parts]) => [String(status), ...parts].join('\n'));
const payload = fc.oneof(
  head.map((h) => new TextEncoder().encode(JSON.stringify(h))),
  lineHead.map((t) => new TextEncoder().encode(t)),
  fc.uint8Array({ maxLength: 200 }),
  fc.string({ maxLength: 100 }).map((s) => new TextEncoder().encode(s)),
);
/** One message on the tunnel: a well-formed frame of any type and flags, or broken bytes. */
const frameBytes = (streams: () => number[]) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 0, max: 12 }),
          fc.oneof(fc.constant(-1), fc.nat(), fc.constantFrom(0, 1, 2, 0xffffffff)),
          fc.constantFrom(0, END, INLINE, END | INLINE, 0xff),
          payload,
        )
        .map(([type, stream, flags, body]) => {
          const known = streams();
          const s = stream === -1 && known.length ? known[known.length - 1]! : Math.max(0, stream);
          return encodeFrame(type as FrameType, s, flags, body);
        }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 8 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );

/** A server end that signs in (or not), records the request streams it is handed. */
async function fakeEnd(relayUrl: string, signIn: boolean) {
  const who = await newIdentity();
  const signer = identitySigner(who.identity);
  const ws = new WebSocket(`${relayUrl.replace('http', 'ws')}/api/v1/relay/tunnel`);
  sockets.push(ws);
  const streams: number[] = [];
  let ready = false;
  let closed = false;
  ws.on('close', () => {
    closed = true;
  });
  ws.on('error', () => {});
  ws.on('message', async (data: Buffer) => {
    let f: Frame;
    try {
      f = decodeFrame(new Uint8Array(data));
    } catch {
      return;
    }
    if (f.type === FrameType.HELLO && signIn) {
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
    else if (f.type === FrameType.REQ) streams.push(f.stream);
  });
  await until('the socket to open', () => ws.readyState === WebSocket.OPEN || closed, 10_000);
  if (signIn) await until('the tunnel to be ready', () => ready || closed, 10_000);
  return { ws, who, streams, isClosed: () => closed };
}

describe('tunnel frames fuzzing (a hand-made server end, real sockets)', () => {
  it(
    'the relay survives random and malformed frames and keeps serving a good server',
    async () => {
      world = e2eWorld();
      const relay = await world.relay({ redisUrl: null });
      const good = await world.server(relay.url);
      await good.online();
      const goodUrl = `${relay.url}/r/${good.serverId}/api/v1/n/1`;
      const goodAnswers: number[] = [];
      const failures: string[] = [];
      const checkAnswer = (r: { status: number; bytes: Uint8Array; json: any }, what: string) => {
        const text = new TextDecoder().decode(r.bytes);
        if (r.status === 500 && r.json?.success !== false) failures.push(`${what}: 500 without the envelope`);
        if (r.status >= 500 && r.json?.success !== false && r.status !== 502)
          failures.push(`${what}: ${r.status} bare`);
        if (STACK.test(text)) failures.push(`${what}: a stack in the answer`);
      };

      // Before signing in: random frames on fresh sockets; each one must be closed or ignored.
      const preAuth = fc.sample(
        fc.array(
          frameBytes(() => []),
          { minLength: 1, maxLength: 6 },
        ),
        {
          seed: SEED,
          numRuns: Math.max(5, Math.floor(FRAMES / 20)),
        },
      );
      for (const batch of preAuth) {
        const end = await fakeEnd(relay.url, false);
        for (const b of batch) if (!end.isClosed()) end.ws.send(b);
        end.ws.terminate();
      }

      // Signed in: clients call the fake server; it answers with random frames.
      let end = await fakeEnd(relay.url, true);
      const frames = fc.sample(
        frameBytes(() => end.streams),
        { seed: SEED + 7, numRuns: FRAMES },
      );
      let sent = 0;
      let reconnects = 0;
      const clients: Promise<void>[] = [];
      for (const bytes of frames) {
        if (end.isClosed()) {
          end = await fakeEnd(relay.url, true);
          reconnects++;
        }
        if (sent % 10 === 0) {
          const url = `${relay.url}/r/${end.who.serverId}/x${sent}`;
          clients.push(
            call(url, {
              method: sent % 20 ? 'GET' : 'POST',
              body: sent % 20 ? undefined : 'b',
              signal: AbortSignal.timeout(3000),
            })
              .then((r) => checkAnswer(r, `client of the fake server ${sent}`))
              .catch(() => {}),
          );
          await new Promise((r) => setTimeout(r, 5));
        }
        end.ws.send(bytes);
        sent++;
        if (sent % 100 === 0) {
          const r = await call(goodUrl);
          goodAnswers.push(r.status);
        }
      }
      await Promise.all(clients);
      console.log(
        `tunnel fuzz (seed ${SEED}): ${sent} frames after sign-in, ${preAuth.length} sockets before it, ${reconnects} reconnects`,
      );

      // The relay is up and still serves the good server, and its health.
      const after = await call(goodUrl);
      expect(after.status).toBe(200);
      expect(goodAnswers.every((s) => s === 200)).toBe(true);
      expect((await call(`${relay.url}/api/v1/health`)).status).toBe(200);
      expect(failures).toEqual([]);
    },
    60_000 + FRAMES * 10,
  );
});
