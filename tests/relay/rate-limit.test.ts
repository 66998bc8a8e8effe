import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../core/errors.ts';
import { credentialed } from '../../relay/http/routes/proxy.ts';
import { FixedWindows, proxyRates } from '../../relay/service/rate-limit.ts';

const refusal = (admit: () => void) => {
  let err: unknown = null;
  try {
    admit();
  } catch (e) {
    err = e;
  }
  if (!isDomainError(err)) throw new Error(`expected a refusal, got ${String(err)}`);
  return { code: err.code, retryAfter: err.retryAfter, message: err.message };
};

describe('the proxied routes rates (fixed windows, in memory, synchronous)', () => {
  const limits = { proxyPerClient: 3, proxyPerServer: 2, proxyUnauthPerServer: 1, proxyWindowMs: 60_000 };

  it('counts each request per address; the fourth is RATE_LIMITED with the window left as Retry-After', async () => {
    const rates = proxyRates(limits);
    for (let i = 0; i < 3; i++) rates.admit('srv', 'a', true);
    const r = refusal(() => rates.admit('srv', 'a', true));
    expect(r.code).toBe('RATE_LIMITED');
    expect(r.message).toMatch(/from this address/);
    expect(r.retryAfter).toBeGreaterThanOrEqual(59);
    expect(r.retryAfter).toBeLessThanOrEqual(60);
    // Another address has its own count.
    rates.admit('srv', 'b', true);
  });

  it("charges the server's budgets only when settled: answers to its own, 401/403 to the stranger budget", async () => {
    const rates = proxyRates(limits);
    rates.settle('srv', 200);
    rates.admit('srv', 'a', true);
    rates.settle('srv', 200);
    expect(refusal(() => rates.admit('srv', 'b', true)).message).toMatch(/for this server/);
    const other = proxyRates(limits);
    other.settle('srv', 401);
    other.admit('srv', 'a', true); // with a credential, the stranger budget is not consulted
    expect(refusal(() => other.admit('srv', 'b', false)).message).toMatch(/without a key/);
  });

  it("counts the note server's own key header as a credential (strangers' 401s never block a keyed client)", () => {
    // As Hono's request reads them: by name, from the request's Headers.
    const has = (names: string[]) => {
      const h = new Headers(names.map((n): [string, string] => [n, 'x']));
      return { header: (n: string) => h.get(n) ?? undefined };
    };
    const hot = (names: string[]) => ({ header: (n: string) => (names.includes(n) ? 'x' : undefined) });
    expect(credentialed(hot(['x-service-key']))).toBe(true);
    expect(credentialed(hot(['cookie']))).toBe(false);
    expect(credentialed(has(['x-service-key']))).toBe(true);
    expect(credentialed(has(['authorization']))).toBe(true);
    expect(credentialed(has(['x-api-key']))).toBe(true);
    expect(credentialed(has(['cookie', 'x-request-id']))).toBe(false);
  });

  it('a window that ended starts afresh; Retry-After is what is left of it', () => {
    let now = 1_000_000;
    const rates = proxyRates({ ...limits, proxyPerClient: 1, proxyWindowMs: 100 }, () => now);
    rates.admit('srv', 'a', true);
    now += 40;
    expect(refusal(() => rates.admit('srv', 'a', true)).retryAfter).toBe(1); // 60 ms left, in whole seconds
    now += 60; // the window (from the first hit) ended
    rates.admit('srv', 'a', true);
    expect(() => rates.admit('srv', 'a', true)).toThrow();
  });

  it('keeps the rules of rate-limiter-flexible: a window runs from its first hit, a refused hit still counts', () => {
    let now = 0;
    const w = new FixedWindows(2, 1_000, () => now);
    expect([w.hit('k').count, w.hit('k').count, w.hit('k').count]).toEqual([1, 2, 3]);
    expect(w.current('k')).toEqual({ count: 3, endsAt: 1_000 });
    now = 999;
    expect(w.hit('k')).toEqual({ count: 4, endsAt: 1_000 });
    now = 1_000;
    expect(w.current('k')).toBeUndefined();
    expect(w.hit('k')).toEqual({ count: 1, endsAt: 2_000 });
  });

  it('forgets ended windows: the map holds the keys of at most two windows', () => {
    let now = 0;
    const w = new FixedWindows(5, 100, () => now);
    for (let i = 0; i < 1000; i++) w.hit(`a${i}`);
    now = 150;
    w.hit('b'); // a hit after a window length sweeps what ended
    expect(w.size()).toBe(1);
    for (let t = 150; t < 5_000; t += 10) {
      now = t;
      w.hit(`c${t}`);
    }
    expect(w.size()).toBeLessThanOrEqual(21);
  });
});
