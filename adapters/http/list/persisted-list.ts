/**
 * The gzip'd note list kept next to the index snapshot, so that a warm start answers
 * its first `GET /notes` from the deflated chunks of the last run instead of deflating 18 MB
 * (10,000 notes) again.
 *
 * The whole list is answered as kept only when it was made from an index with exactly the
 * summary inputs of the index loaded now: the file carries the list key (core/notes/list-key.ts,
 * a SHA-256 of every note's path, checksum, mtime and first-seen time and the vault's other files)
 * of the index it was encoded from, and the server compares it with the key of its own index
 * before building a single summary. Otherwise a chunk is used only when the list serialized from
 * the index loaded now has a chunk with exactly its bytes (named by their SHA-256), after exactly
 * the chunk it followed when it was deflated (its compressor was primed with that chunk's end). A
 * note changed while the server was down changes the key and its chunk's bytes, so that chunk
 * (and the one after it) is deflated again; a damaged or truncated file fails its CRC and is
 * ignored whole. Layout (little endian):
 *
 * - `QLST`, version (2), chunk count n, deflate level, the list key (32 bytes; zeros: none);
 * - n entries of 32 bytes: notes in the chunk, JSON length, CRC-32 of the JSON, deflated length,
 *   the first 16 bytes of the JSON's SHA-256;
 * - the deflated chunks, in order;
 * - the CRC-32 of everything before it.
 */
import type { StateStore } from '../../../core/ports.ts';
import { crc32 } from './gzip-parts.ts';

/** The state store key of the persisted list (a file next to `index-snapshot.bin`). */
export const LIST_KEY = 'list-gzip.bin';
const MAGIC = 0x5453_4c51; // 'QLST' little endian
const VERSION = 2;
const KEY_BYTES = 32;
/** Header bytes before the key, and with it. */
const HEAD_FIELDS = 16;
const HEADER = HEAD_FIELDS + KEY_BYTES;
const ENTRY = 32;
/** A file larger than this is not read (no vault's list comes near it). */
const MAX_BYTES = 1 << 30;

/** One persisted chunk: what it holds and its deflated bytes. */
export interface PersistedChunk {
  items: number;
  length: number;
  crc: number;
  /** First 16 bytes of the SHA-256 of the chunk's JSON, as hex. */
  sha: string;
  deflated: Uint8Array;
}

/** A persisted list: its chunks, and the list key of the index it was made from (null: not known). */
export interface PersistedList {
  chunks: PersistedChunk[];
  key: string | null;
}

/** Where the list is kept; absent where the state store has no binary values. */
export interface ListStore {
  load(crc?: Crc32): Promise<PersistedList | null>;
  /**
   * Writes the list once it is known (null: nothing to write). Called at once when a save
   * begins, so that `settled` covers it from the start.
   */
  save(level: number, list: Promise<PersistedList | null>, crc?: Crc32): Promise<void>;
  /** Resolves once no save is in flight (a stop waits for it: the next start needs the file). */
  settled(): Promise<void>;
}

/** CRC-32 of `bytes` continuing from `value` (zlib's native one where the runtime has it). */
export type Crc32 = (bytes: Uint8Array, value?: number) => number;

type NodeCrypto = typeof import('node:crypto');
let nodeCrypto: Promise<NodeCrypto | null> | undefined;

/**
 * The SHA-256 of `bytes`, first 16 bytes as hex: `node:crypto` where the runtime has it (Web
 * Crypto's digest cost 8x more of the event loop in Node 20: it copies every input), else Web Crypto.
 */
export async function chunkSha(bytes: Uint8Array): Promise<string> {
  nodeCrypto ??= import('node:crypto').catch(() => null);
  const c = await nodeCrypto;
  if (c) return c.createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let s = '';
  for (let i = 0; i < 16; i++) s += d[i]!.toString(16).padStart(2, '0');
  return s;
}

const shaBytes = (hex: string): Uint8Array => {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
};
const shaHex = (b: Uint8Array): string => {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
};

