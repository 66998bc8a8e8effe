import type { Context } from 'hono';
import type { Clock, Logger } from '../../core/ports.ts';
import type { PayloadSeal } from '../protocol/seal.ts';
import type { RelayQueue } from '../queue/ports.ts';
import type { RelayLimits } from './relay-limits.ts';
import type { TunnelHub } from './tunnel-hub.ts';

export type { RelayLimits } from './relay-limits.ts';

/** Defaults of the relay's limits; docs/reference/relay.md ("Variables") lists each with its variable. */
export const DEFAULT_LIMITS: RelayLimits = {
  maxBodyBytes: 10 * 1024 * 1024,
  answerTimeoutMs: 30_000,
  pullWaitMs: 25_000,
  maxBatch: 20,
  maxQueue: 256,
  offlineAfterMs: 40_000,
  pairCodeTtlMs: 15 * 60_000,
  pairFailuresPerClient: 10,
  pairFailuresPerServer: 20,
  pairFailureWindowMs: 15 * 60_000,
  newServersPerClientHour: 30,
  proxyPerClient: 20_000,
  proxyPerServer: 100_000,
  proxyWindowMs: 10_000,
  proxyUnauthPerServer: 10_000,
  maxOpenPerClient: 64,
  maxInflightBytesPerClient: 32 * 1024 * 1024,
  maxInflightBytes: 256 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
};

/**
 * The default of `offlineAfterMs` for a given `pullWaitMs`: a server between two long polls is
 * not offline, so it is at least the pull wait plus 15 s (and never below the default).
 */
export function defaultOfflineAfterMs(pullWaitMs: number): number {
  return Math.max(DEFAULT_LIMITS.offlineAfterMs, pullWaitMs + 15_000);
}

/** `given` over the defaults; `offlineAfterMs`, when not given, follows `defaultOfflineAfterMs`. */
export function relayLimits(given: Partial<RelayLimits> = {}): RelayLimits {
  const limits = { ...DEFAULT_LIMITS, ...given };
  if (given.offlineAfterMs === undefined) limits.offlineAfterMs = defaultOfflineAfterMs(limits.pullWaitMs);
  return limits;
}

/** Everything `createRelayApp` needs. */
export interface RelayDeps {
  queue: RelayQueue;
  /**
   * False: no hot route (`proxyHot`); every proxied request takes `proxyRoutes`, the plain path.
   * Default on (HOT_ROUTES).
   */
  hotRoutes?: boolean;
  /** Public base URL of the relay (RELAY_PUBLIC_BASE_URL), no trailing slash. */
  publicBaseUrl: string;
  logger: Logger;
  clock?: Clock;
  version?: string;
  limits?: Partial<RelayLimits>;
  /** The client's address for rate limits and X-Forwarded-For; runtime-specific. */
  clientAddress?: (c: Context) => string | undefined;
  /** Request ids (default: crypto.randomUUID). */
  newId?: () => string;
  /** Wraps payloads on their way into the queue store (default: stored as they are). */
  seal?: PayloadSeal;
  /** This instance's tunnels (deploy/relay binds WebSockets to it); without, long-poll only. */
  tunnels?: TunnelHub;
}

/** Variables set on the Hono context by the relay's middleware. */
export type RelayEnv = { Variables: { requestId: string } };

/** What route files receive: the deps with every default filled in. */
export interface RelayContext {
  queue: RelayQueue;
  publicBaseUrl: string;
  logger: Logger;
  clock: Clock;
  limits: RelayLimits;
  clientAddress: (c: Context) => string | undefined;
  newId: () => string;
  /** Aborted when the relay shuts down: long polls return at once. */
  closing: AbortSignal;
  /** Largest respond body: every answer body at its base64 size plus room for JSON. */
  maxRespondBytes: number;
  seal: PayloadSeal;
  tunnels?: TunnelHub;
}
