/**
 * Relay figures with wrk: requests/s, p50/p99 and CPU per request of GET /api/v1/notes/:path
 * (a cached note, with a key) direct and through the relay (memory queue, and Redis when
 * REDIS_URL answers). The real note server (`deploy/node/main.ts`, relay pairing: its hot
 * dispatcher direct, its tunnel connector relayed) and the real relay (`deploy/relay/main.ts`)
 * each run in their own process, both pinned to CPU 0; wrk runs on CPU 1 (bench/wrk.ts), 32
 * connections after a 3 s warm-up (BENCH_RELAY_WARMUP), then 1 connection for the added p50.
 * Direct, memory and Redis are measured in the same rounds, interleaved, and medians of the
 * rounds kept; CPU per request of each process is user + system time (every thread) from /proc
 * over the measured seconds divided by the requests answered.
 *
 *   npx tsx bench/relay-throughput.ts [seconds=5] [rounds=3] [label=DIR[@NAME=value,...] ...]
 *
 * A DIR is another checkout of the repo with node_modules (e.g. /work/wt/base): its server and
 * relay run from there, in the same rounds, so before/after is one command. `relayBench()` is
 * this tree alone (bench/run.ts). `@HOT_ROUTES=0` after a DIR runs its relay and server with that
 * environment: `hot=. plain=.@HOT_ROUTES=0` measures the hot routes against the plain path.
 * Each relay runs with the V8 flags `npm run relay` gives it (`relayNodeFlags`). Linux only
 * (/proc, taskset).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '../tests/helpers/ports.ts';
import { nginxAvailable, startNginx } from './nginx.ts';
import { canPin, pin, wrk } from './wrk.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NOTE = '/api/v1/notes/bench%2Fnote.md';

/**
 * The V8 flags of `npm run relay` in `root`'s package.json (its young generation: decision 0039),
 * so a benchmark's relay is the one operators run.
 */
export async function relayNodeFlags(root: string): Promise<string[]> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return pkg.scripts.relay?.match(/--[a-z-]+-space-size=\d+/g) ?? [];
}

/** Runs a .ts entry under tsx; resolves with the first JSON log line matching `msg` (and the pid). */
export async function startChild(
  entry: string,
  env: Record<string, string>,
  msg: string,
  keepLevel = false,
  cwd = ROOT,
) {
  return child(entry, env, msg, keepLevel, cwd);
}

