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
