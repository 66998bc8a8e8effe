/**
 * Relay tunnel figures (issue 19), one run: wrk pinned to CPU 1 with taskset, 32 connections,
 * GET /api/v1/notes/:path, direct and through the relay (long-poll baseline on the memory queue;
 * the tunnel on the memory queue, on Redis, and across two relays on one Redis), one connection
 * added latency, a 10 MB answer, and the relay's RSS under load. Every process is separate, as in
 * production. `npx tsx bench/relay-tunnel.ts [seconds] [soakSeconds]`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startChild } from './relay-throughput.ts';

const run = promisify(execFile);
const NOTE = '/api/v1/notes/bench%2Fnote.md';
const QUEUE_KEY = 'bench-relay-queue-key-0123456789abcdef';

interface Figure {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  /** Per request, in the relay and in the server: CPU µs, and read/write system calls. */
  cost?: string;
}

/** CPU ticks (user + system) and read/write system calls of a process so far. */
function usage(pid: number): [number, number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return [
    Number(stat[11]) + Number(stat[12]),
    Number(/syscr: (\d+)/.exec(io)?.[1]),
    Number(/syscw: (\d+)/.exec(io)?.[1]),
  ];
}

/** `wrk` with the per-request cost of each named process (load-independent beside req/s). */
async function costed(
  label: string,
  urls: string[],
  connections: number,
  seconds: number,
  procs: [string, number][],
): Promise<Figure> {
  const before = procs.map(([, pid]) => usage(pid));
  const f = await wrk(label, urls, connections, seconds);
  const n = Math.max(1, f.rps * seconds);
  f.cost = procs
    .map(([name, pid], i) => {
      const [cpu, r, w] = usage(pid).map((v, j) => v - (before[i] as number[])[j]!);
      return `${name} ${Math.round(((cpu as number) * 10_000) / n)} µs ${((r as number) / n).toFixed(2)}r ${((w as number) / n).toFixed(2)}w`;
    })
    .join(', ');
  return f;
}

const ms = (v: string): number => {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
};

/** wrk on CPU 1 (the servers compete for the rest): req/s, p50, p99. */
async function wrk(label: string, urls: string[], connections: number, seconds: number): Promise<Figure> {
  const per = Math.max(1, Math.floor(connections / urls.length));
  const outs = await Promise.all(
    urls.map((url) =>
      run('taskset', ['-c', '1', '/usr/bin/wrk', '-t1', `-c${per}`, `-d${seconds}s`, '--latency', url], {
        maxBuffer: 1 << 20,
      }).then((r) => r.stdout),
    ),
  );
  let rps = 0;
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (const out of outs) {
    rps += Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
    p50s.push(ms(/\s50%\s+(\S+)/.exec(out)?.[1] ?? ''));
    p99s.push(ms(/\s99%\s+(\S+)/.exec(out)?.[1] ?? ''));
  }
  return { label, rps: Math.round(rps), p50: Math.max(...p50s), p99: Math.max(...p99s) };
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function timeBig(url: string, n = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fetch(url);
    const b = await r.arrayBuffer();
    if (b.byteLength !== 10 * 1024 * 1024)
      throw new Error(`big answer was ${b.byteLength} bytes (${r.status})`);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)] as number;
}

