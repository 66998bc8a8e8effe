/**
 * Load: `clients` concurrent clients, each sending its next request as soon as the last one is
 * answered, on a mixed workload (reads, lists, searches, updates, creates), first straight to a
 * note server child, then through a relay child. Counts every answer and network error, keeps
 * every latency, and samples both processes' RSS, so a run tells its p50/p99, its errors (the
 * bar: zero 5xx, zero network errors) and whether memory stays flat after the warm-up.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateVault } from '../../../bench/generate-vault.ts';
import { freePort } from '../../helpers/ports.ts';
import { httpClient, percentile } from './http.ts';
import { type Proc, startRedisProc, startRelayProc } from './procs.ts';
import { createRng, type Rng, subSeed } from './rng.ts';
import { keyedServer } from './world.ts';

/** Options of `mixedLoad`. */
export interface LoadOptions {
  seed: number;
  clients: number;
  /** Measured seconds per route. */
  seconds: number;
  /** Unmeasured seconds before (JIT, caches, sockets). */
  warmupSeconds: number;
  /** Notes generated into the vault (default 300). */
  notes?: number;
  /** The relay's queue: in memory (default) or on a redis-server of our own. */
  relayQueue?: 'memory' | 'redis';
  /** RSS sample interval, ms (default 250). */
  sampleMs?: number;
  log?: (line: string) => void;
}

/** RSS of the processes at one moment, MiB; `t` in seconds since the route's measurement began. */
export interface RssSample {
  t: number;
  server: number;
  relay: number;
}

/** The figures of one route. */
export interface RouteResult {
  route: 'direct' | 'relay';
  requests: number;
  rps: number;
  /** Answers by operation and status, e.g. `read 200`. */
  answers: Record<string, number>;
  /** 5xx answers plus network errors plus any status the workload does not expect. */
  errors: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Latency by operation, ms. */
  ops: Record<string, { p50: number; p99: number }>;
  rss: RssSample[];
  /** RSS growth of the server over the measured window (see `growth`), MiB. */
  serverGrowthMiB: number;
  relayGrowthMiB: number;
}

type Op = 'read' | 'list' | 'search' | 'update' | 'create';
/** The workload: 60% reads, 7% lists, 18% searches, 12% updates, 3% creates. */
const MIX: [Op, number][] = [
  ['read', 0.6],
  ['list', 0.67],
  ['search', 0.85],
  ['update', 0.97],
  ['create', 1],
];
const EXPECT: Record<Op, number> = { read: 200, list: 200, search: 200, update: 200, create: 201 };
const WORDS = ['project', 'meeting', 'notes', 'idea', 'plan', 'review', 'design', 'draft', 'todo', 'week'];

const mib = (kb: number | null) => (kb === null ? 0 : Math.round((kb / 1024) * 10) / 10);

/**
 * How far memory rose over a window, robust to the garbage collector's saw-tooth: the lowest
 * sample of the last third minus the highest of the first third (MiB). Without a leak the late
 * troughs stay below the early peaks, so this is small or negative; a leak lifts the troughs.
 */
export function growth(values: number[]): number {
  const third = Math.max(1, Math.floor(values.length / 3));
  const early = Math.max(...values.slice(0, third));
  const late = Math.min(...values.slice(-third));
  return Math.round((late - early) * 10) / 10;
}

