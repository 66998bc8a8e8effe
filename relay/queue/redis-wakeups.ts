import type { Redis } from 'ioredis';
import type { Logger } from '../../core/ports.ts';
import { createWaiters } from './waiters.ts';

/** The message on a server's wake channel that ends every waiting pull (it unregistered). */
export const GONE = 'gone';

/**
 * One subscriber connection per relay instance, fanning Redis pub/sub messages out to local
 * waiters: `answerChannel` (this instance's own) wakes `answers` by requestId; any other
 * channel wakes `pulls` by channel name. Server wake channels are subscribed while pulls
 * listen (refcounted) and kept 30 s after the last one, so back-to-back pulls do not churn.
 * ioredis re-subscribes after a reconnect; messages lost meanwhile are covered by the
 * callers' periodic re-check.
 */
export function redisWakeups(client: Redis, answerChannel: string, logger?: Logger) {
  const pulls = createWaiters();
  const answers = createWaiters();
  // Connected now (not lazily on the first command, even when `client` is lazy), and every
  // SUBSCRIBE is sent after the one before it has been answered: subscriptions queued together on
  // a connection still being set up were seen to come back miscounted (a count of 1 for the second
  // channel), after which that channel's messages never reached 'message' and a pull slept to its
  // poll interval (the RelayQueue contract's lost wake-up).
  const sub = client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, lazyConnect: false });
  sub.on('error', (err: Error) => logger?.debug('relay subscriber error', { error: err.message }));
  sub.on('message', (channel: string, message: string) => {
    if (channel === answerChannel) answers.wake(message);
    else if (message === GONE)
      pulls.wake(channel); // the server left: end all its pulls
    else pulls.wakeOne(channel); // one message per queued request
  });
  const subscribed = sub.subscribe(answerChannel).catch(() => undefined);
  let lastSubscribe: Promise<unknown> = subscribed;
  const channels = new Map<string, { count: number; ready: Promise<unknown>; idle?: NodeJS.Timeout }>();
  const settled = new WeakSet<Promise<unknown>>();
  let closed = false;

  /** Waits for `p` at most `ms`; free once `p` has settled (no timer per request). */
  async function within(p: Promise<unknown>, ms: number) {
    if (settled.has(p)) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([p.then(() => settled.add(p)), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  return {
    pulls,
    answers,
    /** Resolves once this instance's answer channel is subscribed, or after `ms`. */
    answersReady: (ms: number) => within(subscribed, ms),
    /** Subscribes to `channel` for a pull; `ready(ms)` waits for the subscription (at most ms). */
    listen(channel: string) {
      let entry = channels.get(channel);
      if (!entry) {
        lastSubscribe = lastSubscribe.then(() => sub.subscribe(channel)).catch(() => undefined);
        entry = { count: 0, ready: lastSubscribe };
        channels.set(channel, entry);
      }
      clearTimeout(entry.idle);
      entry.count += 1;
      const ready = entry.ready;
      return {
        ready: (ms: number) => within(ready, ms),
        release() {
          entry.count -= 1;
          if (entry.count > 0 || closed) return;
          entry.idle = setTimeout(() => {
            channels.delete(channel);
            sub.unsubscribe(channel).catch(() => undefined);
          }, 30_000);
          entry.idle.unref();
        },
      };
    },
    /** Wakes every waiter and drops the subscriber connection. */
    close() {
      closed = true;
      pulls.wakeAll();
      answers.wakeAll();
      for (const e of channels.values()) clearTimeout(e.idle);
      channels.clear();
      sub.disconnect();
    },
  };
}
