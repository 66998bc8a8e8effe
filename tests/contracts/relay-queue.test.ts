import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { memoryRelayQueue } from '../../relay/queue/memory.ts';
import { redisRelayQueue } from '../../relay/queue/redis.ts';
import { silentLogger } from '../helpers/logger.ts';
import { deleteKeys, redisClient, uniquePrefix } from '../relay/helpers.ts';
import { RELAY_QUEUE_CASES, runRelayQueueContract } from './relay-queue.contract.ts';

runRelayQueueContract('memory', {
  create: async () => {
    const queue = memoryRelayQueue();
    return { queue, cleanup: () => queue.close() };
  },
  skip: [
    {
      reason: 'the memory queue lives in one process: there is no second instance to share it with',
      tests: [RELAY_QUEUE_CASES.shared],
    },
  ],
});

let client: Redis;
beforeAll(async () => {
  client = await redisClient();
});
afterAll(async () => {
  await client?.quit();
});

runRelayQueueContract('redis', {
  create: async () => {
    const prefix = uniquePrefix();
    // A long poll interval: a lost wake-up would show as a slow test, not hide behind the poll.
    const queue = redisRelayQueue({ client, prefix, pollMs: 10_000, logger: silentLogger });
    const other = redisRelayQueue({ client, prefix, pollMs: 10_000, logger: silentLogger });
    return {
      queue,
      other,
      async listening(serverId) {
        const [, n] = (await client.pubsub('NUMSUB', `${prefix}{${serverId}}:wake`)) as [string, number];
        return Number(n) > 0;
      },
      async cleanup() {
        await queue.close();
        await other.close();
        await deleteKeys(client, prefix);
      },
    };
  },
});
