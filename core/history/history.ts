/**
 * The history of the vault: every version of every note and attachment, and the
 * trash, in a content-addressed store of our own (sha-256 dedup, deflate, an append-only pack
 * and journal behind the HistoryStore port). The whole index lives in memory; the bytes stay in
 * the store. Appends run one at a time; each resolves once durable.
 */
import { sha256Hex } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { createMutex } from '../mutex.ts';
import type { Clock, HistoryStore, Logger } from '../ports.ts';
import { type BlobLoc, type ChangeKind, type JournalRecord, parseJournal, unpackBlob } from './codec.ts';
import { compact, type PruneLimits, pruneHistory } from './prune.ts';
import type { HistoryState, Stored, TrashItem, VersionItem } from './state.ts';

export type { ChangeKind } from './codec.ts';
export type { PruneLimits } from './prune.ts';
export type { HistoryState, Stored, TrashItem, VersionItem } from './state.ts';

/** Everything `createHistory` needs. */
export interface HistoryDeps {
  store: HistoryStore;
  clock: Clock;
  logger?: Logger;
  /** Largest version of an attachment kept, in bytes (default 10 MiB); larger ones are skipped. */
  maxFileBytes?: number;
  /**
   * Compact in the background once the bytes stored uncompressed since the last compaction pass
   * `max(minBytes, fraction x the store's size after it)` (default 1 MiB and 0.25); false: only
   * when pruned. Never more than one at a time; writes wait only for its final switch.
   */
  autoCompact?: { minBytes?: number; fraction?: number } | false;
  /** How long the lines of lazy records gather before they are written (default 50 ms). */
  lazyDelayMs?: number;
  /**
   * The retention in force (a server's HISTORY_* settings). With it, a change that takes the store
   * past `limits.maxBytes` prunes at once, down to 3/4 of it, and the changes after it wait for
   * that prune: the cap holds at all times, within the versions written meanwhile (one, unless
   * several notes were written at the same moment). Without it, only `prune` drops anything.
   */
  limits?: PruneLimits;
}

/** A prune started by a write goes down to this share of HISTORY_MAX_BYTES, so it is not redone at once. */
const PRUNE_TO = 0.75;

/** The default trigger of the background compaction (docs/reference/history.md). */
export const AUTO_COMPACT = { minBytes: 1024 * 1024, fraction: 0.25 };

