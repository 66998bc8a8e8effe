/** Lets timers and I/O run before the caller goes on (a macrotask, not a microtask). */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Steps through `steps`, yielding to the event loop whenever a slice of the caller's work ran for
 * `sliceMs`: long loops of the start and the saves (serializing, checking the vault) never hold
 * the event loop for longer than about one slice. `pause` is how to yield (a start's load may be
 * held while an early answer is written: context.ts, `pause`).
 */
export async function* sliced<T>(
  steps: Iterable<T>,
  sliceMs = 8,
  pause: () => Promise<void> = yieldToEventLoop,
): AsyncGenerator<T> {
  let slice = performance.now();
  for (const step of steps) {
    yield step;
    if (performance.now() - slice > sliceMs) {
      await pause();
      slice = performance.now();
    }
  }
}
