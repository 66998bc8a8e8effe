import type { Redis } from 'ioredis';
import type { Logger } from '../../core/ports.ts';
import { retryLater } from '../service/errors.ts';
import type { QueuedRequest, RelayQueue } from './ports.ts';
import { SCRIPTS, type ScriptName } from './redis-scripts.ts';
import { GONE, redisWakeups } from './redis-wakeups.ts';

/** Options of `redisRelayQueue`. */
export interface RedisRelayQueueOptions {
  /** A ready ioredis client; the caller owns it (the queue never quits it). */
  client: Redis;
  /** Prepended to every key and channel, e.g. `quire:relay:`. */
  prefix: string;
  /** Re-check interval covering wake-ups lost while the subscriber reconnects (default 1000 ms). */
  pollMs?: number;
  logger?: Logger;
}

/**
 * The relay queue on Redis, shared by any number of relay instances.
 *
 * Layout (P = prefix; `{sid}` is a hash tag, so one server's keys share a cluster slot):
 * `P{sid}:owner` pinned secret hash (no TTL) · `P{sid}:seen` presence (PX) · `P{sid}:q` list of
 * request ids · `P{sid}:req:<id>` payload (PX = deadline) · `P{sid}:wait:<id>` answer binding
 * holding the waiting instance's channel (PX = deadline) · `P{sid}:resp:<id>` answer ·
 * `P{sid}:pair` the server's current code hash · `Ppair:<hash>` → serverId (PX) · `Prl:<key>`
 * rate-limit counters. Channels: `P{sid}:wake` (a request was queued), `Pinstance:<uuid>`
 * (an answer for a request that entered through that instance).
 *
 * Why pub/sub plus plain pops rather than BLPOP/BLMOVE: a blocking pop ties up one Redis
 * connection per waiting pull, and a relay serving many servers would need a pool as large as
 * its pulls. Here each instance keeps one subscriber connection; a pull subscribes to its
 * server's wake channel (refcounted, kept a while after the last pull), pops with a Lua script,
 * and sleeps until a wake-up or `pollMs`, which also covers messages lost during a reconnect.
 * Answers go to a key plus a wake-up on the one instance holding the client, so no instance
 * sees traffic meant for another. Not BLMOVE's reliable-queue pattern either: that redelivers
 * after a crash, and a proxied POST must never run twice; a request lost with a crashing
 * instance ends as a 504 for its client instead.
 */
export function redisRelayQueue(opts: RedisRelayQueueOptions): RelayQueue {
  const { client, prefix: P, logger } = opts;
  const pollMs = opts.pollMs ?? 1000;
  for (const [name, [lua, numberOfKeys]] of Object.entries(SCRIPTS))
    client.defineCommand(name, { lua, numberOfKeys });
  const run = (name: ScriptName, keys: string[], args: (string | number)[]) =>
    guard(
      (client as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[name]!(
        ...keys,
        ...args,
      ),
    );

  const k = (sid: string, rest: string) => `${P}{${sid}}:${rest}`;
  /** Pops up to `max` requests (TAKE); null when none and the server is offline. */
  const pop = (sid: string, max: number, maxBytes: number) =>
    run('quireRelayTake', [k(sid, 'q'), k(sid, 'seen')], [max, maxBytes, k(sid, 'req:')]) as Promise<
      string[] | null
    >;
  const answerChannel = `${P}instance:${crypto.randomUUID()}`;
  const closing = new AbortController();
  const wake = redisWakeups(client, answerChannel, logger);

  const guard = storeGuard(logger);

  return {
    backend: 'redis',
    ...redisOwnersAndCodes(client, P, run, guard),
    async markOnline(sid, ttlMs) {
      await guard(client.set(k(sid, 'seen'), '1', 'PX', Math.max(1, Math.ceil(ttlMs))));
    },
    async refreshOnline(sid, ttlMs) {
      return (
        (await guard(client.set(k(sid, 'seen'), '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'XX'))) === 'OK'
      );
    },
    async markOffline(sid) {
      await guard(client.del(k(sid, 'seen')));
      // Every instance ends the pulls of this server that wait there (see redisWakeups).
      await guard(client.publish(k(sid, 'wake'), GONE));
    },
    async isOnline(sid) {
      return (await guard(client.exists(k(sid, 'seen')))) === 1;
    },
    async enqueue(sid, req, maxLength) {
      const ttl = Math.max(1, Math.ceil(req.deadline - Date.now()));
      const keys = [
        k(sid, 'q'),
        k(sid, `req:${req.requestId}`),
        k(sid, `wait:${req.requestId}`),
        k(sid, 'seen'),
      ];
      const args = [req.requestId, `${req.deadline}|${req.payload}`, ttl, maxLength, answerChannel];
      args.push(k(sid, 'req:'), ttl + 60_000, k(sid, 'wake'));
      return (await run('quireRelayEnqueue', keys, args)) === 1;
    },
    async take(sid, { max, maxBytes, waitMs, signal }) {
      const until = Date.now() + waitMs;
      const channel = k(sid, 'wake');
      const l = waitMs > 0 ? wake.listen(channel) : null;
      try {
        if (l) await l.ready(Math.min(pollMs, waitMs));
        for (;;) {
          const left = until - Date.now();
          const cancel = new AbortController();
          // Listen before popping, so a request queued in between still wakes this pull.
          const woke = l ? wake.pulls.wait(channel, Math.min(left, pollMs), signal, cancel.signal) : null;
          let flat: string[] | null;
          try {
            flat = await pop(sid, max, maxBytes);
          } catch (err) {
            cancel.abort();
            throw err;
          }
          const live = parse(flat ?? []);
          if (live.length || flat === null || left <= 0 || closing.signal.aborted || signal?.aborted) {
            cancel.abort();
            return live;
          }
          await woke;
        }
      } finally {
        l?.release();
      }
    },
    async evict(sid) {
      const out: QueuedRequest[] = [];
      for (;;) {
        const flat = (await pop(sid, 100, Number.MAX_SAFE_INTEGER)) ?? [];
        out.push(...parse(flat));
        if (flat.length < 200) return out;
      }
    },
    async answer(sid, requestId, payload) {
      const keys = [k(sid, `wait:${requestId}`), k(sid, `resp:${requestId}`)];
      return (await run('quireRelayAnswer', keys, [payload, requestId])) === 1;
    },
    async awaitAnswer(sid, requestId, waitMs, signal) {
      const until = Date.now() + waitMs;
      await wake.answersReady(Math.min(pollMs, waitMs));
      for (;;) {
        const left = until - Date.now();
        const cancel = new AbortController();
        // Registered before the read: close() and a wake-up both reach it (close wakes all).
        const woke = wake.answers.wait(requestId, Math.min(left, pollMs), signal, cancel.signal);
        const v = await guard(client.getdel(k(sid, `resp:${requestId}`))).catch((e) => {
          cancel.abort();
          throw e;
        });
        if (v !== null || left <= 0 || closing.signal.aborted || signal?.aborted) {
          cancel.abort();
          return v;
        }
        await woke;
      }
    },
    async cancel(sid, requestId) {
      await guard(
        client.del(k(sid, `req:${requestId}`), k(sid, `wait:${requestId}`), k(sid, `resp:${requestId}`)),
      );
    },
    async ping() {
      if (client.status !== 'ready') return false;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), 1000)));
      const pong = await Promise.race([client.ping().catch(() => null), late]);
      clearTimeout(timer);
      return pong === 'PONG';
    },
    async close() {
      closing.abort();
      wake.close();
    },
  };
}

