/**
 * Relay CPU per proxied request, steadier than req/s on a shared machine: a relay (memory queue,
 * and Redis when it answers) and a note server connected to it, each in its own process; load from
 * this one (autocannon, 32 connections, GET of a note through `/r/:serverId/*`); the figure is
 * each process's CPU time (user + system, from /proc) over the run divided by the requests
 * completed. Trees are measured in alternating rounds (median kept), so a before/after compare
 * is one command:
 *
 *   npx tsx bench/relay-cpu.ts [seconds=4] [rounds=3] [label=DIR ...]
 *
 * The server is bench/relay-server-child.ts: the app with no keys, so its tunnel hands every
 * request to the app (the fall-through path). bench/relay-throughput.ts measures the real server
 * (hot routes straight from the tunnel frame included) and the same CPU figures, with wrk.
 *
 * With no DIR, this tree alone. A DIR is another checkout of the repo (e.g. `git worktree add`
 * or `git archive <commit> | tar -x -C DIR` with node_modules linked): its relay and server run
 * from there. Linux only (/proc).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { startChild } from './relay-throughput.ts';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const NOTE = '/api/v1/notes/bench%2Fnote.md';
const TICK_MS = 10; // USER_HZ = 100 on Linux

async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

interface Round {
  rps: number;
  p50: number;
  relayUs: number;
  serverUs: number;
}

async function round(root: string, redisUrl: string, seconds: number): Promise<Round> {
  const prefix = `bench:relaycpu:${crypto.randomUUID()}:`;
  const relay = await startChild(
    'deploy/relay/main.ts',
    {
      RELAY_HOST: '127.0.0.1',
      RELAY_PORT: '0',
      REDIS_URL: redisUrl,
      RELAY_REDIS_PREFIX: prefix,
      RELAY_QUEUE_KEY: 'bench-relay-queue-key-0123456789abcdef',
    },
    'relay listening',
    false,
    root,
  );
  const server = await startChild(
    'bench/relay-server-child.ts',
    { RELAY_URL: relay.line.url! },
    'bench server ready',
    false,
    root,
  );
  const url = `${relay.line.url}/r/${server.line.serverId}${NOTE}`;
  try {
    await autocannon({ url, connections: 32, duration: 1 });
    const [r0, s0] = [await cpuMs(relay.pid), await cpuMs(server.pid)];
    const r = await autocannon({ url, connections: 32, duration: seconds });
    const [r1, s1] = [await cpuMs(relay.pid), await cpuMs(server.pid)];
    const n = Math.max(1, r.requests.total);
    if (r.non2xx) throw new Error(`${r.non2xx} non-2xx answers`);
    return {
      rps: Math.round(r.requests.average),
      p50: r.latency.p50,
      relayUs: Math.round(((r1 - r0) * 1000) / n),
      serverUs: Math.round(((s1 - s0) * 1000) / n),
    };
  } finally {
    await server.stop();
    await relay.stop();
    if (redisUrl) {
      const c = new Redis(redisUrl);
      const keys = await c.keys(`${prefix}*`);
      if (keys.length) await c.del(...keys);
      await c.quit();
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const [secondsArg, roundsArg, ...treeArgs] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 4);
const rounds = Number(roundsArg ?? 3);
const trees = treeArgs.length
  ? treeArgs.map((a) => {
      const [label, dir] = a.includes('=') ? (a.split('=') as [string, string]) : [a, a];
      return { label, dir };
    })
  : [{ label: 'this tree', dir: HERE }];
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const backends: [string, string][] = [
  ['memory', ''],
  ['redis', redisUrl],
];
const results = new Map<string, Round[]>();
for (let i = 0; i < rounds; i++)
  for (const [backend, url] of backends)
    for (const t of trees) {
      const key = `${t.label}|${backend}`;
      const r = await round(t.dir, url, seconds);
      results.set(key, [...(results.get(key) ?? []), r]);
    }
console.log('| tree | queue | relay CPU µs/req | server CPU µs/req | req/s | p50 ms |');
console.log('|---|---|---|---|---|---|');
for (const [key, rs] of results) {
  const [label, backend] = key.split('|');
  console.log(
    `| ${label} | ${backend} | ${median(rs.map((r) => r.relayUs))} | ${median(rs.map((r) => r.serverUs))} | ${median(rs.map((r) => r.rps))} | ${median(rs.map((r) => r.p50))} |`,
  );
}
