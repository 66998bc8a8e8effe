/**
 * Request bodies through the relay's tunnel (issue 31: bodies now stream down the tunnel as DATA
 * frames instead of being read whole first): POST of 1 KiB (32 connections), 64 KiB (32) and
 * 1 MiB (8) to an upload sink, direct and through the relay, each process separate.
 * `npx tsx bench/relay-upload.ts [seconds]`.
 */
import autocannon from 'autocannon';
import { startChild } from './relay-throughput.ts';

const seconds = Number(process.argv[2] ?? 5);
const SIZES: [string, number, number][] = [
  ['1 KiB', 1024, 32],
  ['64 KiB', 64 * 1024, 32],
  ['1 MiB', 1024 * 1024, 8],
];

async function post(url: string, size: number, connections: number) {
  const body = Buffer.alloc(size, 97);
  const opts = {
    url,
    method: 'POST' as const,
    body,
    connections,
    headers: { 'content-type': 'application/octet-stream' },
  };
  await autocannon({ ...opts, duration: 1 });
  const r = await autocannon({ ...opts, duration: seconds });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, non2xx: r.non2xx };
}

const relay = await startChild(
  'deploy/relay/main.ts',
  { RELAY_HOST: '127.0.0.1', RELAY_PORT: '0', REDIS_URL: '' },
  'relay listening',
);
const server = await startChild(
  'bench/relay-server-child.ts',
  { RELAY_URL: relay.line.url! },
  'bench server ready',
);
try {
  for (const [label, size, c] of SIZES) {
    const direct = await post(`${server.line.url}/bench-sink`, size, c);
    const relayed = await post(`${relay.line.url}/r/${server.line.serverId}/bench-sink`, size, c);
    console.log(
      `${label.padEnd(7)} c${c}  direct ${direct.rps} req/s p50 ${direct.p50} ms | relay ${relayed.rps} req/s p50 ${relayed.p50} ms ` +
        `(${Math.round((relayed.rps / direct.rps) * 100)}% of direct, non-2xx ${direct.non2xx}/${relayed.non2xx})`,
    );
  }
} finally {
  await server.stop();
  await relay.stop();
}
