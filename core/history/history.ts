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
import { JournalQueue } from './journal-queue.ts';
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

/** A trash item as the API shows it (without where its bytes lie). */
const outOf = ({ loc: _, copy: __, ...item }: Stored<TrashItem> & { copy?: string }): TrashItem => item;

/**
 * The history of a vault over `deps.store`; call `load` once before use. Its state: the index in
 * memory (`state`, with counts), the journal queue (journal-queue.ts), and the upkeep that runs
 * beside the writes (the background compaction, the prune a write past the cap starts). Every
 * public member is a bound function, so it can be handed on alone.
 */
export class VaultHistory {
  private readonly store: HistoryStore;
  private readonly clock: Clock;
  private readonly maxFileBytes: number;
  private readonly state: HistoryState = {
    versions: new Map(),
    trash: new Map(),
    blobs: new Map(),
    rawBytes: 0,
  };
  private readonly mutex = createMutex();
  private readonly journal: JournalQueue;
  private seq = 0;
  /** Versions held (kept current by `apply`, recounted after a prune) and bytes of the store. */
  private versionCount = 0;
  private storedBytes = 0;
  private loading: Promise<void> | null = null;
  private readonly auto: { minBytes: number; fraction: number } | null;
  /** The running background compaction, and whether a prune holds the store (none starts then). */
  private running: Promise<void> | null = null;
  private pruning = false;
  /** The store's size after the last compaction (or at load). */
  private compactedBytes = 0;
  /** The prune a write started because the store passed the cap; the next changes wait for it. */
  private capPrune: Promise<unknown> | null = null;
  /** The store's size after the last such prune (trash items, never dropped by bytes, may keep it high). */
  private afterCapPrune = 0;

  constructor(private readonly deps: HistoryDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.maxFileBytes = deps.maxFileBytes ?? 10 * 1024 * 1024;
    this.auto = deps.autoCompact === false ? null : { ...AUTO_COMPACT, ...deps.autoCompact };
    const size = {
      grow: (n: number) => {
        this.storedBytes += n;
      },
      set: (n: number) => {
        this.storedBytes = n;
      },
    };
    this.journal = new JournalQueue(
      deps.store,
      (r) => this.apply(r),
      size,
      deps.lazyDelayMs ?? 50,
      deps.logger,
    );
  }

  /** Reads the journal into memory, once (later calls wait for the first). */
  load = (): Promise<void> => {
    this.loading ??= (async () => {
      for (const r of parseJournal(await this.store.readJournal())) this.apply(r);
      await this.recount();
      this.compactedBytes = this.storedBytes;
    })();
    return this.loading;
  };

  /** True when `bytes` of an attachment are small enough to keep versions of. */
  keepsFile = (size: number): boolean => size <= this.maxFileBytes;

  /**
   * Makes sure the content a write is about to replace is in the history: a no-op when the
   * newest version has that checksum (the usual case); otherwise it is kept as an outside change.
   */
  keepBefore = async (path: string, bytes: Uint8Array, sum?: string): Promise<void> => {
    const checksum = sum ?? (await sha256Hex(bytes));
    const last = this.latest(path);
    if (last?.checksum === checksum) {
      // Kept already; its line may still be on its way to the disk (a lazy record).
      const pending = this.journal.lazyOf.get(path);
      if (pending !== undefined) await this.journal.untilDurable(pending);
      return;
    }
    await this.addVersion(path, bytes, checksum, 'outside', last ? 'outside' : 'baseline');
  };

  /**
   * Keeps `bytes` as the newest version of `path`, made by `by` through `change`; resolves once
   * durable. With `lazy` (only for bytes a durable vault write of `path` holds too), it resolves
   * before its journal line is durable (journal-queue.ts).
   */
  record = (
    path: string,
    bytes: Uint8Array,
    by: string,
    change: ChangeKind,
    sum?: string,
    lazy = false,
  ): Promise<void> => this.addVersion(path, bytes, sum, by, change, lazy);

  /** Resolves once every journal line so far is durable (shutdown, tests). */
  flush = (): Promise<void> => this.journal.flushAll();

  /** The versions of `path` move with it to `to` (then a `move` version is recorded there). */
  moved = (from: string, to: string): Promise<void> =>
    this.mutex.run(() => this.journal.write({ t: 'm', from, to, at: this.clock.now() }));

