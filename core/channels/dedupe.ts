/** Remembers the last deliveries seen, so a provider's retry of the same update is handled once. */

/** A bounded set of keys: the oldest is forgotten when a new one would exceed `capacity`. */
export function createSeenSet(capacity: number) {
  const seen = new Set<string>();
  return {
    /** True the first time `key` is offered (and remembers it); false while it is remembered. */
    firstTime(key: string): boolean {
      if (seen.has(key)) return false;
      seen.add(key);
      if (seen.size > capacity) {
        const oldest = seen.values().next().value;
        if (oldest !== undefined) seen.delete(oldest);
      }
      return true;
    },
    /** Forgets `key` (a delivery that could not be processed may then be retried). */
    forget(key: string): void {
      seen.delete(key);
    },
    get size(): number {
      return seen.size;
    },
  };
}

export type SeenSet = ReturnType<typeof createSeenSet>;
