import { constantTimeEqual } from '../../core/crypto.ts';
import type { QueuedRequest, RelayQueue } from './ports.ts';
import { createWaiters } from './waiters.ts';

interface Live {
  serverId: string;
  deadline: number;
  answer?: string;
}

type Now = () => number;
type PairingPart = Pick<RelayQueue, 'setPairCode' | 'findPairCode' | 'spendPairCode'>;
type CounterPart = Pick<RelayQueue, 'hit' | 'hits'>;
type OwnerPart = Pick<RelayQueue, 'claim' | 'setOwner' | 'owner'>;

/**
 * The relay queue in this process's memory: the embedded default. Single instance only, and
 * everything (pins included) is gone when the process ends. `now` is injectable for tests.
 *
 * Built from four parts that share no state (owners, pairing codes, rate-limit counters, and the
 * requests with their presence), each with its own sweep, so each part reads on its own.
 */
export function memoryRelayQueue(opts: { now?: Now } = {}): RelayQueue {
  const now = opts.now ?? Date.now;
  const owners = memoryOwners();
  const pairing = memoryPairing(now);
  const counters = memoryCounters(now);
  const requests = memoryRequests(now);
  const sweeper = setInterval(() => {
    requests.sweep();
    pairing.sweep();
    counters.sweep();
  }, 10_000);
  sweeper.unref?.();
  const { sweep: _r, close: closeRequests, ...requestMethods } = requests;
  const { sweep: _p, ...pairingMethods } = pairing;
  const { sweep: _c, ...counterMethods } = counters;
  return {
    backend: 'memory',
    ...owners,
    ...requestMethods,
    ...pairingMethods,
    ...counterMethods,
    async close() {
      clearInterval(sweeper);
      await closeRequests();
    },
  };
}

/** The pinned secret hash of each server id. */
function memoryOwners(): OwnerPart {
  const owners = new Map<string, string>();
  return {
    async claim(serverId, secretHash) {
      const cur = owners.get(serverId);
      if (cur === undefined) {
        owners.set(serverId, secretHash);
        return 'created';
      }
      return constantTimeEqual(cur, secretHash) ? 'match' : 'mismatch';
    },
    async setOwner(serverId, secretHash) {
      owners.set(serverId, secretHash);
    },
    async owner(serverId) {
      return owners.get(serverId) ?? null;
    },
  };
}

/** Pairing-code hashes: at most one current code per server, each code owned by one server. */
function memoryPairing(now: Now): PairingPart & { sweep(): void } {
  const pairs = new Map<string, { serverId: string; expiresAt: number }>();
  const currentPair = new Map<string, string>();
  return {
    async setPairCode(serverId, codeHash, ttlMs) {
      const other = codeHash ? pairs.get(codeHash) : undefined;
      if (other && other.serverId !== serverId && other.expiresAt > now()) return false;
      const prev = currentPair.get(serverId);
      if (prev && pairs.get(prev)?.serverId === serverId) pairs.delete(prev);
      currentPair.delete(serverId);
      if (codeHash) {
        pairs.set(codeHash, { serverId, expiresAt: now() + ttlMs });
        currentPair.set(serverId, codeHash);
      }
      return true;
    },
    async findPairCode(codeHash) {
      const p = pairs.get(codeHash);
      return p && p.expiresAt > now() ? p.serverId : null;
    },
    async spendPairCode(codeHash, serverId) {
      const p = pairs.get(codeHash);
      if (!p || p.serverId !== serverId || p.expiresAt <= now()) return false;
      pairs.delete(codeHash);
      if (currentPair.get(serverId) === codeHash) currentPair.delete(serverId);
      return true;
    },
    sweep() {
      const t = now();
      for (const [h, p] of pairs) if (p.expiresAt <= t) pairs.delete(h);
      // A server's current code whose hash expired (or was spent) is no longer worth a slot.
      for (const [sid, h] of currentPair) if (pairs.get(h)?.serverId !== sid) currentPair.delete(sid);
    },
  };
}

/** Fixed-window rate-limit counters. */
function memoryCounters(now: Now): CounterPart & { sweep(): void } {
  const counters = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(key, windowMs) {
      const t = now();
      const c = counters.get(key);
      if (!c || c.resetAt <= t) {
        counters.set(key, { count: 1, resetAt: t + windowMs });
        return 1;
      }
      c.count += 1;
      return c.count;
    },
    async hits(key) {
      const c = counters.get(key);
      const left = c ? c.resetAt - now() : 0;
      return left > 0 && c ? { count: c.count, resetInMs: left } : { count: 0, resetInMs: 0 };
    },
    sweep() {
      const t = now();
      for (const [k, c] of counters) if (c.resetAt <= t) counters.delete(k);
    },
  };
}

