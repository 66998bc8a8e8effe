import { Redis } from 'ioredis';
import { until } from '../helpers/wait.ts';

/** The real Redis the relay tests use. */
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** The RELAY_QUEUE_KEY of test relays on Redis (a relay on Redis needs one). */
export const TEST_QUEUE_KEY = 'test-relay-queue-key-0123456789abcdef';

/** A key prefix no other test shares. */
export function uniquePrefix(): string {
  return `qtest:relay:${crypto.randomUUID()}:`;
}

/** A connected ioredis client (fails the test when Redis is not there). */
export async function redisClient(url = REDIS_URL): Promise<Redis> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await client.del(...keys);
  } while (cursor !== '0');
}

/** Resolves once `deadline` (epoch ms) has passed: a condition, not a fixed sleep. */
export function pastDeadline(deadline: number): Promise<boolean> {
  return until('the deadline to pass', () => Date.now() > deadline + 5, 10_000, 5);
}

/** SHA-256 hex. */
export async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
