/** Locks by path, case-insensitive: writes to one path happen one at a time. */
export class PathLocks {
  private readonly locks = new Map<string, Promise<unknown>>();

  /** Runs `fn` holding the locks of `paths` (taken in sorted order, so two writers never deadlock). */
  async run<T>(paths: string[], fn: () => Promise<T>): Promise<T> {
    const keys = [...new Set(paths.map((p) => p.toLowerCase()))].sort();
    const waits = keys.map((k) => this.locks.get(k) ?? Promise.resolve());
    const run = Promise.all(waits.map((w) => w.catch(() => {}))).then(fn);
    const settled = run.catch(() => {});
    for (const k of keys) this.locks.set(k, settled);
    try {
      return await run;
    } finally {
      for (const k of keys) if (this.locks.get(k) === settled) this.locks.delete(k);
    }
  }
}