type Guard = <T>(p: Promise<T>) => Promise<T>;
type Run = (name: ScriptName, keys: string[], args: (string | number)[]) => Promise<unknown>;
type KeyedPart = Pick<
  RelayQueue,
  'claim' | 'setOwner' | 'owner' | 'setPairCode' | 'findPairCode' | 'spendPairCode' | 'hit' | 'hits'
>;

/** Pinned owners, pairing-code hashes and rate-limit counters: plain keys, no waiting. */
function redisOwnersAndCodes(client: Redis, P: string, run: Run, guard: Guard): KeyedPart {
  const k = (sid: string, rest: string) => `${P}{${sid}}:${rest}`;
  return {
    async claim(sid, secretHash) {
      return (await run('quireRelayClaim', [k(sid, 'owner')], [secretHash])) as
        | 'created'
        | 'match'
        | 'mismatch';
    },
    async setOwner(sid, secretHash) {
      await guard(client.set(k(sid, 'owner'), secretHash));
    },
    owner: (sid) => guard(client.get(k(sid, 'owner'))),
    async setPairCode(sid, codeHash, ttlMs) {
      const args = [sid, codeHash ?? '', Math.max(1, Math.ceil(ttlMs)), `${P}pair:`];
      return (await run('quireRelaySetPair', [k(sid, 'pair')], args)) === 1;
    },
    findPairCode: (codeHash) => guard(client.get(`${P}pair:${codeHash}`)),
    async spendPairCode(codeHash, sid) {
      const keys = [`${P}pair:${codeHash}`, k(sid, 'pair')];
      return (await run('quireRelaySpendPair', keys, [sid, codeHash])) === 1;
    },
    async hit(key, windowMs) {
      return Number(await run('quireRelayHit', [`${P}rl:${key}`], [Math.max(1, Math.ceil(windowMs))]));
    },
    async hits(key) {
      const res = await guard(client.multi().get(`${P}rl:${key}`).pttl(`${P}rl:${key}`).exec());
      const count = Number(res?.[0]?.[1] ?? 0);
      const ttl = Number(res?.[1]?.[1] ?? -2);
      // PTTL 0: under a millisecond left, but the key (and a hit on it) still counts in this window.
      return count > 0 && ttl >= 0 ? { count, resetInMs: Math.max(1, ttl) } : { count: 0, resetInMs: 0 };
    },
  };
}

/** TAKE's flat [id, deadline|payload, ...] as requests, those past their deadline dropped. */
function parse(flat: string[]): QueuedRequest[] {
  const out: QueuedRequest[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const v = flat[i + 1]!;
    const bar = v.indexOf('|');
    out.push({ requestId: flat[i]!, deadline: Number(v.slice(0, bar)), payload: v.slice(bar + 1) });
  }
  return out.filter((r) => r.deadline > Date.now());
}

/** Turns a store error into the relay's 503 `NOT_READY`, warning at most once per 5 s. */
function storeGuard(logger: Logger | undefined): Guard {
  let lastWarn = 0;
  return async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (err) {
      // One line per 5 s at most: during an outage every request fails the same way.
      if (Date.now() - lastWarn > 5_000) {
        lastWarn = Date.now();
        logger?.warn('relay queue store error', { error: err instanceof Error ? err.message : String(err) });
      }
      throw retryLater('NOT_READY', "The relay's queue store is unreachable; retry shortly.", 2);
    }
  };
}
