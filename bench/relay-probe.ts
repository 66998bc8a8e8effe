/**
 * Relay end CPU per relayed request, split user/system, for quick same-run compares of trees:
 * one memory relay and one real note server per tree (bench/relay-throughput.ts starts them),
 * all kept running; then `rounds` rounds, each tree in turn: wrk 32 connections for `seconds`
 * (after a warm-up on the first round) through the relay, relay and server CPU from /proc, and
 * their read and write system calls a request (/proc/PID/io: how well the tunnel is batched).
 *
 *   npx tsx bench/relay-probe.ts [seconds=4] [rounds=5] [label=DIR ...]   (label@redis: on Redis)
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRelay, startServer } from './relay-throughput.ts';
import { canPin, pin, wrk } from './wrk.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NOTE = '/api/v1/notes/bench%2Fnote.md';
async function cpu(pid: number) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Read and write system calls so far (every thread): how well the tunnel's frames are batched.
  const io = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => '');
  const count = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? Number.NaN);
  return { user: Number(f[11]) * 10, sys: Number(f[12]) * 10, reads: count('syscr'), writes: count('syscw') };
}
const [secondsArg, roundsArg, ...treeArgs] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 4);
const rounds = Number(roundsArg ?? 5);
const trees = treeArgs.length
  ? treeArgs.map((a) => {
      const [label, dir] = a.includes('=') ? (a.split('=') as [string, string]) : [a, a];
      return { label, dir };
    })
  : [{ label: 'this', dir: ROOT }];
const tmp = await mkdtemp(join(tmpdir(), 'quire-relay-probe-'));
const pinned = await canPin();
const running: {
  label: string;
  relay: Awaited<ReturnType<typeof startRelay>>;
  server: Awaited<ReturnType<typeof startServer>>;
}[] = [];
try {
  for (const t of trees) {
    // A label ending in `@redis` runs its relay on Redis (REDIS_URL or the local one).
    const redis = t.label.includes('@redis') ? process.env.REDIS_URL || 'redis://127.0.0.1:6379' : '';
    // `@semiN`: the relay's young generation at N MiB per semi-space (node --max-semi-space-size).
    const semi = /@semi(\d+)/.exec(t.label)?.[1];
    // `@gc1`: the relay's garbage collector on its main thread alone (node --single-threaded-gc):
    // pinned to one CPU, V8's helper threads only take turns with it.
    const nodeArgs = [
      ...(semi ? [`--max-semi-space-size=${semi}`] : []),
      ...(t.label.includes('@gc1') ? ['--single-threaded-gc'] : []),
    ];
    const relay = await startRelay(t.dir, redis, `probe:${crypto.randomUUID()}:`, nodeArgs);
    const server = await startServer(t.dir, relay.url);
    if (pinned) {
      await pin(relay.pid, 0);
      // PROBE_SPLIT=1: the server beside wrk on CPU 1, so the relay is alone on CPU 0 (a cleaner profile).
      await pin(server.pid, process.env.PROBE_SPLIT ? 1 : 0);
    }
    running.push({ label: t.label, relay, server });
    if (process.env.PROBE_PIDS) console.error(t.label, 'relay', relay.pid, 'server', server.pid);
  }
  const rows = new Map<string, number[][]>();
  for (let r = 0; r < rounds; r++)
    for (const x of running) {
      const url = `${x.relay.url}/r/${x.server.serverId}${NOTE}`;
      const headers = { 'x-service-key': x.server.key };
      const cpuArg = pinned ? 1 : undefined;
      if (r === 0) await wrk({ label: x.label, url, connections: 32, seconds: 3, headers, cpu: cpuArg, tmp });
      const r0 = await cpu(x.relay.pid);
      const s0 = await cpu(x.server.pid);
      const w = await wrk({ label: x.label, url, connections: 32, seconds, headers, cpu: cpuArg, tmp });
      const r1 = await cpu(x.relay.pid);
      const s1 = await cpu(x.server.pid);
      const n = w.rps * seconds;
      const row = [
        w.rps,
        ((r1.user - r0.user) * 1000) / n,
        ((r1.sys - r0.sys) * 1000) / n,
        ((s1.user - s0.user + s1.sys - s0.sys) * 1000) / n,
        (r1.reads - r0.reads) / n,
        (r1.writes - r0.writes) / n,
        (s1.reads - s0.reads) / n,
        (s1.writes - s0.writes) / n,
      ];
      rows.set(x.label, [...(rows.get(x.label) ?? []), row]);
      console.error(
        `${x.label} r${r}: ${Math.round(row[0]!)} req/s relay user ${row[1]!.toFixed(1)} sys ${row[2]!.toFixed(1)} µs, server ${row[3]!.toFixed(1)} µs; system calls a request, relay ${row[4]!.toFixed(2)} reads ${row[5]!.toFixed(2)} writes, server ${row[6]!.toFixed(2)} reads ${row[7]!.toFixed(2)} writes${w.non2xx + w.errors ? ` non2xx/errors ${w.non2xx + w.errors}` : ''}`,
      );
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  // Same-round ratios to the first tree (the machine's drift cancels within a round).
  const first = [...rows.values()][0]!;
  for (const [label, rs] of rows)
    console.log(
      `${label}: relay CPU per request, median of the rounds' ratios to ${running[0]!.label}: ${med(rs.map((r, i) => (r[1]! + r[2]!) / (first[i]![1]! + first[i]![2]!))).toFixed(3)}`,
    );
  console.log('| tree | req/s | relay µs/req (user + sys) | relay user | relay sys | server µs/req |');
  console.log('|---|---|---|---|---|---|');
  for (const [label, rs] of rows) {
    const tot = med(rs.map((r) => r[1]! + r[2]!));
    console.log(
      `| ${label} | ${Math.round(med(rs.map((r) => r[0]!)))} | ${tot.toFixed(1)} | ${med(rs.map((r) => r[1]!)).toFixed(1)} | ${med(rs.map((r) => r[2]!)).toFixed(1)} | ${med(rs.map((r) => r[3]!)).toFixed(1)} |`,
    );
  }
} finally {
  for (const x of running) {
    await x.server.stop();
    await x.relay.stop();
  }
  await rm(tmp, { recursive: true, force: true });
}
