/** The relay service: the app, its queue port and adapters, and the wire protocol. */
export { createRelayApp, maxRespondBytes, type RelayApp } from './app.ts';
export { memoryRelayQueue } from './memory-queue.ts';
export type { ClaimResult, QueuedRequest, RelayQueue, TakeOptions } from './ports.ts';
export * from './protocol.ts';
export { type RedisRelayQueueOptions, redisRelayQueue } from './redis-queue.ts';
export { aesSeal, type PayloadSeal, plainSeal } from './seal.ts';
export { DEFAULT_LIMITS, type RelayDeps, type RelayLimits } from './types.ts';
