/** Reconnect timing of the relay connector. */
export interface BackoffOptions {
  /** First delay in ms (default 200). */
  minMs?: number;
  /** Longest delay in ms (default 15 000). */
  maxMs?: number;
}

/**
 * Exponential backoff with "equal jitter": a delay between half and all of
 * min(maxMs, minMs * 2^attempt), so servers cut off together do not come back in lockstep.
 */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const min = opts.minMs ?? 200;
  const max = opts.maxMs ?? 15_000;
  const cap = Math.min(max, min * 2 ** Math.min(attempt, 30));
  return cap / 2 + (random() * cap) / 2;
}

/** Resolves after `ms`, or at once when `signal` aborts. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Waits for `work` for at most `ms`; the timer is cleared as soon as `work` settles, so a
 * finished wait leaves nothing that would hold the process open (SIGTERM exits at once).
 */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  const ctl = new AbortController();
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    sleep(ms, ctl.signal),
  ]);
  ctl.abort();
}
