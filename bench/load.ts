import { loadavg } from 'node:os';
import autocannon from 'autocannon';

/** Settings shared by every load test of a run. */
export interface LoadSettings {
  connections: number;
  /** Seconds of measurement. */
  duration: number;
  /** Seconds of unmeasured load before it (JIT, caches). */
  warmup: number;
}

/** The outcome of one load test; latencies in milliseconds. */
export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
  responses: number;
  /** Responses whose status was not the expected one, plus socket errors and timeouts. */
  failures: number;
  /** Response bytes per second. */
  throughput: number;
  /** Server CPU time (user + system) per response, in µs; NaN when not measured. */
  cpuPerRequestUs: number;
  /** Server CPU use during the test, 1 = one core busy all the time. */
  cpuLoad: number;
  /** The machine's 1-minute load average at the end: how much else was running. */
  loadavg: number;
}

/** Percentile `q` (0..1) of an ascending-sorted array (nearest rank). */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** Median of unsorted numbers. */
export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

interface Target {
  url: string;
  /** Request paths, used round robin across all connections. */
  paths: string[];
  headers?: Record<string, string>;
  expectStatus?: number;
}

function once(
  t: Target,
  settings: LoadSettings,
  seconds: number,
  record: boolean,
): Promise<{ result: autocannon.Result; latencies: number[]; unexpected: number }> {
  let next = 0;
  const latencies: number[] = [];
  let unexpected = 0;
  const expect = t.expectStatus ?? 200;
  return new Promise((resolve, reject) => {
    const opts: autocannon.Options = {
      url: t.url,
      connections: settings.connections,
      duration: seconds,
      headers: t.headers,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            req.path = t.paths[next++ % t.paths.length]!;
            return req;
          },
        },
      ],
    };
    const instance = autocannon(opts, (err: unknown, result) =>
      err ? reject(err) : resolve({ result, latencies, unexpected }),
    );
    // autocannon keeps only 2xx latencies at 1 ms resolution; we keep every response, unrounded.
    // The listener really receives (client, status, bytes, ms), unlike its published type.
    instance.on('response', (...args: unknown[]) => {
      const [, status, , time] = args as [unknown, number, number, number];
      if (!record) return;
      if (status === expect) latencies.push(time);
      else unexpected++;
    });
  });
}

/**
 * Runs one load test against `target` and summarizes it. `serverCpuUs` (optional) reads the
 * server's CPU time, so the cost per request can be told apart from what the load generator
 * or other processes on the machine took.
 */
export async function runLoad(
  label: string,
  target: Target,
  settings: LoadSettings,
  serverCpuUs?: () => Promise<number>,
): Promise<LoadResult> {
  if (settings.warmup > 0) await once(target, settings, settings.warmup, false);
  const cpu0 = await serverCpuUs?.();
  const t0 = performance.now();
  const { result, latencies, unexpected } = await once(target, settings, settings.duration, true);
  const elapsedUs = (performance.now() - t0) * 1000;
  const cpuUs = cpu0 === undefined ? Number.NaN : (await serverCpuUs!()) - cpu0;
  const sorted = Float64Array.from(latencies).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    label,
    rps: result.requests.average,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sum / Math.max(1, sorted.length),
    responses: sorted.length + unexpected,
    failures: unexpected + result.errors + result.timeouts,
    throughput: result.throughput.average,
    cpuPerRequestUs: cpuUs / Math.max(1, sorted.length + unexpected),
    cpuLoad: cpuUs / elapsedUs,
    loadavg: loadavg()[0] ?? Number.NaN,
  };
}
