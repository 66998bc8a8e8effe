import { afterEach, describe, expect } from 'vitest';
import type { QueuedRequest, RelayQueue } from '../../relay/queue/ports.ts';
import { until } from '../helpers/wait.ts';
import { pastDeadline } from '../relay/helpers.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

/** One store under test: `queue`, optionally a second instance on the same store, and cleanup. */
export interface RelayQueueFixture {
  queue: RelayQueue;
  /** Another relay instance sharing the store (absent for single-instance adapters). */
  other?: RelayQueue;
  /** True once a take on `serverId` listens for wake-ups (absent: takes listen synchronously). */
  listening?: (serverId: string) => Promise<boolean>;
  cleanup(): Promise<void>;
}

const H1 = 'a'.repeat(64);
const H2 = 'b'.repeat(64);
const req = (payload: string, ttlMs = 5_000): QueuedRequest => ({
  requestId: crypto.randomUUID(),
  deadline: Date.now() + ttlMs,
  payload,
});
const take = (q: RelayQueue, sid: string, over: Partial<Parameters<RelayQueue['take']>[1]> = {}) =>
  q.take(sid, { max: 10, maxBytes: 1 << 20, waitMs: 0, ...over });

export interface RelayQueueContractOptions {
  create: () => Promise<RelayQueueFixture>;
  skip?: DeclaredSkip[];
}

/** Titles of the cases an adapter may declare it skips. */
export const RELAY_QUEUE_CASES = {
  shared: 'shares one store between instances: queued on one, taken and answered on another',
} as const;