/** Builds the history over `deps.store`; call `load` once before use. */
export function createHistory(deps: HistoryDeps) {
  const { store, clock } = deps;
  const maxFileBytes = deps.maxFileBytes ?? 10 * 1024 * 1024;
  const state: HistoryState = { versions: new Map(), trash: new Map(), blobs: new Map(), rawBytes: 0 };
  const mutex = createMutex();
  let seq = 0;
  /** Versions held (kept current by `apply`, recounted after a prune) and bytes of the store. */
  let versionCount = 0;
  let loading: Promise<void> | null = null;
  let storedBytes = 0;
  const recount = async () => {
    versionCount = 0;
    for (const l of state.versions.values()) versionCount += l.length;
    storedBytes = await store.size();
  };
  const auto = deps.autoCompact === false ? null : { ...AUTO_COMPACT, ...deps.autoCompact };
  /** The running background compaction, and whether a prune holds the store (none starts then). */
  let compacting: Promise<void> | null = null;
  let pruning = false;
  /** The store's size after the last compaction (or at load). */
  let compactedBytes = 0;
  const maybeCompact = () => {
    if (!auto || compacting || pruning) return;
    if (state.rawBytes < Math.max(auto.minBytes, auto.fraction * compactedBytes)) return;
    compacting = compact(state, store, (fn) =>
      mutex.run(async () => {
        await flushAll();
        await fn();
      }),
    )
      .then(async () => {
        await recount();
        compactedBytes = storedBytes;
      })
      .catch((err) => deps.logger?.warn('history compaction failed', { error: String(err) }))
      .finally(() => {
        compacting = null;
      });
  };
  /** The prune a write started because the store passed the cap; the next changes wait for it. */
  let capPrune: Promise<unknown> | null = null;
  /** The store's size after the last such prune (trash items, never dropped by bytes, may keep it high). */
  let afterCapPrune = 0;
  const overCap = () => {
    const limits = deps.limits;
    if (!limits || capPrune) return;
    // Past the cap, and (when the last prune could not get under it) a quarter of it more since.
    if (storedBytes <= Math.max(limits.maxBytes, afterCapPrune + limits.maxBytes / 4)) return;
    capPrune = history
      .prune({ ...limits, maxBytes: Math.floor(limits.maxBytes * PRUNE_TO) })
      .then(() => {
        afterCapPrune = storedBytes;
      })
      .catch((err) =>
        deps.logger?.warn('history prune past HISTORY_MAX_BYTES failed', { error: String(err) }),
      )
      .finally(() => {
        capPrune = null;
      });
  };
  /** Runs `fn` holding the mutex, once no prune started by the cap is running. */
  const afterCap = <T>(fn: () => Promise<T>): Promise<T> =>
    capPrune ? capPrune.then(() => afterCap(fn)) : mutex.run(fn);
  const newId = (at: number) => `${at.toString(36)}${(++seq).toString(36).padStart(4, '0')}`;

  const apply = (r: JournalRecord) => {
    if (r.t === 'v') {
      const { o, l, z } = r;
      if (!state.blobs.has(r.sum) && !z) state.rawBytes += l;
      state.blobs.set(r.sum, { o, l, z });
      versionCount++;
      const list = state.versions.get(r.p) ?? [];
      list.push({
        id: r.id,
        at: r.at,
        size: r.size,
        checksum: r.sum,
        by: r.by,
        change: r.ch,
        loc: { o, l, z },
      });
      state.versions.set(r.p, list);
    } else if (r.t === 'm') {
      const from = state.versions.get(r.from);
      if (!from) return;
      state.versions.delete(r.from);
      state.versions.set(
        r.to,
        [...(state.versions.get(r.to) ?? []), ...from].sort((a, b) => a.at - b.at),
      );
    } else if (r.t === 'x') {
      const { o, l, z } = r;
      state.blobs.set(r.sum, { o, l, z });
      state.trash.set(r.id, {
        id: r.id,
        path: r.p,
        kind: r.kind,
        deletedAt: r.at,
        by: r.by,
        size: r.size,
        checksum: r.sum,
        loc: { o, l, z },
        ...(r.c ? { copy: r.c } : {}),
      });
    } else if (r.t === 'u') state.trash.delete(r.id);
    seq++;
  };

  /** The blob of `bytes` in the pack (appended when new). Call holding the mutex. */
  const blobOf = async (bytes: Uint8Array, sum: string): Promise<BlobLoc> => {
    const known = state.blobs.get(sum);
    if (known) return known;
    // Stored as is: compression would cost the write; the background compaction deflates.
    const data = bytes;
    const z = 0 as const;
    const o = await store.appendBlob(data);
    state.rawBytes += data.length;
    // The running count the cap is checked against (a flush sets it to the store's own size).
    storedBytes += data.length;
    const loc: BlobLoc = { o, l: data.length, z };
    state.blobs.set(sum, loc);
    return loc;
  };

  /*
   * The journal is appended through one queue, in order. A line is written only after the pack
   * bytes it names are durable (`syncBlobs`), so a line on disk never names bytes that are not.
   * Most records wait until their line is durable. A `lazy` one (the new bytes of a note write,
   * made durable by the vault write running beside it) does not: the write answers without a
   * second durable wait, and the next change to that note waits for the line first (`keepBefore`),
   * so the version before every change is still durable before the change is acknowledged. A
   * crash before a lazy line reached the disk loses only its metadata: its bytes are the note's
   * on disk, kept again by the next write (as `outside`).
   */
  let queued: string[] = [];
  let queuedSeq = 0;
  let durableSeq = 0;
  let flushing: Promise<void> | null = null;
  /** Per path, the newest lazy line not yet known durable. */
  const lazyOf = new Map<string, number>();
  const flushOnce = (): Promise<void> => {
    if (flushing) return flushing;
    if (!queued.length) return Promise.resolve();
    const batch = queued;
    const upTo = queuedSeq;
    queued = [];
    flushing = (async () => {
      try {
        await store.syncBlobs?.();
        await store.appendJournal(batch.join(''));
        durableSeq = upTo;
        for (const [p, n] of lazyOf) if (n <= upTo) lazyOf.delete(p);
        storedBytes = await store.size();
      } catch (err) {
        // Nothing is dropped: the lines go first in the next attempt (the waiters see the error).
        queued = [...batch, ...queued];
        throw err;
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  };
  /** Resolves once line `seq` (and every line before it) is durable. */
  const untilDurable = async (seq: number) => {
    while (durableSeq < seq) await flushOnce();
  };
  const flushAll = () => untilDurable(queuedSeq);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lazyDelayMs = deps.lazyDelayMs ?? 50;
  const enqueue = (r: JournalRecord): number => {
    const line = `${JSON.stringify(r)}\n`;
    queued.push(line);
    storedBytes += line.length;
    return ++queuedSeq;
  };

  /** Applies `r` and resolves once its line is durable (memory always shows what is queued). */
  const write = async (r: JournalRecord) => {
    const seq = enqueue(r);
    apply(r);
    await untilDurable(seq);
  };

  /** Applies `r` now and has its line written in the background (see above). */
  const writeLazy = (r: JournalRecord & { t: 'v' }) => {
    const seq = enqueue(r);
    apply(r);
    lazyOf.set(r.p, seq);
    // Gathered for a moment, so one pair of syncs covers the writes of a burst (a write to the
    // same note, or any durable record, flushes at once).
    timer ??= setTimeout(() => {
      timer = undefined;
      flushAll().catch((err) =>
        deps.logger?.warn('history journal append failed', { path: r.p, error: String(err) }),
      );
    }, lazyDelayMs);
    (timer as { unref?: () => void }).unref?.();
  };

  const addVersion = (
    path: string,
    bytes: Uint8Array,
    sum: string | undefined,
    by: string,
    ch: ChangeKind,
    lazy = false,
  ) =>
    afterCap(async () => {
      const checksum = sum ?? (await sha256Hex(bytes));
      const loc = await blobOf(bytes, checksum);
      const at = clock.now();
      const r = {
        t: 'v',
        id: newId(at),
        p: path,
        at,
        size: bytes.length,
        sum: checksum,
        by,
        ch,
        ...loc,
      } as const;
      if (lazy) writeLazy(r);
      else await write(r);
      // Started, never awaited: the write answers now (the next change waits for a prune).
      overCap();
      maybeCompact();
    });

  const latest = (path: string) => state.versions.get(path)?.at(-1);

  const findVersion = (path: string, id: string) => {
    const v = state.versions.get(path)?.find((x) => x.id === id);
    if (!v) throw new DomainError('NOT_FOUND', `No version "${id}" of "${path}".`);
    return v;
  };

  const bytesOf = async (loc: BlobLoc) => {
    const data = await store.readBlob(loc.o, loc.l);
    if (!data) throw new DomainError('NOT_FOUND', 'That version is no longer stored.');
    return unpackBlob(data, loc.z);
  };

  /** A trash item as the API shows it (without where its bytes lie). */
  const outOf = ({ loc: _, copy: __, ...item }: Stored<TrashItem> & { copy?: string }): TrashItem => item;

  /** Removes a vault copy of a trash item; a failure is logged, never thrown (the item is gone). */
  const dropCopy = async (where: string) => {
    try {
      await store.dropTrashCopy?.(where);
    } catch (err) {
      deps.logger?.warn('could not remove a copy from the vault trash', { path: where, error: String(err) });
    }
  };

  const stats = (): { bytes: number; versions: number; trash: number } => ({
    bytes: storedBytes,
    versions: versionCount,
    trash: state.trash.size,
  });

  const history = {
    /** Reads the journal into memory, once (later calls wait for the first). */
    load(): Promise<void> {
      loading ??= (async () => {
        for (const r of parseJournal(await store.readJournal())) apply(r);
        await recount();
        compactedBytes = storedBytes;
      })();
      return loading;
    },

    /** True when `bytes` of an attachment are small enough to keep versions of. */
    keepsFile: (size: number): boolean => size <= maxFileBytes,

    /**
     * Makes sure the content a write is about to replace is in the history: a no-op when the
     * newest version has that checksum (the usual case); otherwise it is kept as an outside change.
     */
    async keepBefore(path: string, bytes: Uint8Array, sum?: string): Promise<void> {
      const checksum = sum ?? (await sha256Hex(bytes));
      const last = latest(path);
      if (last?.checksum === checksum) {
        // Kept already; its line may still be on its way to the disk (a lazy record).
        const pending = lazyOf.get(path);
        if (pending !== undefined) await untilDurable(pending);
        return;
      }
      await addVersion(path, bytes, checksum, 'outside', last ? 'outside' : 'baseline');
    },

    /**
     * Keeps `bytes` as the newest version of `path`, made by `by` through `change`; resolves once
     * durable. With `lazy` (only for bytes a durable vault write of `path` holds too), it resolves
     * before its journal line is durable (see the queue above).
     */
    record: (
      path: string,
      bytes: Uint8Array,
      by: string,
      change: ChangeKind,
      sum?: string,
      lazy = false,
    ): Promise<void> => addVersion(path, bytes, sum, by, change, lazy),

    /** Resolves once every journal line so far is durable (shutdown, tests). */
    flush: (): Promise<void> => flushAll(),

    /** The versions of `path` move with it to `to` (then a `move` version is recorded there). */
    moved: (from: string, to: string): Promise<void> =>
      mutex.run(() => write({ t: 'm', from, to, at: clock.now() })),

    /** Puts the deleted `bytes` of `path` in the trash; answers the item. */
    trash: (path: string, kind: 'note' | 'file', bytes: Uint8Array, by: string, sum?: string) =>
      afterCap(async (): Promise<TrashItem> => {
        const checksum = sum ?? (await sha256Hex(bytes));
        // The vault copy first (TRASH_DIR=vault): a crash before the journal line leaves a stray
        // file in `.trash/`, never an item whose copy is missing.
        const [loc, copy] = await Promise.all([blobOf(bytes, checksum), store.keepTrashCopy?.(path, bytes)]);
        const at = clock.now();
        const id = newId(at);
        const c = copy ? { c: copy } : {};
        await write({ t: 'x', id, p: path, kind, at, by, size: bytes.length, sum: checksum, ...loc, ...c });
        overCap();
        maybeCompact();
        return outOf(state.trash.get(id)!);
      }),

    /**
     * A file deleted outside the server (seen by the watcher): its newest kept version becomes a
     * `delete` version by `outside` and a trash item. False when nothing of it was kept.
     */
    goneOutside: (path: string, kind: 'note' | 'file') =>
      mutex.run(async (): Promise<boolean> => {
        const last = latest(path);
        // Nothing kept, or its deletion is recorded already (a delete through the API that the
        // watcher then sees as a removal): no second trash item.
        if (!last || last.change === 'delete') return false;
        const at = clock.now();
        const { checksum: sum, size, loc } = last;
        await write({ t: 'v', id: newId(at), p: path, at, size, sum, by: 'outside', ch: 'delete', ...loc });
        await write({ t: 'x', id: newId(at), p: path, kind, at, by: 'outside', size, sum, ...loc });
        return true;
      }),

    /** The versions of `path`, newest first. */
    list(path: string): VersionItem[] {
      const list = state.versions.get(path) ?? [];
      const out: VersionItem[] = new Array(list.length);
      for (let i = 0; i < list.length; i++) {
        const { loc: _, ...item } = list[list.length - 1 - i]!;
        out[i] = item;
      }
      return out;
    },

    /** One version of `path` with its bytes; NOT_FOUND when unknown. */
    async get(path: string, id: string): Promise<VersionItem & { bytes: Uint8Array }> {
      const { loc, ...item } = findVersion(path, id);
      return { ...item, bytes: await bytesOf(loc) };
    },

    /** The trash, newest first. */
    listTrash(): TrashItem[] {
      return [...state.trash.values()].map(outOf).sort((a, b) => b.deletedAt - a.deletedAt);
    },

    /** One trash item with its bytes; NOT_FOUND when unknown. */
    async trashed(id: string): Promise<TrashItem & { bytes: Uint8Array }> {
      const found = state.trash.get(id);
      if (!found) throw new DomainError('NOT_FOUND', `No item "${id}" in the trash.`);
      return { ...outOf(found), bytes: await bytesOf(found.loc) };
    },

    /** Takes an item out of the trash (restored, or deleted for good); false when unknown. */
    untrash: (id: string): Promise<boolean> =>
      mutex.run(async () => {
        const item = state.trash.get(id);
        if (!item) return false;
        await write({ t: 'u', id });
        if (item.copy) await dropCopy(item.copy);
        return true;
      }),

    /**
     * Drops versions and trash items past the limits and compacts the store (only when something
     * was dropped). Answers how many versions and trash items went.
     */
    async prune(limits: PruneLimits): Promise<{ versions: number; trash: number }> {
      pruning = true;
      try {
        await compacting;
        return await mutex.run(async () => {
          await flushAll();
          const before = [...state.trash.values()];
          const gone = await pruneHistory(state, store, clock.now(), limits);
          await recount();
          compactedBytes = storedBytes;
          for (const t of before) if (t.copy && !state.trash.has(t.id)) await dropCopy(t.copy);
          return gone;
        });
      } finally {
        pruning = false;
      }
    },

    /** The background compaction running now, if any (tests and shutdown wait on it). */
    compacting: (): Promise<void> | null => compacting,

    /** Sizes for health and doctor. */
    async usage(): Promise<{ bytes: number; versions: number; blobs: number; trash: number }> {
      return { ...stats(), blobs: state.blobs.size };
    },

    /** The same without waiting, O(1) (for `GET /health`): bytes held, versions and trash items. */
    stats,
  };
  return history;
}

/** The history of a vault. */
export type History = ReturnType<typeof createHistory>;
