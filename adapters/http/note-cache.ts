/** One cached answer: the encoded body and what it is valid for. */
export interface CachedAnswer {
  /**
   * The index's summary of the note this body was encoded with: valid while the index still
   * hands out the same object (it makes a new one when the note, its links or backlinks change).
   */
  version: object;
  /** The quoted ETag, ready for the header. */
  etag: string;
  body: Uint8Array<ArrayBuffer>;
}

/** Counters of a byte-bounded LRU, for tests and system/info. */
export interface LruStats {
  hits: number;
  misses: number;
  evictions: number;
  entries: number;
  bytes: number;
  maxBytes: number;
}

/**
 * A least-recently-used map bounded by the total size of its values in bytes. A hit moves the
 * entry to the young end (a Map keeps insertion order); inserting evicts from the old end until
 * the total fits. A value larger than the whole budget is not kept.
 */
export function createByteLru<V>(maxBytes: number, sizeOf: (v: V) => number) {
  const map = new Map<string, V>();
  const stats: LruStats = { hits: 0, misses: 0, evictions: 0, entries: 0, bytes: 0, maxBytes };
  const drop = (key: string, v: V) => {
    map.delete(key);
    stats.bytes -= sizeOf(v);
  };
  return {
    /** The value under `key`, refreshed as most recently used; undefined on a miss. */
    get(key: string): V | undefined {
      const v = map.get(key);
      if (v === undefined) {
        stats.misses++;
        return undefined;
      }
      stats.hits++;
      map.delete(key);
      map.set(key, v);
      return v;
    },
    /** Keeps `v` under `key` as the most recently used, evicting the oldest entries past the budget. */
    set(key: string, v: V): void {
      const old = map.get(key);
      if (old !== undefined) drop(key, old);
      const size = sizeOf(v);
      if (size > maxBytes) {
        stats.entries = map.size;
        return;
      }
      map.set(key, v);
      stats.bytes += size;
      for (const [k, old] of map) {
        if (stats.bytes <= maxBytes) break;
        drop(k, old);
        stats.evictions++;
      }
      stats.entries = map.size;
    },
    delete(key: string): void {
      const old = map.get(key);
      if (old !== undefined) drop(key, old);
      stats.entries = map.size;
    },
    /** The keys from least to most recently used. */
    keys(): string[] {
      return [...map.keys()];
    },
    stats(): Readonly<LruStats> {
      return { ...stats, entries: map.size };
    },
  };
}

export type ByteLru<V> = ReturnType<typeof createByteLru<V>>;

/** Default budget of the encoded-note cache: 64 MiB (NOTE_CACHE_BYTES). */
export const DEFAULT_NOTE_CACHE_BYTES = 64 * 1024 * 1024;

/** The encoded bodies of `GET /notes/:path`, keyed by note path, bounded in bytes. */
export function createNoteCache(maxBytes = DEFAULT_NOTE_CACHE_BYTES) {
  // The key and the bookkeeping count too, roughly: 64 bytes plus the ETag.
  return createByteLru<CachedAnswer>(maxBytes, (a) => a.body.byteLength + a.etag.length + 64);
}

export type NoteCache = ReturnType<typeof createNoteCache>;