/** The behaviour every RelayQueue adapter shares (see relay/queue/ports.ts). */
export function runRelayQueueContract(name: string, opts: RelayQueueContractOptions) {
  const { create } = opts;
  describe(`RelayQueue contract: ${name}`, () => {
    const { test, checkSkips } = withDeclaredSkips(opts.skip);
    let fx: RelayQueueFixture;
    const open = async () => {
      fx = await create();
      return fx.queue;
    };
    afterEach(async () => {
      await fx?.cleanup();
    });

    test('setOwner replaces the session hash (the caller proved the identity key)', async () => {
      const q = await open();
      expect(await q.claim('srv-s', H1)).toBe('created');
      await q.setOwner('srv-s', H2);
      expect(await q.owner('srv-s')).toBe(H2);
      await q.setOwner('srv-new', H1);
      expect(await q.owner('srv-new')).toBe(H1);
    });

    test('pins the first secret hash for good; exactly one of racing first claims wins', async () => {
      const q = await open();
      expect(await q.owner('srv-a')).toBeNull();
      expect(await q.claim('srv-a', H1)).toBe('created');
      expect(await q.claim('srv-a', H1)).toBe('match');
      expect(await q.claim('srv-a', H2)).toBe('mismatch');
      expect(await q.owner('srv-a')).toBe(H1);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => q.claim('srv-race', String(i).repeat(64))),
      );
      expect(results.filter((r) => r === 'created')).toHaveLength(1);
      expect(results.filter((r) => r === 'mismatch')).toHaveLength(9);
    });

    test('tracks presence with a TTL and forgets it on markOffline', async () => {
      const q = await open();
      expect(await q.isOnline('srv-p')).toBe(false);
      await q.markOnline('srv-p', 400);
      expect(await q.isOnline('srv-p')).toBe(true);
      await until('presence to lapse', async () => !(await q.isOnline('srv-p')));
      await q.markOnline('srv-p', 10_000);
      await q.markOffline('srv-p');
      expect(await q.isOnline('srv-p')).toBe(false);
    });

    test('refreshes presence only while online: a late pull cannot bring back a server that left', async () => {
      const q = await open();
      expect(await q.refreshOnline('srv-o', 10_000)).toBe(false);
      expect(await q.isOnline('srv-o')).toBe(false);
      await q.markOnline('srv-o', 300);
      expect(await q.refreshOnline('srv-o', 10_000)).toBe(true);
      await q.markOffline('srv-o');
      expect(await q.refreshOnline('srv-o', 10_000)).toBe(false);
      expect(await q.isOnline('srv-o')).toBe(false);
    });

    test('queues nothing for a server that is not online', async () => {
      const q = await open();
      expect(await q.enqueue('srv-n', req('never'), 10)).toBe(false);
      await q.markOnline('srv-n', 60_000);
      await q.markOffline('srv-n');
      expect(await q.enqueue('srv-n', req('after'), 10)).toBe(false);
      await q.markOnline('srv-n', 60_000);
      expect((await take(q, 'srv-n')).map((r) => r.payload)).toEqual([]);
    });

    test('ends a waiting take at once when its server goes offline', async () => {
      const q = await open();
      await q.markOnline('srv-g', 60_000);
      const started = Date.now();
      const waiting = take(q, 'srv-g', { waitMs: 8_000 });
      await until('the take to listen', () => fx.listening?.('srv-g') ?? true);
      await q.markOffline('srv-g');
      expect(await waiting).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    test('evicts every queued request at once; none is handed out afterwards, each can still be answered', async () => {
      const q = await open();
      await q.markOnline('srv-e', 60_000);
      const reqs = ['e1', 'e2', 'e3'].map((p) => req(p));
      for (const r of reqs) expect(await q.enqueue('srv-e', r, 10)).toBe(true);
      const waiting = q.awaitAnswer('srv-e', reqs[1]!.requestId, 4_000);
      expect((await q.evict('srv-e')).map((r) => r.payload)).toEqual(['e1', 'e2', 'e3']);
      expect(await q.evict('srv-e')).toEqual([]);
      expect(await take(q, 'srv-e')).toEqual([]);
      expect(await q.answer('srv-e', reqs[1]!.requestId, 'gone')).toBe(true);
      expect(await waiting).toBe('gone');
    });

    test('hands out requests oldest first, bounded by max and maxBytes, payloads byte for byte', async () => {
      const q = await open();
      await q.markOnline('srv-f', 60_000);
      const payloads = ['{"a":1}', 'x|y|z', 'ünïcødé ✓', 'p4', 'p5'];
      for (const p of payloads) expect(await q.enqueue('srv-f', req(p), 100)).toBe(true);
      expect((await take(q, 'srv-f', { max: 2 })).map((r) => r.payload)).toEqual(payloads.slice(0, 2));
      const big = await take(q, 'srv-f', { maxBytes: 1 });
      expect(big.map((r) => r.payload)).toEqual([payloads[2]]); // the first always fits
      const rest = await take(q, 'srv-f');
      expect(rest.map((r) => r.payload)).toEqual(payloads.slice(3));
      expect(rest[0]!.deadline).toBeGreaterThan(Date.now());
      expect(await take(q, 'srv-f')).toEqual([]);
      expect(await take(q, 'srv-other')).toEqual([]);
    });

    test('wakes a waiting take when a request arrives, and ends it on abort', async () => {
      const q = await open();
      await q.markOnline('srv-w', 60_000);
      const waiting = take(q, 'srv-w', { waitMs: 8_000 });
      // Setting up the subscription is not what this case times (under a loaded machine it has
      // taken seconds): the clock starts once the take listens.
      await until('the take to listen', () => fx.listening?.('srv-w') ?? true, 15_000);
      const started = Date.now();
      await q.enqueue('srv-w', req('wake'), 10);
      expect((await waiting).map((r) => r.payload)).toEqual(['wake']);
      expect(Date.now() - started).toBeLessThan(1_500);
      const ctl = new AbortController();
      const aborted = take(q, 'srv-w', { waitMs: 4_000, signal: ctl.signal });
      ctl.abort();
      expect(await aborted).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2_500);
    }, 30_000);

    test('hands each request to exactly one of many concurrent takers', async () => {
      const q = await open();
      await q.markOnline('srv-c', 60_000);
      const takers = Array.from({ length: 4 }, () => take(q, 'srv-c', { max: 3, waitMs: 1_500 }));
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = req(`n${i}`);
        ids.push(r.requestId);
        await q.enqueue('srv-c', r, 100);
      }
      const got = (await Promise.all(takers)).flat();
      const later = await take(q, 'srv-c', { max: 100 });
      const all = [...got, ...later].map((r) => r.requestId);
      expect(all.sort()).toEqual([...ids].sort());
    });

    test('never hands out a request past its deadline or cancelled, and frees its queue slot', async () => {
      const q = await open();
      await q.markOnline('srv-d', 60_000);
      const short = req('late', 400);
      expect(await q.enqueue('srv-d', short, 2)).toBe(true);
      const cancelled = req('cancelled');
      expect(await q.enqueue('srv-d', cancelled, 2)).toBe(true);
      expect(await q.enqueue('srv-d', req('full'), 2)).toBe(false);
      await q.cancel('srv-d', cancelled.requestId);
      await pastDeadline(short.deadline);
      expect(await q.enqueue('srv-d', req('fits'), 2)).toBe(true);
      expect((await take(q, 'srv-d')).map((r) => r.payload)).toEqual(['fits']);
      expect(await q.answer('srv-d', cancelled.requestId, 'x')).toBe(false);
      expect(await q.answer('srv-d', short.requestId, 'x')).toBe(false);
    });

    test('delivers an answer once, only from the bound server, and wakes the waiter', async () => {
      const q = await open();
      await q.markOnline('srv-r', 60_000);
      const r = req('ask');
      await q.enqueue('srv-r', r, 10);
      const started = Date.now();
      const waiting = q.awaitAnswer('srv-r', r.requestId, 4_000);
      expect(await q.answer('srv-other', r.requestId, 'forged')).toBe(false);
      expect(await q.answer('srv-r', crypto.randomUUID(), 'unknown')).toBe(false);
      expect(await q.answer('srv-r', r.requestId, 'ok ✓')).toBe(true);
      expect(await q.answer('srv-r', r.requestId, 'again')).toBe(false);
      expect(await waiting).toBe('ok ✓');
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    test('gives up waiting for an answer after waitMs or on abort', async () => {
      const q = await open();
      await q.markOnline('srv-t', 60_000);
      const r = req('silent');
      await q.enqueue('srv-t', r, 10);
      const started = Date.now();
      expect(await q.awaitAnswer('srv-t', r.requestId, 120)).toBeNull();
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
      expect(Date.now() - started).toBeLessThan(1_500);
      const ctl = new AbortController();
      const aborted = q.awaitAnswer('srv-t', r.requestId, 4_000, ctl.signal);
      ctl.abort();
      expect(await aborted).toBeNull();
    });

    test('maps pairing-code hashes to servers: replace, clear, refuse another server, spend, expire', async () => {
      const q = await open();
      expect(await q.setPairCode('srv-1', H1, 10_000)).toBe(true);
      expect(await q.findPairCode(H1)).toBe('srv-1');
      expect(await q.setPairCode('srv-2', H1, 10_000)).toBe(false);
      expect(await q.setPairCode('srv-1', H2, 10_000)).toBe(true);
      expect(await q.findPairCode(H1)).toBeNull();
      expect(await q.spendPairCode(H2, 'srv-2')).toBe(false);
      expect(await q.spendPairCode(H2, 'srv-1')).toBe(true);
      expect(await q.findPairCode(H2)).toBeNull();
      expect(await q.spendPairCode(H2, 'srv-1')).toBe(false);
      await q.setPairCode('srv-1', H1, 10_000);
      await q.setPairCode('srv-1', null, 10_000);
      expect(await q.findPairCode(H1)).toBeNull();
      await q.setPairCode('srv-1', H1, 60);
      await until('the code hash to expire', async () => (await q.findPairCode(H1)) === null);
    });

    test('counts hits in a fixed window', async () => {
      const q = await open();
      expect(await q.hits('k')).toEqual({ count: 0, resetInMs: 0 });
      expect(await q.hit('k', 1_000)).toBe(1);
      expect(await q.hit('k', 1_000)).toBe(2);
      const h = await q.hits('k');
      expect(h.count).toBe(2);
      expect(h.resetInMs).toBeGreaterThan(0);
      expect(h.resetInMs).toBeLessThanOrEqual(1_000);
      await until('the window to end', async () => (await q.hits('k')).count === 0);
      expect(await q.hit('k', 1_000)).toBe(1);
    });

    test('pings, and close ends every wait at once', async () => {
      const q = await open();
      expect(await q.ping()).toBe(true);
      await q.markOnline('srv-z', 60_000);
      await q.markOnline('srv-empty', 60_000);
      const r = req('x');
      await q.enqueue('srv-z', r, 10);
      const started = Date.now();
      const waits = [take(q, 'srv-empty', { waitMs: 5_000 }), q.awaitAnswer('srv-z', r.requestId, 5_000)];
      await q.close();
      expect(await Promise.all(waits)).toEqual([[], null]);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    test(RELAY_QUEUE_CASES.shared, async () => {
      const q = await open();
      const b = fx.other!;
      expect(await q.claim('srv-x', H1)).toBe('created');
      expect(await b.claim('srv-x', H2)).toBe('mismatch');
      await q.markOnline('srv-x', 60_000);
      const r = req('cross');
      const pulled = b.take('srv-x', { max: 5, maxBytes: 1 << 20, waitMs: 3_000 });
      await q.enqueue('srv-x', r, 10);
      expect((await pulled).map((x) => x.payload)).toEqual(['cross']);
      const waiting = q.awaitAnswer('srv-x', r.requestId, 3_000);
      expect(await b.answer('srv-x', r.requestId, 'from b')).toBe(true);
      expect(await waiting).toBe('from b');
    });

    checkSkips();
  });
}
