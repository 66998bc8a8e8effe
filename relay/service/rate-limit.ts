/**
 * Fixed-window counters in this process's memory, for the proxied routes: cheap enough to run
 * on every request (a Redis round trip per request would cost more than the check is worth),
 * and per instance, which the docs say. Windows that ended are swept as they are met and on a
 * timer, so the map holds only the addresses seen in the current window.
 */
export function windowCounter(windowMs: number, now: () => number) {
  const counts = new Map<string, { count: number; resetAt: number }>();
  let nextSweep = now() + windowMs;
  return {
    /** The count of `key` in its current window (no hit), and the ms until that window ends. */
    peek(key: string): { count: number; resetInMs: number } {
      const t = now();
      const c = counts.get(key);
      return c && c.resetAt > t
        ? { count: c.count, resetInMs: c.resetAt - t }
        : { count: 0, resetInMs: windowMs };
    },
    /** Counts one hit on `key`; the count after it and the ms until its window ends. */
    hit(key: string): { count: number; resetInMs: number } {
      const t = now();
      if (t >= nextSweep) {
        for (const [k, c] of counts) if (c.resetAt <= t) counts.delete(k);
        nextSweep = t + windowMs;
      }
      let c = counts.get(key);
      if (!c || c.resetAt <= t) {
        c = { count: 0, resetAt: t + windowMs };
        counts.set(key, c);
      }
      c.count += 1;
      return { count: c.count, resetInMs: c.resetAt - t };
    },
  };
}
