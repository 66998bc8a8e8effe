/**
 * What a start needs beside the load (loading.ts): the index over a snapshot's search lists, and
 * the quiet spell that background work waits for once the first answers are out.
 *
 * A start never answers from the snapshot alone: the load walks the vault and checks every note's
 * size and mtime against it before the index is ready (docs/reference/note-index.md, "The warm start").
 */

import type { LazySearch, SerializedSearch } from '../search/lexical/index.ts';
import type { NoteContext } from './context.ts';
import { createNoteIndex, type NoteIndex } from './note-index.ts';
import { sliced } from './slices.ts';

/**
 * The note index over a cache's search: a snapshot's lazy search table is taken in slices
 * (`restoreSteps`), with a turn of the event loop before and after (10,000 notes were one turn of
 * 10 to 25 ms); a JSON search (the Worker's cache) at once.
 */
export async function indexFromCache(
  search: string | SerializedSearch | LazySearch | null | undefined,
  /** How to yield to the event loop (the context's `pause`). */
  pause: () => Promise<void>,
): Promise<NoteIndex> {
  if (!search || typeof search !== 'object' || !('lazy' in search)) return createNoteIndex(search);
  const index = createNoteIndex();
  await pause();
  for await (const _ of sliced(index.search.restoreSteps(search), 8, pause));
  await pause();
  return index;
}

/** How long the host must have answered no request before background work starts, in ms. */
const QUIET_MS = 50;

/**
 * Work a cold load leaves for later (the link graph's key map) and the lifecycle's timed saves of
 * the index cache (`notes.settle()`) wait for a quiet spell this long at most: the first list of a
 * large vault is built for seconds after ready (about 8 s at 100,000 notes), and that work on the
 * same thread made it later and the process larger.
 */
export const SETTLE_WAIT_MS = 10_000;

/** A quiet spell, SETTLE_WAIT_MS at most: what a cold load's link map and the timed saves wait for. */
export const settled = (ctx: NoteContext): Promise<void> =>
  quietMoment(ctx, Math.max(ctx.busyWaitMs, SETTLE_WAIT_MS));

/**
 * Resolves once the host answered no request (`busy`) for QUIET_MS, or after `maxMs` (default
 * `busyWaitMs`): background work starts when the first answers after a start are out (checked
 * every 10 ms). A single idle moment was not enough: a client that polls until the index is ready
 * asks for its first list a few ms after it, and found the background work started already.
 */
export async function quietMoment(ctx: NoteContext, maxMs = ctx.busyWaitMs): Promise<void> {
  const { busy } = ctx;
  if (!busy) return;
  const until = performance.now() + maxMs;
  let quietSince = Number.POSITIVE_INFINITY;
  while (performance.now() < until) {
    const now = performance.now();
    if (busy()) quietSince = Number.POSITIVE_INFINITY;
    else if (quietSince === Number.POSITIVE_INFINITY) quietSince = now;
    if (now - quietSince >= QUIET_MS) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
