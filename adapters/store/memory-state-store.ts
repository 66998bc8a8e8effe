import type { StateStore } from '../../core/ports.ts';

const encoder = new TextEncoder();

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
      bins.delete(key);
    },
    async append(key, value) {
      m.set(key, (m.get(key) ?? '') + value);
      bins.delete(key);
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
      m.delete(key);
    },
    // A text value has bytes too (its UTF-8), as a file does.
    async getRange(key, offset, length) {
      const t = m.get(key);
      const b = bins.get(key) ?? (t === undefined ? undefined : encoder.encode(t));
      return b ? b.slice(offset, offset + length) : null;
    },
    async byteSize(key) {
      const t = m.get(key);
      return bins.get(key)?.length ?? (t === undefined ? null : encoder.encode(t).length);
    },
  };
}
