import type { HistoryStore } from '../../core/ports.ts';

/** The history in memory (tests, embedding): a growing pack and a journal string. */
export function memoryHistoryStore(): HistoryStore & { pack(): Uint8Array } {
  let pack = new Uint8Array(1024);
  let used = 0;
  let journal = '';
  // The journal's size in UTF-8, kept as it grows: encoding the whole journal at every size() (each
  // write asks it for the cap) made n writes cost n^2 (60,000 versions took 400 s).
  let journalBytes = 0;
  const utf8 = new TextEncoder();
  const grow = (need: number) => {
    if (need <= pack.length) return;
    const next = new Uint8Array(Math.max(need, pack.length * 2));
    next.set(pack.subarray(0, used));
    pack = next;
  };
  return {
    pack: () => pack.slice(0, used),
    async appendBlob(bytes) {
      grow(used + bytes.length);
      pack.set(bytes, used);
      used += bytes.length;
      return used - bytes.length;
    },
    async readBlob(offset, length) {
      if (offset < 0 || offset + length > used) return null;
      return pack.slice(offset, offset + length);
    },
    async appendJournal(text) {
      journal += text;
      journalBytes += utf8.encode(text).length;
    },
    async readJournal() {
      return journal;
    },
    async replace(pieces, text) {
      const parts: Uint8Array[] = [];
      let n = 0;
      for await (const p of pieces) {
        parts.push(p);
        n += p.length;
      }
      const next = new Uint8Array(Math.max(1024, n));
      let o = 0;
      for (const p of parts) {
        next.set(p, o);
        o += p.length;
      }
      const nextJournal = text(); // before the switch: if it throws, the old pair stays
      pack = next;
      used = n;
      journal = nextJournal;
      journalBytes = utf8.encode(nextJournal).length;
    },
    async size() {
      return used + journalBytes;
    },
  };
}