  /** Puts the deleted `bytes` of `path` in the trash; answers the item. */
  trash = (path: string, kind: 'note' | 'file', bytes: Uint8Array, by: string, sum?: string) =>
    this.afterCap(async (): Promise<TrashItem> => {
      const checksum = sum ?? (await sha256Hex(bytes));
      // The vault copy first (TRASH_DIR=vault): a crash before the journal line leaves a stray
      // file in `.trash/`, never an item whose copy is missing.
      const [loc, copy] = await Promise.all([
        this.blobOf(bytes, checksum),
        this.store.keepTrashCopy?.(path, bytes),
      ]);
      const at = this.clock.now();
      const id = this.newId(at);
      const c = copy ? { c: copy } : {};
      await this.journal.write({
        t: 'x',
        id,
        p: path,
        kind,
        at,
        by,
        size: bytes.length,
        sum: checksum,
        ...loc,
        ...c,
      });
      this.overCap();
      this.maybeCompact();
      return outOf(this.state.trash.get(id)!);
    });

  /**
   * A file deleted outside the server (seen by the watcher): its newest kept version becomes a
   * `delete` version by `outside` and a trash item. False when nothing of it was kept.
   */
  goneOutside = (path: string, kind: 'note' | 'file') =>
    this.mutex.run(async (): Promise<boolean> => {
      const last = this.latest(path);
      // Nothing kept, or its deletion is recorded already (a delete through the API that the
      // watcher then sees as a removal): no second trash item.
      if (!last || last.change === 'delete') return false;
      const at = this.clock.now();
      const { checksum: sum, size, loc } = last;
      await this.journal.write({
        t: 'v',
        id: this.newId(at),
        p: path,
        at,
        size,
        sum,
        by: 'outside',
        ch: 'delete',
        ...loc,
      });
      await this.journal.write({
        t: 'x',
        id: this.newId(at),
        p: path,
        kind,
        at,
        by: 'outside',
        size,
        sum,
        ...loc,
      });
      return true;
    });

  /** Every path with kept versions, deleted notes' included (the activity lists them). */
  paths = (): string[] => [...this.state.versions.keys()];

