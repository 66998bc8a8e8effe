import type { Logger } from '../../core/ports.ts';
import type { RelayAnswer, RelayItem } from '../protocol/messages.ts';
import { linkSignals } from '../protocol/signals.ts';
import { within } from './backoff.ts';
import { executeHttp, executePair } from './execute.ts';

/**
 * Runs pulled items concurrently and hands each answer to `onAnswer`. An item whose deadline
 * has passed is never started; one still running at its deadline is given up (its Request's
 * signal aborts), so a hung handler cannot hold a slot for good.
 */
export function createExecutor(opts: {
  handle: (req: Request) => Promise<Response>;
  redeemPairCode: (code: string) => Promise<{ apiKey: string } | null>;
  origin: string;
  maxBodyBytes: () => number;
  onAnswer: (answer: RelayAnswer, expiresAt: number) => void;
  logger: Logger;
}) {
  const inflight = new Set<Promise<void>>();
  let handled = 0;

  async function execute(item: RelayItem, expiresAt: number) {
    if (item.kind === 'pair') return executePair(item, opts);
    const deadline = linkSignals([], Math.max(1, expiresAt - Date.now()));
    return executeHttp(item, { ...opts, maxBodyBytes: opts.maxBodyBytes(), signal: deadline.signal }).finally(
      deadline.dispose,
    );
  }

  return {
    /** Starts `item`; `relayNow` is the relay's clock when it was pulled (cancels clock skew). */
    run(item: RelayItem, relayNow: number) {
      const expiresAt = Date.now() + (item.deadline - relayNow);
      if (expiresAt <= Date.now()) return; // its client was already told 504: never run it late
      const p: Promise<void> = execute(item, expiresAt)
        .then((answer) => {
          if (!answer) return;
          handled += 1;
          opts.onAnswer(answer, expiresAt);
        })
        .catch((err) => opts.logger.error('relayed item failed', { error: String(err) }))
        .finally(() => inflight.delete(p));
      inflight.add(p);
    },
    /** Items running now. */
    size: () => inflight.size,
    /** Items answered so far. */
    handled: () => handled,
    /** Resolves when fewer than `max` items run. */
    async below(max: number) {
      while (inflight.size >= max) await Promise.race(inflight);
    },
    /** Resolves once nothing runs, or after `timeoutMs`. */
    async settle(timeoutMs: number) {
      await within(Promise.allSettled([...inflight]), timeoutMs);
    },
  };
}
