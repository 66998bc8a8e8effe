import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { type LoadResult, type LoadSettings, percentile } from './load.ts';

/** One GET on a kept-alive connection; resolves to [status, bytes, ms to the last byte]. */
function get(agent: Agent, url: URL, path: string): Promise<[number, number, number]> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve([res.statusCode ?? 0, bytes, performance.now() - t]));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * A closed-loop load test with node:http as the client (its parser is native), for answers
 * of many megabytes, where autocannon's JavaScript parser would be the bottleneck.
 * `connections` loops each send the next request when the previous answer is read.
 */
export async function runNativeLoad(
  label: string,
  target: { url: string; path: string },
  settings: LoadSettings,
  serverCpuUs?: () => Promise<number>,
): Promise<LoadResult> {
  const url = new URL(target.url);
  const agent = new Agent({ keepAlive: true, maxSockets: settings.connections });
  const loop = async (seconds: number, out: number[], failed: { n: number; bytes: number }) => {
    const end = performance.now() + seconds * 1000;
    const one = async () => {
      while (performance.now() < end) {
        try {
          const [status, bytes, ms] = await get(agent, url, target.path);
          if (status === 200) out.push(ms);
          else failed.n++;
          failed.bytes += bytes;
        } catch {
          failed.n++;
        }
      }
    };
    await Promise.all(Array.from({ length: settings.connections }, one));
  };
  try {
    if (settings.warmup > 0) await loop(settings.warmup, [], { n: 0, bytes: 0 });
    const latencies: number[] = [];
    const tally = { n: 0, bytes: 0 };
    const cpu0 = await serverCpuUs?.();
    const t0 = performance.now();
    await loop(settings.duration, latencies, tally);
    const elapsed = performance.now() - t0;
    const cpuUs = cpu0 === undefined ? Number.NaN : (await serverCpuUs!()) - cpu0;
    const sorted = Float64Array.from(latencies).sort();
    const responses = sorted.length + tally.n;
    return {
      label,
      rps: (sorted.length * 1000) / elapsed,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      max: sorted.at(-1) ?? Number.NaN,
      mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
      responses,
      failures: tally.n,
      throughput: (tally.bytes * 1000) / elapsed,
      cpuPerRequestUs: cpuUs / Math.max(1, responses),
      cpuLoad: cpuUs / (elapsed * 1000),
      loadavg: loadavg()[0] ?? Number.NaN,
    };
  } finally {
    agent.destroy();
  }
}