async function child(entry: string, env: Record<string, string>, msg: string, keepLevel = false, cwd = ROOT) {
  // A relay runs with `npm run relay`'s V8 flags, as in `startRelay`.
  const flags = entry === 'deploy/relay/main.ts' ? await relayNodeFlags(cwd) : [];
  const proc: ChildProcess = spawn(process.execPath, [...flags, '--import', 'tsx', entry], {
    cwd,
    env: { ...process.env, ...(keepLevel ? {} : { LOG_LEVEL: 'info' }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const line = await new Promise<Record<string, string>>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      for (const l of out.split('\n'))
        if (l.startsWith('{') && JSON.parse(l).msg === msg) {
          // From here on the output is drained unread: re-splitting a growing log costs this process CPU.
          proc.stdout?.off('data', onData);
          proc.stdout?.resume();
          resolve(JSON.parse(l));
        }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (d) => {
      out += d;
    });
    proc.once('exit', () => reject(new Error(`${entry} exited: ${out}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 5_000).unref();
    });
  return { line, stop, pid: proc.pid as number };
}

/** One measured target. Latencies in ms; CPU in µs per request (`relayUs`: the proxy in front, relay or nginx; 0 when direct). */
export interface RelayBenchResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** p50 with one connection. */
  p50one?: number;
  serverUs?: number;
  relayUs?: number;
}

const TICK_MS = 10; // USER_HZ = 100 on Linux

async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

/** A child from `root` (`node --import tsx entry`), quiet (warn), ready once `ready()` is true. */
async function spawnQuiet(
  root: string,
  entry: string,
  env: Record<string, string>,
  ready: () => Promise<boolean>,
  nodeArgs: string[] = [],
) {
  const proc: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr?.on('data', (d) => {
    err += d;
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 5_000).unref();
    });
  // Two minutes: a loaded machine (load 20 on two cores) takes over one to start a server under tsx.
  const until = Date.now() + 120_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${entry} exited: ${err}`);
    if (await ready().catch(() => false)) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`${entry} not ready: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { pid: proc.pid as number, stop };
}

/**
 * BENCH_RELAY_CPU_PROF=DIR: each relay runs with `node --cpu-prof` and leaves its profile in DIR
 * when it stops (open it in Chrome's DevTools or read it with bench/cpu-profile.ts).
 * BENCH_RELAY_NODE_ARGS: more node flags for each relay (e.g. `--heap-prof --heap-prof-dir=DIR`).
 * BENCH_SERVER_CPU_PROF=DIR: the same for each note server (the tunnel's server end).
 */
const PROF_DIR = process.env.BENCH_RELAY_CPU_PROF;
const SERVER_PROF_DIR = process.env.BENCH_SERVER_CPU_PROF;

/** A relay from `root` on a free port (rate limits out of the way: the load is one address). */
export async function startRelay(
  root: string,
  redisUrl: string,
  prefix: string,
  nodeArgs: string[] = [],
  extraEnv: Record<string, string> = {},
) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const relay = await spawnQuiet(
    root,
    'deploy/relay/main.ts',
    {
      RELAY_HOST: '127.0.0.1',
      RELAY_PORT: String(port),
      RELAY_PUBLIC_BASE_URL: url,
      REDIS_URL: redisUrl,
      RELAY_REDIS_PREFIX: prefix,
      RELAY_QUEUE_KEY: 'bench-relay-queue-key-0123456789abcdef',
      RELAY_RATE_PER_CLIENT: '1000000000',
      RELAY_RATE_PER_SERVER: '1000000000',
      RELAY_MAX_OPEN_PER_CLIENT: '100000',
      ...extraEnv,
    },
    async () => (await fetch(`${url}/api/v1/health`)).ok,
    [
      ...(await relayNodeFlags(root)),
      ...nodeArgs,
      ...(PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROF_DIR}`] : []),
      ...(process.env.BENCH_RELAY_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
  );
  return { ...relay, url };
}

/** The real note server from `root` over a one-note vault, paired with `relayUrl`; its key and id. */
export async function startServer(root: string, relayUrl: string, extraEnv: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'quire-relay-bench-'));
  await mkdir(join(dir, 'vault', 'bench'), { recursive: true });
  await writeFile(join(dir, 'vault', 'bench', 'note.md'), `# Bench\n\n${'Some words. '.repeat(200)}`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let setup: { apiKey: string; serverId: string } | undefined;
  const server = await spawnQuiet(
    root,
    'deploy/node/main.ts',
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: join(dir, 'data'),
      VAULT_DIR: join(dir, 'vault'),
      PAIRING_MODE: 'relay',
      RELAY_URL: relayUrl,
      RATE_LIMIT_FAILURES: '100000',
      RATE_LIMIT_AUTH_PER_MINUTE: '100000',
      ...extraEnv,
    },
    async () => {
      setup ??= ((await (await fetch(`${url}/api/v1/system/setup`)).json()) as { data: typeof setup }).data;
      const info = await fetch(`${url}/api/v1/system/info`, { headers: { 'x-service-key': setup!.apiKey } });
      const relay = ((await info.json()) as { data: { relay: { state: string } } }).data.relay;
      return (
        relay.state === 'online' &&
        (await fetch(`${url}${NOTE}`, { headers: { 'x-service-key': setup!.apiKey } })).ok
      );
    },
    SERVER_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${SERVER_PROF_DIR}`] : [],
  );
  return {
    ...server,
    url,
    key: setup!.apiKey,
    serverId: setup!.serverId,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function redisAvailable(url: string): Promise<boolean> {
  const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => {});
  try {
    await c.connect();
    return (await c.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    c.disconnect();
  }
}

/** Warm-up seconds before each measured target (BENCH_RELAY_WARMUP, default 3). */
const WARMUP = Number(process.env.BENCH_RELAY_WARMUP ?? 3);

/** One target measured: a warm-up, `seconds` at 32 connections (CPU sampled), then 1 connection. */
async function measure(
  label: string,
  url: string,
  key: string,
  seconds: number,
  pids: { server: number; relay?: number },
  cpu: number | undefined,
  tmp: string,
): Promise<RelayBenchResult> {
  const headers = { 'x-service-key': key };
  // Long enough for the JIT to settle: compiling counts as CPU of the process (every thread).
  await wrk({ label, url, connections: 32, seconds: WARMUP, headers, cpu, tmp });
  const s0 = await cpuMs(pids.server);
  const r0 = pids.relay ? await cpuMs(pids.relay) : 0;
  const r = await wrk({ label, url, connections: 32, seconds, headers, cpu, tmp });
  const s1 = await cpuMs(pids.server);
  const r1 = pids.relay ? await cpuMs(pids.relay) : 0;
  const one = await wrk({
    label,
    url,
    connections: 1,
    seconds: Math.max(2, Math.round(seconds / 2)),
    headers,
    cpu,
    tmp,
  });
  const n = Math.max(1, r.rps * seconds);
  return {
    label,
    rps: Math.round(r.rps),
    p50: r.p50,
    p99: r.p99,
    non2xx: r.non2xx + r.errors + one.non2xx + one.errors,
    p50one: one.p50,
    serverUs: Math.round(((s1 - s0) * 1000) / n),
    relayUs: pids.relay ? Math.round(((r1 - r0) * 1000) / n) : 0,
  };
}

/**
 * One round of one tree: direct, through nginx and through one relay on one server (in an order
 * that turns with `turn`, so no target always meets the server coldest or the machine's minute
 * alone), then through the other relay on a second pair. Which relay (memory or Redis queue) goes
 * first alternates with `turn` too: a read through the tunnel never touches the queue, yet the
 * memory relay, always first, measured dearer than the Redis one. Results come back in a fixed
 * order: direct, nginx (when measured), relay (memory), relay (redis).
 */
async function round(
  root: string,
  redisUrl: string | null,
  seconds: number,
  tmp: string,
  withNginx: boolean,
  turn = 0,
  env: Record<string, string> = {},
) {
  const pinned = await canPin();
  const cpu = pinned ? 1 : undefined;
  const out = new Map<string, RelayBenchResult>();
  const queues: [string, string][] = [['relay (memory)', '']];
  if (redisUrl) queues.push(['relay (redis)', redisUrl]);
  if (turn % 2 === 1) queues.reverse();
  for (const [label, url] of queues) {
    const prefix = `bench:relay:${crypto.randomUUID()}:`;
    const relay = await startRelay(root, url, prefix, [], env);
    try {
      const server = await startServer(root, relay.url, env);
      // The anchor of what a proxy adds: nginx in front of the same server, on the same CPU.
      const nginx = out.size === 0 && withNginx ? await startNginx(server.url) : null;
      try {
        if (pinned) {
          await pin(relay.pid, 0);
          await pin(server.pid, 0);
          if (nginx) await pin(nginx.pid, 0);
        }
        const via = `${relay.url}/r/${server.serverId}${NOTE}`;
        const targets: [string, string, { server: number; relay?: number }][] = [
          [label, via, { server: server.pid, relay: relay.pid }],
        ];
        if (out.size === 0) {
          targets.unshift(['direct', `${server.url}${NOTE}`, { server: server.pid }]);
          if (nginx)
            targets.splice(1, 0, ['nginx', `${nginx.url}${NOTE}`, { server: server.pid, relay: nginx.pid }]);
          for (let i = 0; i < turn % targets.length; i++) targets.push(targets.shift()!);
        }
        for (const [name, target, pids] of targets)
          out.set(name, await measure(name, target, server.key, seconds, pids, cpu, tmp));
      } finally {
        await nginx?.stop();
        await server.stop();
      }
    } finally {
      await relay.stop();
      if (url) {
        const c = new Redis(url);
        const keys = await c.keys(`${prefix}*`);
        if (keys.length) await c.del(...keys);
        await c.quit();
      }
    }
  }
  return ['direct', 'nginx', 'relay (memory)', 'relay (redis)'].flatMap((l) => out.get(l) ?? []);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Medians of each target over rounds (each field its own median). */
function medians(rounds: RelayBenchResult[][]): RelayBenchResult[] {
  return rounds[0]!.map((first, i) => {
    const all = rounds.map((r) => r[i]!);
    const m = (f: (r: RelayBenchResult) => number | undefined) => median(all.map((r) => f(r) ?? 0));
    return {
      label: first.label,
      rps: m((r) => r.rps),
      p50: m((r) => r.p50),
      p99: m((r) => r.p99),
      non2xx: all.reduce((n, r) => n + r.non2xx, 0),
      p50one: m((r) => r.p50one),
      serverUs: m((r) => r.serverUs),
      relayUs: m((r) => r.relayUs),
    };
  });
}

/**
 * Every tree's targets, `rounds` rounds of `seconds` each, trees interleaved within a round;
 * returns each tree's medians (direct first) and every round's figures.
 */
/** A tree to measure: a checkout, and environment its relay and server get (e.g. HOT_ROUTES=0). */
export interface BenchTree {
  label: string;
  dir: string;
  env?: Record<string, string>;
}

/** `label=dir[@NAME=value,...]` (or a bare dir): a tree argument of the command line. */
export function treeArg(a: string): BenchTree {
  const [head, envPart] = a.split('@') as [string, string | undefined];
  const [label, dir] = head.includes('=') ? (head.split('=') as [string, string]) : [head, head];
  const env = Object.fromEntries(
    (envPart ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('=')),
  );
  return { label, dir, env };
}

export async function relayRounds(trees: BenchTree[], seconds = 5, rounds = 3) {
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const redis = (await redisAvailable(redisUrl)) ? redisUrl : null;
  const tmp = await mkdtemp(join(tmpdir(), 'quire-relay-wrk-'));
  const withNginx = process.env.BENCH_NGINX !== '0' && (await nginxAvailable());
  const all = new Map<string, RelayBenchResult[][]>();
  try {
    for (let i = 0; i < rounds; i++)
      for (const t of trees) {
        const r = await round(t.dir, redis, seconds, tmp, withNginx, i, t.env);
        all.set(t.label, [...(all.get(t.label) ?? []), r]);
        if (process.env.BENCH_VERBOSE) console.error(t.label, i, JSON.stringify(r));
      }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return trees.map((t) => ({ ...t, medians: medians(all.get(t.label)!), rounds: all.get(t.label)! }));
}

/** What one proxied target adds to a read over direct in the same round: CPU µs (both processes) and p50 at 1 connection. */
export interface AddedCost {
  label: string;
  cpuUs: number;
  p50ms: number;
}

/** Each proxied target's added cost in one round (direct is the round's first target). */
export function addedCosts(round: RelayBenchResult[]): AddedCost[] {
  const direct = round[0]!;
  return round.slice(1).map((r) => ({
    label: r.label,
    cpuUs: (r.serverUs ?? 0) + (r.relayUs ?? 0) - (direct.serverUs ?? 0),
    p50ms: (r.p50one ?? 0) - (direct.p50one ?? 0),
  }));
}

/**
 * The relay against nginx, per round then the median over rounds (each ratio the relay target over
 * the nginx of the same round, same server):
 * - `proxy`: the CPU of the proxy process alone per read (the relay's process against nginx's);
 * - `total`: the CPU per read of server and proxy together (the relay's server end included);
 * - `added`: what each adds over a direct read of the round (server + proxy - direct); on a loaded
 *   machine the direct read's own spread can exceed nginx's cost, and such a round has no ratio;
 * - `p50`: the latency at one connection through each.
 * Empty without nginx.
 */
export function relayOverNginx(rounds: RelayBenchResult[][]) {
  const labels = (rounds[0] ?? []).map((r) => r.label).filter((l) => l.startsWith('relay'));
  if (!rounds[0]?.some((r) => r.label === 'nginx')) return [];
  const over = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
  const finite = (xs: number[]) => {
    const ok = xs.filter(Number.isFinite);
    return ok.length ? median(ok) : Number.NaN;
  };
  return labels.map((label) => {
    const per = rounds.map((r) => {
      const x = r.find((t) => t.label === label)!;
      const n = r.find((t) => t.label === 'nginx')!;
      const costs = addedCosts(r);
      const xa = costs.find((c) => c.label === label)!;
      const na = costs.find((c) => c.label === 'nginx')!;
      const all = (t: RelayBenchResult) => (t.serverUs ?? 0) + (t.relayUs ?? 0);
      return {
        proxy: over(x.relayUs ?? 0, n.relayUs ?? 0),
        total: over(all(x), all(n)),
        added: over(xa.cpuUs, na.cpuUs),
        p50: over(x.p50one ?? 0, n.p50one ?? 0),
        x,
        n,
        xa,
        na,
      };
    });
    const f = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a');
    return {
      label,
      proxyRatio: finite(per.map((p) => p.proxy)),
      totalRatio: finite(per.map((p) => p.total)),
      addedRatio: finite(per.map((p) => p.added)),
      p50Ratio: finite(per.map((p) => p.p50)),
      relayUs: median(per.map((p) => p.x.relayUs ?? 0)),
      nginxUs: median(per.map((p) => p.n.relayUs ?? 0)),
      relayTotalUs: median(per.map((p) => (p.x.serverUs ?? 0) + (p.x.relayUs ?? 0))),
      nginxTotalUs: median(per.map((p) => (p.n.serverUs ?? 0) + (p.n.relayUs ?? 0))),
      relayAddedUs: median(per.map((p) => p.xa.cpuUs)),
      nginxAddedUs: median(per.map((p) => p.na.cpuUs)),
      relayP50ms: median(per.map((p) => p.x.p50one ?? 0)),
      nginxP50ms: median(per.map((p) => p.n.p50one ?? 0)),
      perRound: per.map((p) => `${f(p.proxy)} / ${f(p.total)} / ${f(p.added)} / ${f(p.p50)}`),
    };
  });
}

/** This tree alone: its targets' medians, direct first (bench/run.ts). */
export async function relayBench(seconds = 5, rounds = 3): Promise<RelayBenchResult[]> {
  return (await relayRounds([{ label: 'this tree', dir: ROOT }], seconds, rounds))[0]!.medians;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [secondsArg, roundsArg, ...treeArgs] = process.argv.slice(2);
  const trees = treeArgs.length ? treeArgs.map(treeArg) : [{ label: 'this tree', dir: ROOT }];
  const out = await relayRounds(trees, Number(secondsArg ?? 5), Number(roundsArg ?? 3));
  console.log(
    '| tree | target | req/s | of direct | p50 ms (32 c) | p99 ms | p50 ms (1 c) | added p50 (1 c) | server CPU µs/req | relay CPU µs/req | non-2xx |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const t of out) {
    const direct = t.medians[0]!;
    for (const r of t.medians)
      console.log(
        `| ${t.label} | ${r.label} | ${r.rps} | ${Math.round((r.rps / direct.rps) * 100)}% | ${r.p50} | ${r.p99} | ${r.p50one} | ${((r.p50one ?? 0) - (direct.p50one ?? 0)).toFixed(3)} | ${r.serverUs} | ${r.relayUs} | ${r.non2xx} |`,
      );
  }
  console.log(
    '\nrelay against nginx, medians of per-round ratios (proxy CPU / server + proxy CPU / added over direct / p50 at 1 connection; target <= 1.5x):',
  );
  for (const t of out)
    for (const r of relayOverNginx(t.rounds))
      console.log(
        `${t.label}, ${r.label}: proxy ${r.relayUs} vs ${r.nginxUs} µs (${r.proxyRatio.toFixed(2)}x), server + proxy ${r.relayTotalUs} vs ${r.nginxTotalUs} µs (${r.totalRatio.toFixed(2)}x), added ${r.relayAddedUs} vs ${r.nginxAddedUs} µs (${r.addedRatio.toFixed(2)}x), p50 ${r.relayP50ms} vs ${r.nginxP50ms} ms (${r.p50Ratio.toFixed(2)}x); rounds ${r.perRound.join(', ')}`,
      );
  // Per round, the shares in that round (the rounds' own same-run ratios).
  console.log('\nshares per round (proxied targets of direct):');
  for (const t of out)
    console.log(
      `${t.label}: ${t.rounds
        .map((r) =>
          r
            .slice(1)
            .map((x) => `${Math.round((x.rps / r[0]!.rps) * 100)}%`)
            .join(' / '),
        )
        .join('; ')}`,
    );
}
