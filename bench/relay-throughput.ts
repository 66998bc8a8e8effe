/**
 * Relay figures: requests/s and p50/p99 of GET /api/v1/notes/:path, direct and through the
 * relay (memory queue, and Redis when REDIS_URL answers), in one run, 32 connections. The
 * note server and the relay each run in their own process, as in production; the load comes
 * from this one. Standalone: `npx tsx bench/relay-throughput.ts [seconds]`, or `relayBench()`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NOTE = '/api/v1/notes/bench%2Fnote.md';

/** One measured target. Latencies in ms. */
export interface RelayBenchResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/**
 * Runs a .ts entry under tsx in `cwd` (this tree, or another checkout); resolves with the first
 * JSON log line matching `msg` (and the pid).
 */
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
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
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

async function measure(label: string, url: string, seconds: number): Promise<RelayBenchResult> {
  await autocannon({ url, connections: 32, duration: 1 }); // warm-up
  const r = await autocannon({ url, connections: 32, duration: seconds });
  return {
    label,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
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

/** Runs the targets, `seconds` each, and returns their figures (direct first). */
export async function relayBench(seconds = 5): Promise<RelayBenchResult[]> {
  const direct = await child('bench/relay-server-child.ts', {}, 'bench server ready');
  const results = [await measure('direct', `${direct.line.url}${NOTE}`, seconds)];
  await direct.stop();

  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const backends: [string, string][] = [['relay (memory)', '']];
  if (await redisAvailable(redisUrl)) backends.push(['relay (redis)', redisUrl]);
  for (const [label, url] of backends) {
    const prefix = `bench:relay:${crypto.randomUUID()}:`;
    const env = {
      RELAY_HOST: '127.0.0.1',
      RELAY_PORT: '0',
      REDIS_URL: url,
      RELAY_REDIS_PREFIX: prefix,
      RELAY_QUEUE_KEY: 'bench-relay-queue-key-0123456789abcdef',
    };
    const relay = await child('deploy/relay/main.ts', env, 'relay listening');
    const server = await child(
      'bench/relay-server-child.ts',
      { RELAY_URL: relay.line.url! },
      'bench server ready',
    );
    results.push(await measure(label, `${relay.line.url}/r/${server.line.serverId}${NOTE}`, seconds));
    await server.stop();
    await relay.stop();
    if (url) {
      const c = new Redis(url);
      const keys = await c.keys(`${prefix}*`);
      if (keys.length) await c.del(...keys);
      await c.quit();
    }
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await relayBench(Number(process.argv[2] ?? 5));
  const base = results[0]!;
  for (const r of results)
    console.log(
      `${r.label.padEnd(16)} ${String(r.rps).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ` +
        `(${Math.round((r.rps / base.rps) * 100)}% of direct, +${(r.p50 - base.p50).toFixed(1)} ms p50, non-2xx ${r.non2xx})`,
    );
}