type RequestPart = Omit<RelayQueue, keyof OwnerPart | keyof PairingPart | keyof CounterPart | 'backend'>;

/** Presence, the per-server request queues, and the answers waited for. */
function memoryRequests(now: Now): RequestPart & { sweep(): void } {
  const seen = new Map<string, number>();
  const queues = new Map<string, QueuedRequest[]>();
  // requestId -> binding; present from enqueue until deadline, cancel, or the answer is consumed.
  const live = new Map<string, Live>();
  const pulls = createWaiters();
  const answers = createWaiters();
  const closing = new AbortController();
  const online = (serverId: string) => (seen.get(serverId) ?? 0) > now();

  const alive = (requestId: string): Live | undefined => {
    const l = live.get(requestId);
    if (l && l.deadline <= now()) {
      live.delete(requestId);
      return undefined;
    }
    return l;
  };
  const queueOf = (serverId: string) => {
    let q = queues.get(serverId);
    if (!q) {
      q = [];
      queues.set(serverId, q);
    }
    return q;
  };
  /** Up to `max` live requests from the head of the queue, within `maxBytes` after the first. */
  const shift = (serverId: string, max: number, maxBytes: number): QueuedRequest[] => {
    const q = queues.get(serverId) ?? [];
    const out: QueuedRequest[] = [];
    let bytes = 0;
    while (q.length && out.length < max) {
      const r = q[0]!;
      if (!alive(r.requestId)) {
        q.shift();
        continue;
      }
      if (out.length && bytes + r.payload.length > maxBytes) break;
      q.shift();
      bytes += r.payload.length;
      out.push(r);
    }
    return out;
  };

  return {
    async markOnline(serverId, ttlMs) {
      seen.set(serverId, now() + ttlMs);
    },
    async refreshOnline(serverId, ttlMs) {
      if (!online(serverId)) return false;
      seen.set(serverId, now() + ttlMs);
      return true;
    },
    async markOffline(serverId) {
      seen.delete(serverId);
      pulls.wake(serverId);
    },
    async isOnline(serverId) {
      return online(serverId);
    },
    async enqueue(serverId, req, maxLength) {
      if (!online(serverId)) return false;
      const q = queueOf(serverId);
      if (q.length >= maxLength) {
        const kept = q.filter((r) => alive(r.requestId));
        q.splice(0, q.length, ...kept);
        if (q.length >= maxLength) return false;
      }
      live.set(req.requestId, { serverId, deadline: req.deadline });
      q.push(req);
      pulls.wakeOne(serverId);
      return true;
    },
    async take(serverId, { max, maxBytes, waitMs, signal }) {
      const until = now() + waitMs;
      for (;;) {
        const out = shift(serverId, max, maxBytes);
        const left = until - now();
        const stop = closing.signal.aborted || signal?.aborted === true || !online(serverId);
        if (out.length || left <= 0 || stop) return out;
        await pulls.wait(serverId, left, signal); // close() and markOffline wake it
      }
    },
    async evict(serverId) {
      const q = queues.get(serverId) ?? [];
      queues.delete(serverId);
      return q.filter((r) => alive(r.requestId) && live.get(r.requestId)?.answer === undefined);
    },
    async answer(serverId, requestId, payload) {
      const l = alive(requestId);
      if (!l || l.serverId !== serverId || l.answer !== undefined) return false;
      l.answer = payload;
      answers.wake(requestId);
      return true;
    },
    async awaitAnswer(serverId, requestId, waitMs, signal) {
      const until = now() + waitMs;
      for (;;) {
        const l = alive(requestId);
        if (!l || l.serverId !== serverId) return null;
        if (l.answer !== undefined) {
          live.delete(requestId);
          return l.answer;
        }
        const left = until - now();
        if (left <= 0 || signal?.aborted || closing.signal.aborted) return null;
        await answers.wait(requestId, left, signal);
      }
    },
    async cancel(serverId, requestId) {
      if (live.get(requestId)?.serverId === serverId) live.delete(requestId);
    },
    async ping() {
      return !closing.signal.aborted;
    },
    async close() {
      closing.abort();
      pulls.wakeAll();
      answers.wakeAll();
    },
    sweep() {
      const t = now();
      for (const [id, l] of live) if (l.deadline <= t) live.delete(id);
      for (const [sid, q] of queues) {
        const kept = q.filter((r) => alive(r.requestId) && !live.get(r.requestId)?.answer);
        if (kept.length) queues.set(sid, kept);
        else queues.delete(sid);
      }
      for (const [s, e] of seen) if (e <= t) seen.delete(s);
    },
  };
}
