/**
 * The one way tests wait: poll a condition until it holds, with a deadline. Never a fixed sleep.
 */

/** Polls `check` until it returns a truthy value and returns it; fails after `ms`, naming `what`. */
export async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  ms = 20_000,
  every = 10,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
