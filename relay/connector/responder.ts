import type { Logger } from '../../core/ports.ts';
import type { RelayAnswer } from '../protocol/messages.ts';
import { RelayCallError } from './relay-client.ts';

interface Entry {
  answer: RelayAnswer;
  size: number;
  /** Local epoch ms after which the relay would refuse the answer anyway. */
  expiresAt: number;
}

/**
 * Sends answers as they complete, several per respond call when they pile up (those finishing
 * in one turn of the event loop always go together): up to `parallel` (2) calls at once, each at most `budget()` bytes (the first answer always fits) and
 * 100 answers. A call that fails on the network or with 5xx is retried while its answers can
 * still be accepted; other failures drop the batch (logged).
 */
export function createResponder(opts: {
  send: (batch: RelayAnswer[]) => Promise<{ accepted: number; rejected: string[] }>;
  budget: () => number;
  parallel?: number;
  retryMs?: number;
  logger: Logger;
}) {
  const parallel = opts.parallel ?? 2;
  const pending: Entry[] = [];
  let active = 0;
  let scheduled = false;
  let retrying = 0;
  let idle: (() => void)[] = [];

  const settleIdle = () => {
    if (active === 0 && retrying === 0 && pending.length === 0 && !scheduled)
      for (const r of idle.splice(0)) r();
  };

  function pump() {
    while (active < parallel && pending.length) {
      const batch: Entry[] = [];
      let bytes = 0;
      while (pending.length && batch.length < 100) {
        const e = pending[0]!;
        if (batch.length && bytes + e.size > opts.budget()) break;
        batch.push(pending.shift()!);
        bytes += e.size;
      }
      active += 1;
      opts
        .send(batch.map((e) => e.answer))
        .then(
          (r) => {
            if (r.rejected.length)
              opts.logger.debug('relay refused late answers', { count: r.rejected.length });
          },
          (err: unknown) => {
            const retry = err instanceof RelayCallError && err.kind === 'unavailable';
            const alive = retry ? batch.filter((e) => e.expiresAt > Date.now()) : [];
            opts.logger.warn('relay respond failed', {
              error: String(err),
              answers: batch.length,
              retrying: alive.length,
            });
            if (!alive.length) return;
            retrying += 1;
            setTimeout(() => {
              retrying -= 1;
              pending.unshift(...alive);
              pump();
              settleIdle();
            }, opts.retryMs ?? 250);
          },
        )
        .finally(() => {
          active -= 1;
          pump();
          settleIdle();
        });
    }
  }

  return {
    /** Queues one answer for sending. */
    push(answer: RelayAnswer, expiresAt: number) {
      const size =
        answer.kind === 'http'
          ? (answer.body?.length ?? 0) + 256 + JSON.stringify(answer.headers).length
          : 512;
      pending.push({ answer, size, expiresAt });
      // Answers finishing in the same turn of the event loop share one respond call.
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          pump();
          settleIdle();
        });
      }
    },
    /** Resolves once everything queued was sent or given up, or after `timeoutMs`. */
    drain(timeoutMs: number): Promise<void> {
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
        settleIdle();
      });
    },
    /** Answers waiting to be sent. */
    size: () => pending.length + active,
    /** Forgets everything queued (after stop's time-out). */
    clear() {
      pending.length = 0;
      idle = [];
    },
  };
}
