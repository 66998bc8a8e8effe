import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { retryLater } from './errors.ts';
import type { RelayLimits } from './types.ts';

/**
 * The proxied routes' rates, on rate-limiter-flexible's in-memory limiter (fixed windows of
 * `proxyWindowMs`): per client address, per serverId, and the stranger budget per serverId.
 * Per relay instance, as docs/relay.md says: a Redis round trip per proxied request would cost
 * more than the check is worth (bench/results/2026-11-26-relay.md), and every instance keeps its
 * own share. Over a limit: RATE_LIMITED with Retry-After, the seconds left in the window.
 */
export function proxyRates(
  limits: Pick<RelayLimits, 'proxyPerClient' | 'proxyPerServer' | 'proxyUnauthPerServer' | 'proxyWindowMs'>,
) {
  const duration = limits.proxyWindowMs / 1000;
  const perClient = new RateLimiterMemory({ points: limits.proxyPerClient, duration });
  const perServer = new RateLimiterMemory({ points: limits.proxyPerServer, duration });
  const unauth = new RateLimiterMemory({ points: limits.proxyUnauthPerServer, duration });
  const limited = (who: string, res: RateLimiterRes) =>
    retryLater('RATE_LIMITED', `Too many requests ${who}; slow down and retry.`, res.msBeforeNext / 1000);
  /** Throws when `key` has used its `points` in this window (without counting a hit). */
  const full = async (limiter: RateLimiterMemory, key: string, who: string) => {
    const res = await limiter.get(key);
    if (res && res.msBeforeNext > 0 && res.consumedPoints >= limiter.points) throw limited(who, res);
  };
  return {
    /**
     * Counts one request against its address's rate and checks the server's budgets (the
     * stranger budget too when it carries no credential); throws RATE_LIMITED over any.
     */
    async admit(serverId: string, address: string | undefined, withCredential: boolean): Promise<void> {
      try {
        await perClient.consume(address ?? 'unknown');
      } catch (res) {
        if (res instanceof Error) throw res;
        throw limited('from this address', res as RateLimiterRes);
      }
      await full(perServer, serverId, 'for this server');
      if (!withCredential) await full(unauth, serverId, 'without a key for this server');
    },
    /** Charges the server for an answer: 401/403 to the stranger budget, anything else to its own. */
    settle(serverId: string, status: number) {
      void (status === 401 || status === 403 ? unauth : perServer).penalty(serverId);
    },
  };
}
