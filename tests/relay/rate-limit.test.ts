import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../core/errors.ts';
import { credentialed } from '../../relay/http/routes/proxy.ts';
import { proxyRates } from '../../relay/service/rate-limit.ts';

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isDomainError(err)) throw new Error(`expected a refusal, got ${String(err)}`);
  return { code: err.code, retryAfter: err.retryAfter, message: err.message };
};

describe('the proxied routes rates (rate-limiter-flexible, in memory)', () => {
  const limits = { proxyPerClient: 3, proxyPerServer: 2, proxyUnauthPerServer: 1, proxyWindowMs: 60_000 };

  it('counts each request per address; the fourth is RATE_LIMITED with the window left as Retry-After', async () => {
    const rates = proxyRates(limits);
    for (let i = 0; i < 3; i++) await rates.admit('srv', 'a', true);
    const r = await refusal(rates.admit('srv', 'a', true));
    expect(r.code).toBe('RATE_LIMITED');
    expect(r.message).toMatch(/from this address/);
    expect(r.retryAfter).toBeGreaterThanOrEqual(59);
    expect(r.retryAfter).toBeLessThanOrEqual(60);
    // Another address has its own count.
    await rates.admit('srv', 'b', true);
  });

  it("charges the server's budgets only when settled: answers to its own, 401/403 to the stranger budget", async () => {
    const rates = proxyRates(limits);
    rates.settle('srv', 200);
    await rates.admit('srv', 'a', true);
    rates.settle('srv', 200);
    expect((await refusal(rates.admit('srv', 'b', true))).message).toMatch(/for this server/);
    const other = proxyRates(limits);
    other.settle('srv', 401);
    await other.admit('srv', 'a', true); // with a credential, the stranger budget is not consulted
    expect((await refusal(other.admit('srv', 'b', false))).message).toMatch(/without a key/);
  });

  it("counts the note server's own key header as a credential (strangers' 401s never block a keyed client)", () => {
    const has = (names: string[]) => (n: string) => names.includes(n);
    expect(credentialed(has(['x-service-key']))).toBe(true);
    expect(credentialed(has(['authorization']))).toBe(true);
    expect(credentialed(has(['x-api-key']))).toBe(true);
    expect(credentialed(has(['cookie', 'x-request-id']))).toBe(false);
  });

  it('a window that ended starts afresh', async () => {
    const rates = proxyRates({ ...limits, proxyPerClient: 1, proxyWindowMs: 100 });
    await rates.admit('srv', 'a', true);
    await refusal(rates.admit('srv', 'a', true));
    await new Promise((r) => setTimeout(r, 150));
    await rates.admit('srv', 'a', true);
  });
});
