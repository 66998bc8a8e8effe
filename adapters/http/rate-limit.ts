import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../core/errors.ts';
import type { RateLimits } from './types.ts';

/** A RATE_LIMITED error carrying the seconds to wait. */
function limited(res: RateLimiterRes, what: string): DomainError {
  const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new DomainError(
    'RATE_LIMITED',
    `Too many ${what}; try again in ${retryAfter} s.`,
    undefined,
    retryAfter,
  );
}

/** Counts one call of `client` on `limiter`; throws RATE_LIMITED (naming `what`) over the limit. */
async function consume(limiter: RateLimiterMemory, client: string, what: string): Promise<void> {
  try {
    await limiter.consume(client);
  } catch (err) {
    if (err instanceof RateLimiterRes) throw limited(err, what);
    throw err;
  }
}

/** Per-client limits on authentication (rate-limiter-flexible, in memory). */
export function createRateLimiter(limits: RateLimits | false | undefined) {
  if (!limits) {
    return {
      auth: async () => {},
      beforeAuth: async () => {},
      failed: async () => {},
      webhook: async (_client: string) => {},
    };
  }
  const auth = new RateLimiterMemory({ points: limits.authPerMinute, duration: 60 });
  const failures = new RateLimiterMemory({ points: limits.failures, duration: limits.failureWindowSeconds });
  const webhook = new RateLimiterMemory({ points: limits.webhookPerMinute ?? 120, duration: 60 });
  return {
    /** Counts one call to an auth endpoint; throws RATE_LIMITED over the limit. */
    auth: (client: string): Promise<void> => consume(auth, client, 'authentication requests'),
    /** Counts one call to a public channel webhook; throws RATE_LIMITED over the limit. */
    webhook: (client: string): Promise<void> => consume(webhook, client, 'webhook calls'),
    /** Throws RATE_LIMITED while `client` has used up its failed attempts. */
    async beforeAuth(client: string): Promise<void> {
      const res = await failures.get(client);
      if (res && res.consumedPoints >= limits.failures) throw limited(res, 'failed authentications');
    },
    /** Counts one failed authentication. */
    async failed(client: string): Promise<void> {
      await failures.consume(client).catch(() => {});
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
