/**
 * micromark-util-edit-map 1.0.0's `consume` copies the whole event list on every call, and
 * micromark's document tokenizer calls it each time a nested container closes: an outline of
 * 8,000 items with one sub-item each took 28 s to parse (quadratic). This `consume` gives the
 * same events but leaves the untouched prefix in place, so each call costs only the edited tail.
 * Installed once, when the markdown module loads (micromark shares this one EditMap class).
 */
import { EditMap } from 'micromark-util-edit-map';

type Change = [number, number, unknown[]];
interface EditMapLike {
  map: Change[];
  index: Map<number, Change>;
}

/** The upstream implementation, kept for the equivalence test. */
export const originalConsume = EditMap.prototype.consume as (this: unknown, events: unknown[]) => void;

/** Applies the recorded edits to `events` in place, copying only what follows the first edit. */
export function linearConsume(this: EditMapLike, events: unknown[]): void {
  this.map.sort((a, b) => a[0] - b[0]);
  if (this.map.length === 0) return;
  const tails: unknown[][] = [];
  for (let i = this.map.length - 1; i >= 0; i--) {
    const [at, remove, add] = this.map[i]!;
    tails.push(events.slice(at + remove), add);
    events.length = at;
  }
  // `events` now holds the prefix before the first edit; append the rest in order.
  for (let i = tails.length - 1; i >= 0; i--) for (const e of tails[i]!) events.push(e);
  this.map.length = 0;
  this.index.clear();
}

(EditMap.prototype as unknown as { consume: typeof linearConsume }).consume = linearConsume;
