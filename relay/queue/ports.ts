/**
 * The relay's one port: the store behind ownership pins, presence, per-server request queues,
 * answers, pairing-code hashes and rate-limit counters. Adapters: `memoryRelayQueue` (one
 * process) and `redisRelayQueue` (any number of relay instances on one Redis).
 *
 * Every time is in milliseconds: TTLs are durations, deadlines are Unix epoch milliseconds.
 * "Not found" answers `null` (or `false`), never throws. Errors thrown by an adapter mean the
 * store itself is unreachable; the Redis adapter throws them as `DomainError('NOT_READY')`.
 */

/** One request waiting for its server, as the queue stores it. */
export interface QueuedRequest {
  /** Unique id (a UUID) chosen by the relay; bound to the serverId it was enqueued for. */
  requestId: string;
  /** Epoch ms after which the request must not be handed out nor answered. */
  deadline: number;
  /** The relay's serialized item (JSON text); adapters store and return it byte for byte. */
  payload: string;
}

/** How `claim` found the ownership pin of a serverId. */
export type ClaimResult = 'created' | 'match' | 'mismatch';

/** Options of `take`. */
export interface TakeOptions {
  /** Most requests to return (at least 1). */
  max: number;
  /** Stop adding requests once their payloads reach this many bytes (the first is always taken). */
  maxBytes: number;
  /** How long to wait for the first request when the queue is empty; 0 answers at once. */
  waitMs: number;
  /** Aborting it ends the wait early with whatever was taken (usually nothing). */
  signal?: AbortSignal;
}

/** The relay's store. Members are safe to call concurrently from any number of relay instances. */
export interface RelayQueue {
  /** Which adapter this is, for health reports. */
  readonly backend: 'memory' | 'redis';

  /**
   * Pins `secretHash` as the owner of `serverId` if nothing is pinned yet (atomic: of two racing
   * first claims exactly one gets `created`). A pin never expires. `match` when the same hash is
   * already pinned, `mismatch` when another one is.
   */
  claim(serverId: string, secretHash: string): Promise<ClaimResult>;
  /**
   * Makes `secretHash` the session secret hash of `serverId`, replacing any earlier one. Only
   * called once the caller has proven possession of the serverId's identity key, so the last
   * proven registration wins; no first-come pin is ever trusted.
   */
  setOwner(serverId: string, secretHash: string): Promise<void>;
  /** The pinned secret hash of `serverId`; `null` when it was never registered. */
  owner(serverId: string): Promise<string | null>;

  /** Records that `serverId` is reachable for the next `ttlMs` (replaces any earlier TTL). */
  markOnline(serverId: string, ttlMs: number): Promise<void>;
  /**
   * Extends the presence of `serverId` to the next `ttlMs` only if it is online now (atomic);
   * false, changing nothing, when it is not (never registered, unregistered, or silent too long):
   * only a register brings a server back, never a late pull.
   */
  refreshOnline(serverId: string, ttlMs: number): Promise<boolean>;
  /** Forgets the presence of `serverId` at once (its pin stays); its waiting takes return. */
  markOffline(serverId: string): Promise<void>;
  /** True while the last `markOnline` TTL of `serverId` runs. */
  isOnline(serverId: string): Promise<boolean>;

  /**
   * Appends `req` to the queue of `serverId` and binds its requestId to that serverId until
   * `req.deadline`, so only that server can answer it and only this queue instance's
   * `awaitAnswer` receives the answer. Atomic. Returns false, storing nothing, when the server
   * is not online (so nothing is queued behind an unregister) or the queue already holds
   * `maxLength` live requests (expired or cancelled ones do not count).
   */
  enqueue(serverId: string, req: QueuedRequest, maxLength: number): Promise<boolean>;
  /**
   * Removes and returns, oldest first, up to `max` live requests of `serverId`, waiting up to
   * `waitMs` for the first. Each request is handed out at most once across all instances
   * (at-most-once: a request is never executed twice). Requests past their deadline or
   * cancelled are dropped here, never returned. Stops waiting (returning nothing) once the
   * server is offline.
   */
  take(serverId: string, opts: TakeOptions): Promise<QueuedRequest[]>;
  /**
   * Removes and returns, oldest first, every live request queued for `serverId` (for example
   * to answer them when the server leaves); none of them is handed out by `take` afterwards.
   */
  evict(serverId: string): Promise<QueuedRequest[]>;

  /**
   * Stores `payload` as the answer to `requestId` and wakes its waiter. Atomic; returns false
   * (storing nothing) when the request is not bound to `serverId`, is past its deadline, was
   * cancelled, or was already answered.
   */
  answer(serverId: string, requestId: string, payload: string): Promise<boolean>;
  /**
   * Waits up to `waitMs` for the answer to `requestId` and consumes it; `null` on time-out or
   * abort. Must be called on the same queue instance that enqueued the request.
   */
  awaitAnswer(
    serverId: string,
    requestId: string,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<string | null>;
  /** Forgets `requestId`: it will not be handed out, and a later answer is refused. Idempotent. */
  cancel(serverId: string, requestId: string): Promise<void>;

  /**
   * Makes `codeHash` (SHA-256 hex of a pairing code) point at `serverId` for `ttlMs`, replacing
   * the server's previous code hash; `null` only removes the previous one. Returns false,
   * changing nothing, when `codeHash` already points at another server.
   */
  setPairCode(serverId: string, codeHash: string | null, ttlMs: number): Promise<boolean>;
  /** The serverId `codeHash` points at; `null` when unknown, expired or spent. */
  findPairCode(codeHash: string): Promise<string | null>;
  /** Deletes `codeHash` if it points at `serverId` (atomic); true when it did. */
  spendPairCode(codeHash: string, serverId: string): Promise<boolean>;

  /**
   * Adds one to the fixed-window counter `key` (the window of `windowMs` starts with the first
   * hit) and returns the count after the hit. Atomic.
   */
  hit(key: string, windowMs: number): Promise<number>;
  /** The current count of `key` and the milliseconds until its window ends (0 and 0 when none). */
  hits(key: string): Promise<{ count: number; resetInMs: number }>;

  /** True when the store answers right now (health); never throws. */
  ping(): Promise<boolean>;
  /** Ends every wait at once (they return empty/null) and releases the adapter's own resources. */
  close(): Promise<void>;
}
