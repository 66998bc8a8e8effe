/** The relay service: the app, its queue port and adapters, and the wire protocol. */
export { createRelayApp, maxRespondBytes, type RelayApp } from './http/app.ts';
export * from './protocol/messages.ts';
export { aesSeal, type PayloadSeal, plainSeal } from './protocol/seal.ts';
export { memoryRelayQueue } from './queue/memory.ts';
export type { ClaimResult, QueuedRequest, RelayQueue, TakeOptions } from './queue/ports.ts';
export { type RedisRelayQueueOptions, redisRelayQueue } from './queue/redis.ts';
export { DEFAULT_LIMITS, type RelayDeps, type RelayLimits } from './service/types.ts';
