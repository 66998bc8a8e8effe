import { retryLater } from './errors.ts';
import type { RelayLimits } from './types.ts';

/** One key's window: hits counted in it and when it ends (epoch ms). */
interface Window {
  count: number;
  endsAt: number;
}

/**
 * Fixed windows per key, in memory and synchronous: a key's window starts at its first hit and
 * lasts `ms`; a hit after it ends starts a new one. The rules of rate-limiter-flexible's
 * `RateLimiterMemory`, which the relay used before (bench/results/2026-11-27-relay-end-2.md), without
 * its promise per call (four per proxied request) and its timer per key: ended windows are swept
 * once per window length, so the map holds at most the keys of two windows.
 */
export class FixedWindows {
  readonly #windows = new Map<string, Window>();
  #sweepAt: number;
  constructor(
    /** Hits a key may make per window. */
    readonly points: number,
    readonly ms: number,
    readonly now: () => number = Date.now,
  ) {
    this.#sweepAt = now() + ms;
  }

  /** Counts one hit on `key` and returns its window (the count includes this hit). */
  hit(key: string, now: number = this.now()): Window {
    if (now >= this.#sweepAt) this.#sweep(now);
    let w = this.#windows.get(key);
    if (w === undefined || w.endsAt <= now) {
      w = { count: 0, endsAt: now + this.ms };
      this.#windows.set(key, w);
    }
    w.count += 1;
    return w;
  }

  /** The window of `key` while it lasts, else undefined (nothing is counted). */
  current(key: string, now: number = this.now()): Window | undefined {
    const w = this.#windows.get(key);
    return w !== undefined && w.endsAt > now ? w : undefined;
  }

  /** Keys with a window (ended ones not yet swept included): for tests. */
  size(): number {
    return this.#windows.size;
  }

  #sweep(now: number): void {
    this.#sweepAt = now + this.ms;
    for (const [k, w] of this.#windows) if (w.endsAt <= now) this.#windows.delete(k);
  }
}

/**
 * The proxied routes' rates, in fixed windows of `proxyWindowMs` (`FixedWindows`): per client
 * address, per serverId, and the stranger budget per serverId. Per relay instance, as
 * docs/reference/relay.md says: a Redis round trip per proxied request would cost more than the check is
 * worth (bench/results/2026-11-26-relay.md), and every instance keeps its own share. Over a
 * limit: RATE_LIMITED with Retry-After, the seconds left in the window. Synchronous: the door
 * decides without a promise.
 */
export function proxyRates(
  limits: Pick<RelayLimits, 'proxyPerClient' | 'proxyPerServer' | 'proxyUnauthPerServer' | 'proxyWindowMs'>,
  now: () => number = Date.now,
) {
  const ms = limits.proxyWindowMs;
  const perClient = new FixedWindows(limits.proxyPerClient, ms, now);
  const perServer = new FixedWindows(limits.proxyPerServer, ms, now);
  const unauth = new FixedWindows(limits.proxyUnauthPerServer, ms, now);
  const limited = (who: string, w: Window, at: number) =>
    retryLater('RATE_LIMITED', `Too many requests ${who}; slow down and retry.`, (w.endsAt - at) / 1000);
  /** Throws when `key` has used its points in this window (without counting a hit). */
  const full = (windows: FixedWindows, key: string, who: string, at: number) => {
    const w = windows.current(key, at);
    if (w !== undefined && w.count >= windows.points) throw limited(who, w, at);
  };
  return {
    /**
     * Counts one request against its address's rate and checks the server's budgets (the
     * stranger budget too when it carries no credential); throws RATE_LIMITED over any.
     */
    admit(serverId: string, address: string | undefined, withCredential: boolean): void {
      const at = now();
      const w = perClient.hit(address ?? 'unknown', at);
      if (w.count > perClient.points) throw limited('from this address', w, at);
      full(perServer, serverId, 'for this server', at);
      if (!withCredential) full(unauth, serverId, 'without a key for this server', at);
    },
    /** Charges the server for an answer: 401/403 to the stranger budget, anything else to its own. */
    settle(serverId: string, status: number) {
      (status === 401 || status === 403 ? unauth : perServer).hit(serverId);
    },
  };
}
