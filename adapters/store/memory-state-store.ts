import type { StateStore } from '../../core/ports.ts';

/** State in memory, for tests and embedding. */
export function memoryStateStore(): StateStore {
  const m = new Map<string, string>();
  const bins = new Map<string, Uint8Array>();
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
      bins.delete(key);
    },
    async putBytes(key, pieces) {
      const parts: Uint8Array[] = [];
      let size = 0;
      for await (const p of pieces) {
        parts.push(p.slice());
        size += p.length;
      }
      const all = new Uint8Array(size);
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      bins.set(key, all);
    },
    async getRange(key, offset, length) {
      const b = bins.get(key);
      return b ? b.slice(offset, offset + length) : null;
    },
    async byteSize(key) {
      return bins.get(key)?.length ?? null;
    },
  };
}
