/**
 * The relay's rate-limit check per proxied request, in one run: rate-limiter-flexible's
 * `RateLimiterMemory` (what relay/service/rate-limit.ts uses) against `RateLimiterRedis` on the
 * Redis at REDIS_URL (what a Redis-backed limit would cost): µs per admit (one consume and two
 * gets, as `proxyRates().admit` does), sequential and 32 at once, and this process's CPU µs per
 * admit. `npx tsx bench/relay-rate-limit.ts [admits=5000]`.
 */
import { cpuUsage } from 'node:process';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

const n = Number(process.argv[2] ?? 5000);
const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
const prefix = `bench:rl:${crypto.randomUUID()}`;

type Limiter = RateLimiterMemory | RateLimiterRedis;
const make = (kind: 'memory' | 'redis', name: string): Limiter =>
  kind === 'memory'
    ? new RateLimiterMemory({ points: 1e9, duration: 10 })
    : new RateLimiterRedis({ storeClient: redis, points: 1e9, duration: 10, keyPrefix: `${prefix}:${name}` });

async function measure(kind: 'memory' | 'redis', parallel: number) {
  const [c, s, u] = [make(kind, 'c'), make(kind, 's'), make(kind, 'u')];
  const admit = async (i: number) => {
    await c.consume(`addr-${i % 50}`);
    await s.get('server');
    await u.get('server');
  };
  for (let i = 0; i < 200; i++) await admit(i);
  const cpu0 = cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) await admit(next++);
    }),
  );
  const ms = performance.now() - t0;
  const cpu = cpuUsage(cpu0);
  return {
    kind,
    parallel,
    usPerAdmit: ((ms * 1000) / n).toFixed(1),
    cpuUsPerAdmit: ((cpu.user + cpu.system) / n).toFixed(1),
  };
}

console.log('| limiter | at once | wall µs per admit | this process CPU µs per admit |');
console.log('|---|---|---|---|');
for (const parallel of [1, 32])
  for (const kind of ['memory', 'redis'] as const) {
    const r = await measure(kind, parallel);
    console.log(`| ${r.kind} | ${r.parallel} | ${r.usPerAdmit} | ${r.cpuUsPerAdmit} |`);
  }
const keys = await redis.keys(`${prefix}*`);
if (keys.length) await redis.del(...keys);
await redis.quit();
