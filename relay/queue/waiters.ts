/** Keyed wake-ups for long polls: `wait` resolves on `wake(key)`, on time-out or on abort. */
export interface Waiters {
  /** Resolves (never rejects) when `key` is woken, after `ms`, or when any of `signals` aborts. */
  wait(key: string, ms: number, ...signals: (AbortSignal | undefined)[]): Promise<void>;
  /** Wakes every current waiter of `key`. */
  wake(key: string): void;
  /** Wakes the longest-waiting waiter of `key` only (one new item: no thundering herd). */
  wakeOne(key: string): void;
  /** Wakes every waiter of every key. */
  wakeAll(): void;
}

/** An in-process set of waiters. */
export function createWaiters(): Waiters {
  const byKey = new Map<string, Set<() => void>>();
  return {
    wait(key, ms, ...maybe) {
      const signals = maybe.filter((s): s is AbortSignal => s !== undefined);
      return new Promise<void>((resolve) => {
        if (ms <= 0 || signals.some((s) => s.aborted)) return resolve();
        let set = byKey.get(key);
        if (!set) {
          set = new Set();
          byKey.set(key, set);
        }
        const done = () => {
          clearTimeout(timer);
          for (const s of signals) s.removeEventListener('abort', done);
          set.delete(done);
          if (set.size === 0 && byKey.get(key) === set) byKey.delete(key);
          resolve();
        };
        const timer = setTimeout(done, ms);
        for (const s of signals) s.addEventListener('abort', done, { once: true });
        set.add(done);
      });
    },
    wake(key) {
      const set = byKey.get(key);
      if (set) for (const done of [...set]) done();
    },
    wakeOne(key) {
      const first = byKey.get(key)?.values().next();
      if (first && !first.done) first.value();
    },
    wakeAll() {
      for (const set of [...byKey.values()]) for (const done of [...set]) done();
    },
  };
}