async function main(seconds: number, soak: number) {
  const figures: Figure[] = [];
  const extra: Record<string, unknown> = {};
  const direct = await startChild('bench/relay-server-child.ts', {}, 'bench server ready');
  await wrk('warm-up', [`${direct.line.url}${NOTE}`], 8, 1);
  const procs: [string, number][] = [['server', direct.pid]];
  figures.push(await costed('direct', [`${direct.line.url}${NOTE}`], 32, seconds, procs));
  figures.push(await costed('direct, 1 connection', [`${direct.line.url}${NOTE}`], 1, seconds, procs));
  extra.bigDirectMs = await timeBig(`${direct.line.url}/bench-big`);
  await direct.stop();

  const relayEnv = (redis: boolean, prefix: string) => ({
    RELAY_HOST: '127.0.0.1',
    RELAY_PORT: '0',
    RELAY_RATE_PER_CLIENT: '2000000000',
    RELAY_RATE_PER_SERVER: '2000000000',
    ...(redis
      ? { REDIS_URL: 'redis://127.0.0.1:6379', RELAY_REDIS_PREFIX: prefix, RELAY_QUEUE_KEY: QUEUE_KEY }
      : { REDIS_URL: '' }),
  });
  const scenario = async (
    label: string,
    opts: {
      redis: boolean;
      transport: 'poll' | 'tunnel';
      relays: 1 | 2;
      single?: boolean;
      big?: boolean;
      soak?: boolean;
    },
  ) => {
    const prefix = `bench:tunnel:${crypto.randomUUID()}:`;
    const relays = [];
    for (let i = 0; i < opts.relays; i++)
      relays.push(await startChild('deploy/relay/main.ts', relayEnv(opts.redis, prefix), 'relay listening'));
    // The server's tunnel is on the last relay; the load enters every relay.
    const server = await startChild(
      'bench/relay-server-child.ts',
      { RELAY_URL: relays.at(-1)!.line.url!, BENCH_TRANSPORT: opts.transport },
      'bench server ready',
    );
    const urls = relays.map((r) => `${r.line.url}/r/${server.line.serverId}${NOTE}`);
    await wrk('warm-up', urls, 8, 1);
    const procs: [string, number][] = [
      ...relays.map((r, i): [string, number] => [relays.length > 1 ? `relay ${i + 1}` : 'relay', r.pid]),
      ['server', server.pid],
    ];
    figures.push(await costed(label, urls, 32, seconds, procs));
    if (opts.single) figures.push(await costed(`${label}, 1 connection`, [urls[0]!], 1, seconds, procs));
    if (opts.big) {
      const pid = relays[0]!.pid;
      const before = rssMb(pid);
      extra.bigRelayMs = await timeBig(`${relays[0]!.line.url}/r/${server.line.serverId}/bench-big`);
      extra.bigRelayRssMb = { before: Math.round(before), after: Math.round(rssMb(pid)) };
    }
    if (opts.soak) {
      const pid = relays[0]!.pid;
      const samples: number[] = [];
      const load = wrk('soak', urls, 32, soak);
      const timer = setInterval(() => samples.push(Math.round(rssMb(pid))), 5_000);
      const f = await load;
      clearInterval(timer);
      extra.soak = { seconds: soak, rps: f.rps, rssMb: samples };
    }
    await server.stop();
    for (const r of relays) await r.stop();
    if (opts.redis) {
      const c = new Redis('redis://127.0.0.1:6379');
      const keys = await c.keys(`${prefix}*`);
      if (keys.length) await c.del(...keys);
      await c.quit();
    }
  };
  await scenario('relay memory, long-poll (old)', { redis: false, transport: 'poll', relays: 1 });
  await scenario('relay memory, tunnel', {
    redis: false,
    transport: 'tunnel',
    relays: 1,
    single: true,
    big: true,
    soak: true,
  });
  await scenario('relay Redis, tunnel', { redis: true, transport: 'tunnel', relays: 1, single: true });
  await scenario('two relays on Redis, tunnel', { redis: true, transport: 'tunnel', relays: 2 });
  return { figures, extra };
}

const { figures, extra } = await main(Number(process.argv[2] ?? 5), Number(process.argv[3] ?? 60));
const base = figures[0] as Figure;
for (const f of figures)
  console.log(
    `${f.label.padEnd(38)} ${String(f.rps).padStart(7)} req/s  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms  (${Math.round((f.rps / base.rps) * 100)}% of direct)${f.cost ? `  per request: ${f.cost}` : ''}`,
  );
console.log(JSON.stringify(extra));
