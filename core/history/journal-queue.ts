import type { HistoryStore, Logger } from '../ports.ts';
import type { JournalRecord } from './codec.ts';

/**
 * The journal is appended through one queue, in order. A line is written only after the pack
 * bytes it names are durable (`syncBlobs`), so a line on disk never names bytes that are not.
 * Most records wait until their line is durable. A `lazy` one (the new bytes of a note write,
 * made durable by the vault write running beside it) does not: the write answers without a
 * second durable wait, and the next change to that note waits for the line first (`keepBefore`),
 * so the version before every change is still durable before the change is acknowledged. A
 * crash before a lazy line reached the disk loses only its metadata: its bytes are the note's
 * on disk, kept again by the next write (as `outside`).
 */
export class JournalQueue {
  private queued: string[] = [];
  private queuedSeq = 0;
  private durableSeq = 0;
  private flushing: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Per path, the newest lazy line not yet known durable. */
  readonly lazyOf = new Map<string, number>();

  constructor(
    private readonly store: HistoryStore,
    /** Applies a record to the history in memory (memory always shows what is queued). */
    private readonly apply: (r: JournalRecord) => void,
    /** The store's size: grown by each line queued, set to the store's own after each flush. */
    private readonly size: { grow(n: number): void; set(n: number): void },
    private readonly lazyDelayMs: number,
    private readonly logger?: Logger,
  ) {}

  private flushOnce(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (!this.queued.length) return Promise.resolve();
    const batch = this.queued;
    const upTo = this.queuedSeq;
    this.queued = [];
    this.flushing = (async () => {
      try {
        await this.store.syncBlobs?.();
        await this.store.appendJournal(batch.join(''));
        this.durableSeq = upTo;
        for (const [p, n] of this.lazyOf) if (n <= upTo) this.lazyOf.delete(p);
        this.size.set(await this.store.size());
      } catch (err) {
        // Nothing is dropped: the lines go first in the next attempt (the waiters see the error).
        this.queued = [...batch, ...this.queued];
        throw err;
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  /** Resolves once line `seq` (and every line before it) is durable. */
  async untilDurable(seq: number): Promise<void> {
    while (this.durableSeq < seq) await this.flushOnce();
  }

  /** Resolves once every line queued so far is durable. */
  flushAll(): Promise<void> {
    return this.untilDurable(this.queuedSeq);
  }

  private enqueue(r: JournalRecord): number {
    const line = `${JSON.stringify(r)}\n`;
    this.queued.push(line);
    this.size.grow(line.length);
    return ++this.queuedSeq;
  }

  /** Applies `r` and resolves once its line is durable. */
  async write(r: JournalRecord): Promise<void> {
    const seq = this.enqueue(r);
    this.apply(r);
    await this.untilDurable(seq);
  }

  /** Applies `r` now and has its line written in the background (see the class). */
  writeLazy(r: JournalRecord & { t: 'v' }): void {
    const seq = this.enqueue(r);
    this.apply(r);
    this.lazyOf.set(r.p, seq);
    // Gathered for a moment, so one pair of syncs covers the writes of a burst (a write to the
    // same note, or any durable record, flushes at once).
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushAll().catch((err) =>
        this.logger?.warn('history journal append failed', { path: r.p, error: String(err) }),
      );
    }, this.lazyDelayMs);
    (this.timer as { unref?: () => void }).unref?.();
  }
}
