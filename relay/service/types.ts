import type { Context } from 'hono';
import type { Clock, Logger } from '../../core/ports.ts';
import type { PayloadSeal } from '../protocol/seal.ts';
import type { RelayQueue } from '../queue/ports.ts';
import type { TunnelHub } from './tunnel-hub.ts';

/** The relay's limits; every one configurable (deploy/shared/config/relay.ts names the variables). */
export interface RelayLimits {
  /** Largest proxied request body in bytes (413 above); also the largest relayed answer body. */
  maxBodyBytes: number;
  /** How long a client waits for its server's answer before 504, in ms. */
  answerTimeoutMs: number;
  /** Longest a pull waits for a first request, in ms (also the default wait). */
  pullWaitMs: number;
  /** Most requests one pull returns. */
  maxBatch: number;
  /** Most live requests queued per server (503 above). */
  maxQueue: number;
  /** A server without a register or pull for this long is offline (503), in ms. */
  offlineAfterMs: number;
  /** How long a registered pairing-code hash stays usable at the relay, in ms. */
  pairCodeTtlMs: number;
  /** Failed exchanges allowed per client address per window before 429. */
  pairFailuresPerClient: number;
  /** Failed exchanges allowed per serverId per window before 429. */
  pairFailuresPerServer: number;
  /** Length of the failure window, in ms. */
  pairFailureWindowMs: number;
  /** New serverIds one client address may register per hour (existing ones are not counted). */
  newServersPerClientHour: number;
  /** Proxied requests (`/r/*`) one client address may send per rate window before 429. */
  proxyPerClient: number;
  /** Proxied requests one serverId may receive per rate window before 429. */
  proxyPerServer: number;
  /** Length of the proxied-request rate window, in ms (fixed, per relay instance). */
  proxyWindowMs: number;
  /** Proxied requests per serverId per window answered 401/403 or sent without a credential (the stranger budget). */
  proxyUnauthPerServer: number;
  /** Proxied requests one client address may have open at once (429 above). */
  maxOpenPerClient: number;
  /** Request-body bytes one client address may have in flight (received, not yet answered). */
  maxInflightBytesPerClient: number;
  /** Request-body bytes the whole relay instance may have in flight. */
  maxInflightBytes: number;
  /** Longest a proxied request body may take to arrive, in ms (408 `REQUEST_TIMEOUT` above). */
  bodyTimeoutMs: number;
}

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
