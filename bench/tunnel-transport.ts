/**
 * The tunnel's transport, measured (issue 19's "measured choice"): one long-lived connection
 * carrying a request frame (about 300 bytes) one way and an answer frame (about 2.5 KB, a note)
 * back, 32 in flight, over (a) a WebSocket with `ws` as the tunnel uses it (frames corked per turn
 * of the loop), (b) the same without corking, (c) the same sending each answer as a head frame and
 * a body frame (before INLINE), and (d) one HTTP/2 stream carrying length-prefixed frames both
 * ways (node:http2). Both ends in this process, so the CPU time per round trip is the whole
 * transport's cost. `npx tsx bench/tunnel-transport.ts [roundTrips] [rounds]`.
 */
import { once } from 'node:events';
import { type ClientHttp2Session, connect, createServer, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { corkedSender } from '../relay/node/ws-cork.ts';

const REQ = new Uint8Array(300).fill(114);
const ANSWER = new Uint8Array(2_500).fill(97);
const HEAD = new Uint8Array(120).fill(104);
const IN_FLIGHT = 32;

interface Result {
  label: string;
  cpuUsPerTrip: number;
  tripsPerSec: number;
}

/** Drives `trips` round trips with IN_FLIGHT outstanding; `send` sends one request, `onAnswer` is fed answers. */
async function drive(
  label: string,
  trips: number,
  open: (answered: () => void) => Promise<{ send(): void; close(): Promise<void> }>,
): Promise<Result> {
  let done = 0;
  let sent = 0;
  let finish!: () => void;
  const finished = new Promise<void>((r) => {
    finish = r;
  });
  const t = await open(() => {
    done += 1;
    if (done === trips) finish();
    else if (sent < trips) {
      sent += 1;
      t.send();
    }
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (; sent < IN_FLIGHT; sent++) t.send();
  await finished;
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await t.close();
  return { label, cpuUsPerTrip: (cpu.user + cpu.system) / trips, tripsPerSec: (trips / ms) * 1000 };
}

async function viaWs(label: string, trips: number, mode: 'corked' | 'plain' | 'two-frames'): Promise<Result> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await once(wss, 'listening');
  wss.on('connection', (ws) => {
    const send = mode === 'plain' ? (b: Uint8Array) => ws.send(b, { binary: true }) : corkedSender(ws);
    ws.on('message', () => {
      if (mode === 'two-frames') {
        send(HEAD);
        send(ANSWER);
      } else send(ANSWER);
    });
  });
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
    perMessageDeflate: false,
  });
  await once(client, 'open');
  return drive(label, trips, async (answered) => {
    let parts = 0;
    client.on('message', () => {
      parts += 1;
      if (mode !== 'two-frames' || parts % 2 === 0) answered();
    });
    const send =
      mode === 'plain' ? (b: Uint8Array) => client.send(b, { binary: true }) : corkedSender(client);
    return {
      send: () => send(REQ),
      async close() {
        client.terminate();
        await new Promise((r) => wss.close(r));
      },
    };
  });
}

/** Length-prefixed frames on a byte stream. */
function framer(onFrame: () => void) {
  let buf: Buffer = Buffer.alloc(0);
  return (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 4) {
      const len = buf.readUInt32BE(0);
      if (buf.length < 4 + len) break;
      buf = buf.subarray(4 + len);
      onFrame();
    }
  };
}
const prefixed = (bytes: Uint8Array) => {
  const out = Buffer.allocUnsafe(4 + bytes.byteLength);
  out.writeUInt32BE(bytes.byteLength, 0);
  out.set(bytes, 4);
  return out;
};

async function viaHttp2(label: string, trips: number): Promise<Result> {
  const server = createServer();
  server.on('stream', (stream: ServerHttp2Stream) => {
    stream.respond({ ':status': 200 });
    stream.on(
      'data',
      framer(() => stream.write(prefixed(ANSWER))),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const session: ClientHttp2Session = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const stream = session.request({ ':method': 'POST', ':path': '/tunnel' }, { endStream: false });
  return drive(label, trips, async (answered) => {
    stream.on('data', framer(answered));
    return {
      send: () => stream.write(prefixed(REQ)),
      async close() {
        stream.close();
        session.destroy();
        await new Promise((r) => server.close(r));
      },
    };
  });
}

const trips = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 3);
const all = new Map<string, Result[]>();
for (let r = 0; r < rounds; r++) {
  for (const res of [
    await viaWs('WebSocket (ws), corked, inline answers (the tunnel)', trips, 'corked'),
    await viaWs('WebSocket (ws), not corked', trips, 'plain'),
    await viaWs('WebSocket (ws), corked, head and body frames', trips, 'two-frames'),
    await viaHttp2('HTTP/2, one stream, length-prefixed frames', trips),
  ]) {
    all.set(res.label, [...(all.get(res.label) ?? []), res]);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const base = median((all.values().next().value as Result[]).map((x) => x.cpuUsPerTrip));
for (const [label, rs] of all) {
  const cpu = median(rs.map((x) => x.cpuUsPerTrip));
  console.log(
    `${label.padEnd(54)} CPU ${cpu.toFixed(1).padStart(6)} µs/round trip (${(cpu / base).toFixed(2)}x)  ${Math.round(median(rs.map((x) => x.tripsPerSec)))} round trips/s`,
  );
}
