/** Pruning of the history: by age, by total bytes, and the trash's retention; then compaction. */
import type { HistoryStore } from '../ports.ts';
import { type BlobLoc, type JournalRecord, packBlob } from './codec.ts';
import type { HistoryState } from './state.ts';

/** How much history to keep. */
export interface PruneLimits {
  /** Versions older than this many ms are dropped. */
  maxAgeMs: number;
  /** Past this many bytes of blobs, the oldest versions are dropped. */
  maxBytes: number;
  /** Trash items older than this many ms are deleted for good. */
  trashMs: number;
  /** Compact (deflate the blobs stored as they are) once this many such bytes piled up (default 4 MiB). */
  compressAfterBytes?: number;
}

/** Drops what the limits exclude and rewrites pack and journal when anything went. Hold the mutex. */
export async function pruneHistory(
  state: HistoryState,
  store: HistoryStore,
  now: number,
  limits: PruneLimits,
): Promise<{ versions: number; trash: number }> {
  let versions = 0;
  let trash = 0;
  for (const [id, item] of state.trash) {
    if (now - item.deletedAt > limits.trashMs) {
      state.trash.delete(id);
      trash++;
    }
  }
  for (const [path, list] of state.versions) {
    const kept = list.filter((v) => now - v.at <= limits.maxAgeMs);
    versions += list.length - kept.length;
    if (kept.length) state.versions.set(path, kept);
    else state.versions.delete(path);
  }
  // By bytes: the oldest versions go first until the blobs still referenced fit.
  const refs = new Map<string, number>();
  const ref = (sum: string, d: number) => refs.set(sum, (refs.get(sum) ?? 0) + d);
  for (const list of state.versions.values()) for (const v of list) ref(v.checksum, 1);
  for (const t of state.trash.values()) ref(t.checksum, 1);
  let bytes = 0;
  for (const sum of refs.keys()) bytes += state.blobs.get(sum)?.l ?? 0;
  if (bytes > limits.maxBytes) {
    const all = [...state.versions.entries()].flatMap(([p, l]) => l.map((v) => ({ p, v })));
    all.sort((a, b) => a.v.at - b.v.at);
    const drop = new Set<object>();
    for (const { v } of all) {
      if (bytes <= limits.maxBytes) break;
      drop.add(v);
      versions++;
      ref(v.checksum, -1);
      if (refs.get(v.checksum) === 0) bytes -= state.blobs.get(v.checksum)?.l ?? 0;
    }
    for (const [path, list] of state.versions) {
      const kept = list.filter((v) => !drop.has(v));
      if (kept.length) state.versions.set(path, kept);
      else state.versions.delete(path);
    }
  }
  // Compacts when something went, or when enough was stored uncompressed since the last time.
  if (!versions && !trash && state.rawBytes < (limits.compressAfterBytes ?? 4 * 1024 * 1024)) {
    return { versions, trash };
  }
  await compact(state, store);
  return { versions, trash };
}

/** The checksums of the blobs the index still names (versions and trash items). */
const liveSums = (state: HistoryState): Set<string> => {
  const live = new Set<string>();
  for (const list of state.versions.values()) for (const v of list) live.add(v.checksum);
  for (const t of state.trash.values()) live.add(t.checksum);
  return live;
};

/**
 * Rewrites the pack with only the blobs still referenced (deflated), and the journal from the index.
 * With `lock` (the history's mutex), it runs beside the writes: the blobs named when it starts are
 * read and deflated without the lock; then, holding it, the blobs written meanwhile are copied as
 * they are and the journal is rewritten and switched (a short stop). Without `lock`, the caller
 * holds the mutex for the whole run.
 */
export async function compact(
  state: HistoryState,
  store: HistoryStore,
  lock?: (fn: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const first = liveSums(state);
  const next = new Map<string, BlobLoc>();
  let offset = 0;
  let rawAfter = 0;
  const copy = async function* (sums: Iterable<string>, deflate: boolean): AsyncIterable<Uint8Array> {
    for (const sum of sums) {
      if (next.has(sum)) continue;
      const loc = state.blobs.get(sum);
      if (!loc) continue;
      const data = await store.readBlob(loc.o, loc.l);
      if (!data) continue;
      const packed = loc.z || !deflate ? { data, z: loc.z } : await packBlob(data);
      if (!packed.z) rawAfter += packed.data.length;
      next.set(sum, { o: offset, l: packed.data.length, z: packed.z });
      offset += packed.data.length;
      yield packed.data;
    }
  };
  const journal = () => {
    const lines: string[] = [];
    for (const [p, list] of state.versions) {
      const kept = list.filter((v) => next.has(v.checksum));
      for (const v of kept) {
        v.loc = next.get(v.checksum)!;
        const r: JournalRecord = {
          t: 'v',
          id: v.id,
          p,
          at: v.at,
          size: v.size,
          sum: v.checksum,
          by: v.by,
          ch: v.change,
          ...v.loc,
        };
        lines.push(JSON.stringify(r));
      }
      state.versions.set(p, kept);
    }
    for (const t of state.trash.values()) {
      const loc = next.get(t.checksum);
      if (!loc) continue;
      t.loc = loc;
      const r: JournalRecord = {
        t: 'x',
        id: t.id,
        p: t.path,
        kind: t.kind,
        at: t.deletedAt,
        by: t.by,
        size: t.size,
        sum: t.checksum,
        ...loc,
        ...(t.copy ? { c: t.copy } : {}),
      };
      lines.push(JSON.stringify(r));
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  };
  const run = async (pieces: AsyncIterable<Uint8Array>) => {
    await store.replace(pieces, journal);
    state.blobs = next;
    state.rawBytes = rawAfter;
  };
  if (!lock) return run(copy(first, true));
  // Phase 2 waits for the lock inside the pack's pieces, so the switch happens while holding it.
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let locked: Promise<void> | undefined;
  async function* pieces(): AsyncIterable<Uint8Array> {
    yield* copy(first, true);
    // Asked for only now: writes queued meanwhile never wait for the deflating.
    await new Promise<void>((got) => {
      locked = lock!(async () => {
        got();
        await held;
      });
    });
    yield* copy(liveSums(state), false);
  }
  try {
    await run(pieces());
  } finally {
    release();
    await locked;
  }
}