/** Runs the load on both routes; see the file comment. */
export async function mixedLoad(opts: LoadOptions): Promise<RouteResult[]> {
  const log = opts.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'quire-load-'));
  const dataDir = join(root, 'data');
  await mkdir(join(dataDir, 'notes'), { recursive: true });
  const manifest = await generateVault({
    dir: join(dataDir, 'notes'),
    notes: opts.notes ?? 300,
    seed: opts.seed,
  });
  const client = httpClient({ keepAlive: true, maxSockets: opts.clients + 8, timeoutMs: 120_000 });
  let redis: Proc | null = null;
  let relay: Proc | null = null;
  let server: Proc | null = null;
  try {
    const relayEnv: Record<string, string> = {
      LOG_LEVEL: 'warn',
      RELAY_MAX_QUEUE: String(opts.clients * 2 + 64),
      // Every simulated client shares 127.0.0.1: lift the per-address cap on open requests (64).
      RELAY_MAX_OPEN_PER_CLIENT: String(opts.clients * 2 + 64),
    };
    if (opts.relayQueue === 'redis') {
      const port = await freePort();
      await mkdir(join(root, 'redis'));
      redis = await startRedisProc(port, join(root, 'redis'));
      relayEnv.REDIS_URL = `redis://127.0.0.1:${port}`;
      relayEnv.RELAY_QUEUE_KEY = 'reliability-load-queue-key-0123456789abcdef';
    }
    relay = await startRelayProc(await freePort(), relayEnv);
    const srv = await keyedServer(dataDir, {
      relayUrl: (relay as Proc & { url: string }).url,
      env: { LOG_LEVEL: 'warn' },
    });
    server = srv.server;
    const bases = {
      direct: `${srv.server.url}/api/v1`,
      relay: `${(relay as Proc & { url: string }).url}/r/${srv.serverId}/api/v1`,
    };
    const shared = manifest.paths;
    const results: RouteResult[] = [];
    for (const route of ['direct', 'relay'] as const) {
      const base = bases[route];
      let phase: 'warmup' | 'measure' | 'stop' = 'warmup';
      const latencies: number[] = [];
      const answers: Record<string, number> = {};
      const byOp: Partial<Record<Op, number[]>> = {};
      let errors = 0;
      const send = async (rng: Rng, c: number, own: string[], n: number) => {
        const pick = rng.next();
        const op = MIX.find(([, upTo]) => pick < upTo)?.[0] ?? 'read';
        let out: Awaited<ReturnType<typeof client.request>>;
        if (op === 'read') {
          const p = rng.chance(0.8)
            ? shared[rng.int(0, shared.length - 1)]!
            : own[rng.int(0, own.length - 1)]!;
          out = await client.request('GET', `${base}/notes/${encodeURIComponent(p)}`, { headers: srv.key });
        } else if (op === 'list') out = await client.request('GET', `${base}/notes`, { headers: srv.key });
        else if (op === 'search') {
          const q = `${rng.pick(WORDS)} ${rng.chance(0.5) ? rng.pick(WORDS).slice(0, 3) : ''}`.trim();
          out = await client.request('GET', `${base}/search?q=${encodeURIComponent(q)}&limit=10`, {
            headers: srv.key,
          });
        } else if (op === 'update') {
          const p = own[rng.int(0, own.length - 1)]!;
          const content = `# ${p}\nUpdate ${n} by ${c}. [[${rng.pick(shared).replace(/\.md$/, '').split('/').pop()}]] #load ${rng.pick(WORDS)}\n`;
          out = await client.request('PUT', `${base}/notes/${encodeURIComponent(p)}`, {
            headers: srv.key,
            body: { content },
          });
        } else {
          const p = `load/${route}/c${c}/n${n}.md`;
          out = await client.request('POST', `${base}/notes`, {
            headers: srv.key,
            body: { path: p, content: `# ${p}\n#load ${rng.pick(WORDS)}\n` },
          });
          if (out.status === 201) own.push(p);
        }
        if (phase !== 'measure') return;
        const k = `${op} ${out.status || out.error}`;
        answers[k] = (answers[k] ?? 0) + 1;
        latencies.push(out.ms);
        const mine = byOp[op] ?? [];
        mine.push(out.ms);
        byOp[op] = mine;
        if (out.status !== EXPECT[op]) errors++;
      };
      const worker = async (c: number) => {
        const rng = createRng(subSeed(opts.seed, (route === 'relay' ? 10_000 : 0) + c));
        // Each client owns one note from the start, so updates never wait for a create.
        const own = [`load/${route}/c${c}/own.md`];
        await client.request('POST', `${base}/notes`, {
          headers: srv.key,
          body: { path: own[0], content: '# own\n' },
        });
        let n = 0;
        while (phase !== 'stop') await send(rng, c, own, n++);
      };
      const workers = Array.from({ length: opts.clients }, (_, c) => worker(c));
      await new Promise((r) => setTimeout(r, opts.warmupSeconds * 1000));
      phase = 'measure';
      const t0 = performance.now();
      const rss: RssSample[] = [];
      const sample = () =>
        rss.push({
          t: Math.round((performance.now() - t0) / 100) / 10,
          server: mib(srv.server.rssKb()),
          relay: mib(relay!.rssKb()),
        });
      sample();
      const sampler = setInterval(sample, opts.sampleMs ?? 250);
      await new Promise((r) => setTimeout(r, opts.seconds * 1000));
      clearInterval(sampler);
      sample();
      const elapsed = (performance.now() - t0) / 1000;
      phase = 'stop';
      await Promise.all(workers);
      const sorted = Float64Array.from(latencies).sort();
      const r: RouteResult = {
        route,
        requests: sorted.length,
        rps: Math.round(sorted.length / elapsed),
        answers,
        errors,
        p50: Math.round(percentile(sorted, 0.5) * 10) / 10,
        p90: Math.round(percentile(sorted, 0.9) * 10) / 10,
        p99: Math.round(percentile(sorted, 0.99) * 10) / 10,
        max: Math.round((sorted.at(-1) ?? 0) * 10) / 10,
        ops: Object.fromEntries(
          Object.entries(byOp).map(([op, xs]) => {
            const s = Float64Array.from(xs).sort();
            return [op, { p50: Math.round(percentile(s, 0.5)), p99: Math.round(percentile(s, 0.99)) }];
          }),
        ),
        rss,
        serverGrowthMiB: growth(rss.map((s) => s.server)),
        relayGrowthMiB: growth(rss.map((s) => s.relay)),
      };
      log(
        `${route}: ${r.requests} requests, ${r.rps}/s, errors ${r.errors}, p50 ${r.p50} ms, p99 ${r.p99} ms, server RSS ${rss[0]?.server}→${rss.at(-1)?.server} MiB`,
      );
      results.push(r);
    }
    return results;
  } finally {
    client.close();
    await server?.kill();
    await relay?.kill();
    await redis?.kill();
    await rm(root, { recursive: true, force: true });
  }
}
