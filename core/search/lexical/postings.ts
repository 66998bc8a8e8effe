/**
 * Postings: for each index term, the notes that hold it, as one varint byte list, and the map of
 * terms to lists (split into shards so no single insert or delete copies a vast table).
 */

/**
 * A string-keyed map (and set) split into `SHARDS` maps by a hash of the key. A single `Map` that
 * grows past 2^k entries copies its whole table in one call: at half a million entries that one
 * `set` held the event loop for 100 to 400 ms (bench/results/2026-12-06-write-turn.md), and a
 * delete that shrinks it does the same. Split, no table outgrows a few tens of thousands of
 * entries, so no single insert or delete is long however large the index. Iteration goes shard
 * by shard (entries set or deleted meanwhile are handled as a `Map`'s iterator handles them).
 */
const SHARDS = 64;

/** The shard of `key`: the top bits of its FNV-1a hash. */
function shardOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 26;
}

export class ShardedMap<V> {
  protected readonly shards: Map<string, V>[] = Array.from({ length: SHARDS }, () => new Map());

  get(key: string): V | undefined {
    return this.shards[shardOf(key)]!.get(key);
  }
  has(key: string): boolean {
    return this.shards[shardOf(key)]!.has(key);
  }
  set(key: string, value: V): this {
    this.shards[shardOf(key)]!.set(key, value);
    return this;
  }
  delete(key: string): boolean {
    return this.shards[shardOf(key)]!.delete(key);
  }
  clear(): void {
    for (const m of this.shards) m.clear();
  }
  get size(): number {
    let n = 0;
    for (const m of this.shards) n += m.size;
    return n;
  }
  *keys(): Generator<string> {
    for (const m of this.shards) yield* m.keys();
  }
  *values(): Generator<V> {
    for (const m of this.shards) yield* m.values();
  }
  *entries(): Generator<[string, V]> {
    for (const m of this.shards) yield* m.entries();
  }
  [Symbol.iterator](): Generator<[string, V]> {
    return this.entries();
  }
}

/** A string set split like `ShardedMap`. */
export class ShardedSet {
  private readonly map = new ShardedMap<true>();

  add(key: string): this {
    this.map.set(key, true);
    return this;
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  delete(key: string): boolean {
    return this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
  get size(): number {
    return this.map.size;
  }
  [Symbol.iterator](): Generator<string> {
    return this.map.keys();
  }
}

/** The buffer of a list with no postings yet (never written: `add` grows it before writing). */
const NO_BYTES = new Uint8Array(0);

/**
 * One term's postings: `(id - previous id, tf * 16 + field bits)` pairs as unsigned LEB128 varints in one
 * byte buffer (ids only grow, so deltas are small: 2 to 3 bytes a posting instead of 16 as a pair
 * of JS numbers). Bytes below `n` are never changed in place (growing and sweeping copy), so a
 * capture of `(b, n)` stays a consistent picture while the index goes on changing.
 */
export class Postings {
  b: Uint8Array;
  n = 0;
  count = 0;
  last = 0;
  // A new list starts on a shared empty buffer: its first `add` makes the one it needs (a buffer
  // of 8 made here was dropped at once, a typed array per new term for the collector).
  constructor(b: Uint8Array = NO_BYTES, n = 0, count = 0, last = 0) {
    this.b = b;
    this.n = n;
    this.count = count;
    this.last = last;
  }
  add(id: number, tf: number): void {
    if (this.n + 12 > this.b.length) {
      const next = new Uint8Array(Math.max(16, this.b.length * 2, this.n + 12));
      next.set(this.b.subarray(0, this.n));
      this.b = next;
    }
    this.n = writeVarint(this.b, writeVarint(this.b, this.n, id - this.last), tf);
    this.last = id;
    this.count++;
  }
}

/** A copy of `list` without the unused end of its buffer (growing doubles it). */
export const shrunk = (list: Postings) =>
  new Postings(list.b.slice(0, list.n), list.n, list.count, list.last);

/** How many of a list's postings `live` accepts. */
export function liveCount(list: Postings, live: (id: number) => boolean): number {
  let c = 0;
  eachPosting(list.b, list.n, (id) => {
    if (live(id)) c++;
  });
  return c;
}

function writeVarint(b: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    b[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  b[at++] = v;
  return at;
}

/** Calls `fn(id, tf)` for each posting of `b[0..n)`. */
export function eachPosting(b: Uint8Array, n: number, fn: (id: number, tf: number) => void): void {
  let at = 0;
  let id = 0;
  while (at < n) {
    let v = 0;
    let mul = 1;
    let c: number;
    do {
      c = b[at++]!;
      v += (c & 0x7f) * mul;
      mul *= 0x80;
    } while (c & 0x80);
    id += v;
    v = 0;
    mul = 1;
    do {
      c = b[at++]!;
      v += (c & 0x7f) * mul;
      mul *= 0x80;
    } while (c & 0x80);
    fn(id, v);
  }
}