  /** The versions of `path`, newest first. */
  list = (path: string): VersionItem[] => {
    const list = this.state.versions.get(path) ?? [];
    const out: VersionItem[] = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const { loc: _, ...item } = list[list.length - 1 - i]!;
      out[i] = item;
    }
    return out;
  };

  /** One version of `path` with its bytes; NOT_FOUND when unknown. */
  get = async (path: string, id: string): Promise<VersionItem & { bytes: Uint8Array }> => {
    const { loc, ...item } = this.findVersion(path, id);
    return { ...item, bytes: await this.bytesOf(loc) };
  };

  /** The trash, newest first. */
  listTrash = (): TrashItem[] =>
    [...this.state.trash.values()].map(outOf).sort((a, b) => b.deletedAt - a.deletedAt);

  /** One trash item with its bytes; NOT_FOUND when unknown. */
  trashed = async (id: string): Promise<TrashItem & { bytes: Uint8Array }> => {
    const found = this.state.trash.get(id);
    if (!found) throw new DomainError('NOT_FOUND', `No item "${id}" in the trash.`);
    return { ...outOf(found), bytes: await this.bytesOf(found.loc) };
  };

  /** Takes an item out of the trash (restored, or deleted for good); false when unknown. */
  untrash = (id: string): Promise<boolean> =>
    this.mutex.run(async () => {
      const item = this.state.trash.get(id);
      if (!item) return false;
      await this.journal.write({ t: 'u', id });
      if (item.copy) await this.dropCopy(item.copy);
      return true;
    });

  /**
   * Drops versions and trash items past the limits and compacts the store (only when something
   * was dropped). Answers how many versions and trash items went.
   */
  prune = async (limits: PruneLimits): Promise<{ versions: number; trash: number }> => {
    this.pruning = true;
    try {
      await this.running;
      return await this.mutex.run(async () => {
        await this.journal.flushAll();
        const before = [...this.state.trash.values()];
        const gone = await pruneHistory(this.state, this.store, this.clock.now(), limits);
        await this.recount();
        this.compactedBytes = this.storedBytes;
        for (const t of before) if (t.copy && !this.state.trash.has(t.id)) await this.dropCopy(t.copy);
        return gone;
      });
    } finally {
      this.pruning = false;
    }
  };

  /** The background compaction running now, if any (tests and shutdown wait on it). */
  compacting = (): Promise<void> | null => this.running;

  /** Sizes for health and doctor. */
  usage = async (): Promise<{ bytes: number; versions: number; blobs: number; trash: number }> => ({
    ...this.stats(),
    blobs: this.state.blobs.size,
  });

  /** The same without waiting, O(1) (for `GET /health`): bytes held, versions and trash items. */
  stats = (): { bytes: number; versions: number; trash: number } => ({
    bytes: this.storedBytes,
    versions: this.versionCount,
    trash: this.state.trash.size,
  });

  // The index in memory.

  private async recount(): Promise<void> {
    this.versionCount = 0;
    for (const l of this.state.versions.values()) this.versionCount += l.length;
    this.storedBytes = await this.store.size();
  }

  private newId(at: number): string {
    return `${at.toString(36)}${(++this.seq).toString(36).padStart(4, '0')}`;
  }

  private apply(r: JournalRecord): void {
    const { state } = this;
    if (r.t === 'v') {
      const { o, l, z } = r;
      if (!state.blobs.has(r.sum) && !z) state.rawBytes += l;
      state.blobs.set(r.sum, { o, l, z });
      this.versionCount++;
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
    this.seq++;
  }

  /** The blob of `bytes` in the pack (appended when new). Call holding the mutex. */
  private async blobOf(bytes: Uint8Array, sum: string): Promise<BlobLoc> {
    const known = this.state.blobs.get(sum);
    if (known) return known;
    // Stored as is: compression would cost the write; the background compaction deflates.
    const o = await this.store.appendBlob(bytes);
    this.state.rawBytes += bytes.length;
    // The running count the cap is checked against (a flush sets it to the store's own size).
    this.storedBytes += bytes.length;
    const loc: BlobLoc = { o, l: bytes.length, z: 0 };
    this.state.blobs.set(sum, loc);
    return loc;
  }

  private addVersion(
    path: string,
    bytes: Uint8Array,
    sum: string | undefined,
    by: string,
    ch: ChangeKind,
    lazy = false,
  ): Promise<void> {
    return this.afterCap(async () => {
      const checksum = sum ?? (await sha256Hex(bytes));
      const loc = await this.blobOf(bytes, checksum);
      const at = this.clock.now();
      const r = {
        t: 'v',
        id: this.newId(at),
        p: path,
        at,
        size: bytes.length,
        sum: checksum,
        by,
        ch,
        ...loc,
      } as const;
      if (lazy) this.journal.writeLazy(r);
      else await this.journal.write(r);
      // Started, never awaited: the write answers now (the next change waits for a prune).
      this.overCap();
      this.maybeCompact();
    });
  }

  private latest(path: string) {
    return this.state.versions.get(path)?.at(-1);
  }

  private findVersion(path: string, id: string) {
    const v = this.state.versions.get(path)?.find((x) => x.id === id);
    if (!v) throw new DomainError('NOT_FOUND', `No version "${id}" of "${path}".`);
    return v;
  }

  private async bytesOf(loc: BlobLoc): Promise<Uint8Array> {
    const data = await this.store.readBlob(loc.o, loc.l);
    if (!data) throw new DomainError('NOT_FOUND', 'That version is no longer stored.');
    return unpackBlob(data, loc.z);
  }

  /** Removes a vault copy of a trash item; a failure is logged, never thrown (the item is gone). */
  private async dropCopy(where: string): Promise<void> {
    try {
      await this.store.dropTrashCopy?.(where);
    } catch (err) {
      this.deps.logger?.warn('could not remove a copy from the vault trash', {
        path: where,
        error: String(err),
      });
    }
  }

  // The upkeep beside the writes.

  private maybeCompact(): void {
    const { auto } = this;
    if (!auto || this.running || this.pruning) return;
    if (this.state.rawBytes < Math.max(auto.minBytes, auto.fraction * this.compactedBytes)) return;
    this.running = compact(this.state, this.store, (fn) =>
      this.mutex.run(async () => {
        await this.journal.flushAll();
        await fn();
      }),
    )
      .then(async () => {
        await this.recount();
        this.compactedBytes = this.storedBytes;
      })
      .catch((err) => this.deps.logger?.warn('history compaction failed', { error: String(err) }))
      .finally(() => {
        this.running = null;
      });
  }

  private overCap(): void {
    const limits = this.deps.limits;
    if (!limits || this.capPrune) return;
    // Past the cap, and (when the last prune could not get under it) a quarter of it more since.
    if (this.storedBytes <= Math.max(limits.maxBytes, this.afterCapPrune + limits.maxBytes / 4)) return;
    this.capPrune = this.prune({ ...limits, maxBytes: Math.floor(limits.maxBytes * PRUNE_TO) })
      .then(() => {
        this.afterCapPrune = this.storedBytes;
      })
      .catch((err) =>
        this.deps.logger?.warn('history prune past HISTORY_MAX_BYTES failed', { error: String(err) }),
      )
      .finally(() => {
        this.capPrune = null;
      });
  }

  /** Runs `fn` holding the mutex, once no prune started by the cap is running. */
  private afterCap<T>(fn: () => Promise<T>): Promise<T> {
    return this.capPrune ? this.capPrune.then(() => this.afterCap(fn)) : this.mutex.run(fn);
  }
}

/** Builds the history over `deps.store`; call `load` once before use. */
export function createHistory(deps: HistoryDeps): History {
  return new VaultHistory(deps);
}

/** The history of a vault: its public members (a scoped view builds one of its own, core/auth/scoped.ts). */
export type History = { [K in keyof VaultHistory]: VaultHistory[K] };
