import type { StateStore } from '../../core/ports.ts';

/** The part of a Cloudflare Workers KV binding (`env.STATE`) this store uses. */
export interface KvNamespaceLike {
  get(key: string, type: 'text'): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Workers KV refuses values over 25 MiB. */
export const KV_MAX_VALUE_BYTES = 25 * 1024 * 1024;

/**
 * Server state (credentials, the index cache) in a Workers KV namespace, one KV key per state
 * key under `prefix`. A KV put replaces the whole value, so readers see the old or the new text.
 * KV is eventually consistent between locations (a write shows elsewhere within about 60 s);
 * the Worker reads and writes it from its one Durable Object, which stays in one location.
 * A value over KV's limit is refused with an error naming the key.
 */
export function kvStateStore(opts: { kv: KvNamespaceLike; prefix?: string }): StateStore {
  const { kv } = opts;
  const prefix = opts.prefix ?? 'quire:';
  return {
    get(key) {
      return kv.get(prefix + key, 'text');
    },
    async put(key, value) {
      // A UTF-8 byte is at most 3 per UTF-16 unit; measure only when it could matter.
      if (
        value.length * 3 > KV_MAX_VALUE_BYTES &&
        new TextEncoder().encode(value).length > KV_MAX_VALUE_BYTES
      ) {
        throw new Error(`kvStateStore: "${key}" is over the 25 MiB a KV value may hold.`);
      }
      await kv.put(prefix + key, value);
    },
    remove(key) {
      return kv.delete(prefix + key);
    },
  };
}
