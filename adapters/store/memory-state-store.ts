import type { StateStore } from '../../core/ports.ts';

/** State in memory, for tests and embedding. */
export function memoryStateStore(): StateStore {
  const m = new Map<string, string>();
  return {
    async get(key) {
      return m.get(key) ?? null;
    },
    async put(key, value) {
      m.set(key, value);
    },
    async append(key, value) {
      m.set(key, (m.get(key) ?? '') + value);
    },
    async remove(key) {
      m.delete(key);
    },
  };
}
