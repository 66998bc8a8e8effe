import type { KeyValueStorage } from '../../client-link/src/flow/profiles.ts';

/** A Map behind the localStorage interface; `failWrites` plays a browser that refuses to store. */
export function memoryStorage(
  init: Record<string, string> = {},
  failWrites = false,
): KeyValueStorage & {
  data: Map<string, string>;
} {
  const data = new Map(Object.entries(init));
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => {
      if (failWrites) throw new Error('QuotaExceededError');
      data.set(k, v);
    },
  };
}