const keyBytes = (hex: string): Uint8Array => {
  const out = new Uint8Array(KEY_BYTES);
  if (/^[0-9a-f]{64}$/.test(hex))
    for (let i = 0; i < KEY_BYTES; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
};

/** The record's bytes, as pieces (header and entries, then each deflated chunk, then the CRC). */
export function encodePersistedList(level: number, list: PersistedList, crcOf: Crc32 = crc32): Uint8Array[] {
  const { chunks } = list;
  const head = new Uint8Array(HEADER + ENTRY * chunks.length);
  const view = new DataView(head.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, chunks.length, true);
  view.setUint32(12, level, true);
  if (list.key) head.set(keyBytes(list.key), HEAD_FIELDS);
  chunks.forEach((ch, i) => {
    const at = HEADER + ENTRY * i;
    view.setUint32(at, ch.items, true);
    view.setUint32(at + 4, ch.length, true);
    view.setUint32(at + 8, ch.crc >>> 0, true);
    view.setUint32(at + 12, ch.deflated.length, true);
    head.set(shaBytes(ch.sha), at + 16);
  });
  let crc = crcOf(head);
  for (const ch of chunks) crc = crcOf(ch.deflated, crc);
  const trailer = new Uint8Array(4);
  new DataView(trailer.buffer).setUint32(0, crc, true);
  return [head, ...chunks.map((ch) => ch.deflated), trailer];
}

/**
 * The chunks and key of a record, or null when it is not one (wrong magic or
 * version, truncated, damaged).
 */
export function decodePersistedList(bytes: Uint8Array, crcOf: Crc32 = crc32): PersistedList | null {
  if (bytes.length < HEADER + 4) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (view.getUint32(0, true) !== MAGIC || version !== VERSION) return null;
  const n = view.getUint32(8, true);
  const body = HEADER + ENTRY * n;
  if (body + 4 > bytes.length) return null;
  const end = bytes.length - 4;
  if (crcOf(bytes.subarray(0, end)) >>> 0 !== view.getUint32(end, true)) return null;
  const out: PersistedChunk[] = [];
  let at = body;
  for (let i = 0; i < n; i++) {
    const e = HEADER + ENTRY * i;
    const size = view.getUint32(e + 12, true);
    if (at + size > end) return null;
    out.push({
      items: view.getUint32(e, true),
      length: view.getUint32(e + 4, true),
      crc: view.getUint32(e + 8, true),
      sha: shaHex(bytes.subarray(e + 16, e + 32)),
      deflated: bytes.subarray(at, at + size),
    });
    at += size;
  }
  if (at !== end) return null;
  const key = bytes.subarray(HEAD_FIELDS, HEADER);
  return { chunks: out, key: key.some((b) => b !== 0) ? shaHex(key) : null };
}

/** The list kept in `state` under LIST_KEY; undefined when the store cannot hold binary values. */
export function stateListStore(state: StateStore | undefined): ListStore | undefined {
  if (!state?.putBytes || !state.getRange || !state.byteSize) return undefined;
  const { putBytes, getRange, byteSize } = state;
  const inFlight = new Set<Promise<void>>();
  return {
    async load(crc) {
      try {
        const size = await byteSize.call(state, LIST_KEY);
        if (size === null || size > MAX_BYTES) return null;
        const bytes = await getRange.call(state, LIST_KEY, 0, size);
        return bytes ? decodePersistedList(bytes, crc) : null;
      } catch {
        return null;
      }
    },
    save(level, list, crc) {
      const done = (async () => {
        const all = await list;
        if (!all) return;
        const pieces = encodePersistedList(level, all, crc);
        await putBytes.call(
          state,
          LIST_KEY,
          (async function* () {
            yield* pieces;
          })(),
        );
      })();
      const tracked = done.catch(() => {});
      inFlight.add(tracked);
      void tracked.finally(() => inFlight.delete(tracked));
      return done;
    },
    async settled() {
      while (inFlight.size) await Promise.all(inFlight);
    },
  };
}
