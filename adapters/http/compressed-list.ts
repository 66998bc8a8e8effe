import type { NoteSummary } from '../../core/notes/note-index.ts';
import { assembleGzip, crc32, type DeflatedPart } from './gzip-parts.ts';

type Zlib = typeof import('node:zlib');

let zlibModule: Zlib | null | undefined;

/**
 * `node:zlib` when the runtime has it (Node, Bun, Deno, workerd with nodejs_compat), else null:
 * answers are then sent uncompressed. Loaded on first use, so the HTTP adapter has no static
 * platform import.
 */
export async function loadZlib(): Promise<Zlib | null> {
  if (zlibModule === undefined) {
    try {
      zlibModule = await import('node:zlib');
    } catch {
      zlibModule = null;
    }
  }
  return zlibModule;
}

/** The encoding to answer `c` with: br, gzip or identity (always identity when the app does not compress). */
export function answerEncoding(c: {
  get: (key: 'compress') => boolean | undefined;
  req: { header: (name: string) => string | undefined };
}): 'br' | 'gzip' | 'identity' {
  return c.get('compress') === false ? 'identity' : pickEncoding(c.req.header('accept-encoding'));
}

/** The encoding to answer with for an `Accept-Encoding` header: br, gzip or identity. */
export function pickEncoding(header: string | undefined): 'br' | 'gzip' | 'identity' {
  if (!header) return 'identity';
  let br = false;
  let gzip = false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (name === 'br') br = true;
    else if (name === 'gzip' || name === 'x-gzip' || name === '*') gzip = true;
  }
  return br ? 'br' : gzip ? 'gzip' : 'identity';
}

const HEAD = '{"success":true,"data":[';
const TAIL = ']}';
/** A chunk ends after a note whose path hashes to 0 modulo this (about 32 notes a chunk). */
const SPREAD = 32;
const MAX_CHUNK = 512;
const encoder = new TextEncoder();

/** FNV-1a of a path: chunk boundaries depend on paths only, so a write touches one chunk. */
const isBoundary = (path: string): boolean => {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SPREAD === 0;
};
/** Deflate level of the first build and of the polish; a chunk redone after a write uses FAST_LEVEL. */
const LEVEL = 6;
const FAST_LEVEL = 1;
/** Quiet time after the last rebuild before chunks deflated at FAST_LEVEL are deflated again at LEVEL. */
const POLISH_AFTER_MS = 2000;

interface Chunk {
  items: readonly NoteSummary[];
  first: boolean;
  json: Uint8Array;
  part?: DeflatedPart;
  /** The chunk before this one when `part` was made: its bytes primed the compressor. */
  partAfter?: Chunk | null;
  /** `part` was made at FAST_LEVEL (a write's redo), to be polished at LEVEL when writes pause. */
  fast?: boolean;
}

/** Deflate's window: a chunk is compressed with this much of the previous chunk as history. */
const WINDOW = 32 * 1024;

/**
 * The body of `GET /notes` in the spec's shape, kept in content-defined chunks of summaries.
 * After a write only the chunk holding the changed summaries (they are new objects; the index
 * keeps unchanged ones) is serialized and deflated again; the gzip answer is the chunks joined.
 * Built once per index generation and shared by every connection.
 */
export function createCompressedList() {
  let generation = -1;
  let chunks: Chunk[] = [];
  let identity: Uint8Array<ArrayBuffer> | null = null;
  let gzip: Uint8Array<ArrayBuffer> | null = null;
  let brotli: { generation: number; body: Uint8Array<ArrayBuffer> } | null = null;
  let brotliRunning = -1;
  let ends: { head: DeflatedPart; tail: DeflatedPart } | null = null;

  // A chunk's compressor is primed with the end of the chunk before it (the bytes that precede it
  // in the answer), so back-references reach across chunks as in one stream; a chunk is redone when
  // it or the chunk before it changed.
  const deflate = (
    z: Zlib,
    bytes: Uint8Array,
    last: boolean,
    history?: Uint8Array,
    level = LEVEL,
  ): DeflatedPart => ({
    deflated: z.deflateRawSync(bytes, {
      level,
      memLevel: 9,
      finishFlush: last ? z.constants.Z_FINISH : z.constants.Z_SYNC_FLUSH,
      ...(history?.length ? { dictionary: history.subarray(Math.max(0, history.length - WINDOW)) } : {}),
    }),
    crc: typeof z.crc32 === 'function' ? z.crc32(bytes) : crc32(bytes),
    length: bytes.length,
  });

  /** `deflate` on the thread pool: the event loop only computes the CRC. */
  const deflateAsync = (z: Zlib, bytes: Uint8Array, history?: Uint8Array): Promise<DeflatedPart> =>
    new Promise((resolve, reject) => {
      z.deflateRaw(
        bytes,
        {
          level: 6,
          memLevel: 9,
          finishFlush: z.constants.Z_SYNC_FLUSH,
          ...(history?.length ? { dictionary: history.subarray(Math.max(0, history.length - WINDOW)) } : {}),
        },
        (err, out) => {
          if (err) reject(err);
          else
            resolve({
              deflated: out,
              crc: typeof z.crc32 === 'function' ? z.crc32(bytes) : crc32(bytes),
              length: bytes.length,
            });
        },
      );
    });

  // Per summary object (the index makes a new one when a note changes): its JSON, and whether a
  // chunk ends after it. A write re-serializes only the summaries it changed.
  const json = new WeakMap<NoteSummary, string>();
  const boundaries = new Map<string, boolean>();
  const serialize = (s: NoteSummary) => {
    let text = json.get(s);
    if (text === undefined) {
      text = JSON.stringify(s);
      json.set(s, text);
    }
    return text;
  };
  const boundary = (path: string) => {
    let b = boundaries.get(path);
    if (b === undefined) {
      b = isBoundary(path);
      boundaries.set(path, b);
    }
    return b;
  };
  let polishTimer: ReturnType<typeof setTimeout> | null = null;
  let polishWith: Zlib | null = null;
  /** Deflates the chunks a write redid at FAST_LEVEL again at LEVEL (same bytes once inflated). */
  const polish = () => {
    polishTimer = null;
    const z = polishWith;
    if (!z) return;
    let any = false;
    for (const ch of chunks) {
      if (!ch.fast || !ch.part) continue;
      ch.part = deflate(z, ch.json, false, ch.partAfter?.json);
      ch.fast = false;
      any = true;
    }
    if (any) gzip = null;
  };

  const rebuild = (items: readonly NoteSummary[]) => {
    if (boundaries.size > 2 * items.length + 1024) boundaries.clear();
    const old = new Map<string, Chunk>();
    for (const ch of chunks) old.set(ch.first ? `^${ch.items[0]!.path}` : ch.items[0]!.path, ch);
    const next: Chunk[] = [];
    let start = 0;
    for (let i = 0; i < items.length; i++) {
      if (i + 1 < items.length && i + 1 - start < MAX_CHUNK && !boundary(items[i]!.path)) continue;
      const first = start === 0;
      const prev = old.get(first ? `^${items[start]!.path}` : items[start]!.path);
      let same = prev !== undefined && prev.items.length === i + 1 - start;
      for (let k = start; same && k <= i; k++) same = prev!.items[k - start] === items[k];
      if (same) {
        next.push(prev!);
      } else {
        const slice = items.slice(start, i + 1);
        const text = (first ? '' : ',') + slice.map(serialize).join(',');
        next.push({ items: slice, first, json: encoder.encode(text) });
      }
      start = i + 1;
    }
    chunks = next;
    identity = null;
    gzip = null;
  };

  return {
    /** Brings the chunks up to `gen` (a no-op when they are there already). */
    update(gen: number, items: readonly NoteSummary[]): void {
      if (gen === generation) return;
      rebuild(items);
      generation = gen;
    },

    /** The uncompressed answer. */
    identity(): Uint8Array<ArrayBuffer> {
      if (!identity) {
        const head = encoder.encode(HEAD);
        const tail = encoder.encode(TAIL);
        let size = head.length + tail.length;
        for (const ch of chunks) size += ch.json.length;
        const out = new Uint8Array(size);
        out.set(head, 0);
        let at = head.length;
        for (const ch of chunks) {
          out.set(ch.json, at);
          at += ch.json.length;
        }
        out.set(tail, at);
        identity = out;
      }
      return identity;
    },

    /** The gzip answer: only chunks not deflated yet are deflated. */
    gzip(z: Zlib): Uint8Array<ArrayBuffer> {
      if (!gzip) {
        ends ??= {
          head: deflate(z, encoder.encode(HEAD), false),
          tail: deflate(z, encoder.encode(TAIL), true),
        };
        // The first build deflates every chunk at LEVEL; after that, the chunks a write changed (and
        // the chunk after each, primed with their bytes) are deflated at FAST_LEVEL and polished at
        // LEVEL once writes pause: the first list after a write costs a few ms, not tens.
        const fresh = chunks.every((ch) => !ch.part);
        let before: Chunk | null = null;
        let fast = false;
        for (const ch of chunks) {
          if (!ch.part || ch.partAfter !== before) {
            ch.part = deflate(z, ch.json, false, before?.json, fresh ? LEVEL : FAST_LEVEL);
            ch.partAfter = before;
            ch.fast = !fresh;
            fast ||= !fresh;
          }
          before = ch;
        }
        gzip = assembleGzip([ends.head, ...chunks.map((ch) => ch.part!), ends.tail]);
        if (fast) {
          polishWith = z;
          if (polishTimer) clearTimeout(polishTimer);
          polishTimer = setTimeout(polish, POLISH_AFTER_MS);
          (polishTimer as { unref?: () => void }).unref?.();
        }
      }
      return gzip;
    },

    /**
     * The same gzip answer, with the chunks not deflated yet deflated on the thread pool, in
     * parallel (after a start that is every chunk: 10,000 notes took 0.3 to 0.6 s of the event loop
     * when deflated in place). A write meanwhile does not change this answer (it is the version
     * the caller's ETag names); it is kept only when it is still the current one.
     */
    async gzipAsync(z: Zlib): Promise<Uint8Array<ArrayBuffer>> {
      if (gzip) return gzip;
      ends ??= {
        head: deflate(z, encoder.encode(HEAD), false),
        tail: deflate(z, encoder.encode(TAIL), true),
      };
      const mine = chunks;
      const parts: (DeflatedPart | Promise<DeflatedPart>)[] = [];
      let before: Chunk | null = null;
      for (const ch of mine) {
        if (ch.part && ch.partAfter === before) parts.push(ch.part);
        else {
          const after = before;
          parts.push(
            deflateAsync(z, ch.json, after?.json).then((part) => {
              ch.part = part;
              ch.partAfter = after;
              return part;
            }),
          );
        }
        before = ch;
      }
      const done = await Promise.all(parts);
      const body = assembleGzip([ends.head, ...done, ends.tail]);
      if (chunks === mine) gzip = body;
      return body;
    },

    /**
     * The brotli answer for the current generation, or null while it is being compressed in the
     * background (off the event loop); the caller answers gzip meanwhile.
     */
    brotli(z: Zlib): Uint8Array<ArrayBuffer> | null {
      if (brotli?.generation === generation) return brotli.body;
      // One compression at a time: under a stream of writes only the latest version is done next.
      if (brotliRunning === -1) {
        const gen = generation;
        brotliRunning = gen;
        z.brotliCompress(
          this.identity(),
          { params: { [z.constants.BROTLI_PARAM_QUALITY]: 5 } },
          (err, out) => {
            if (brotliRunning === gen) brotliRunning = -1;
            if (!err && gen === generation) brotli = { generation: gen, body: new Uint8Array(out) };
          },
        );
      }
      return null;
    },

    /** Deflates the chunks a write redid at the full level now (for tests; otherwise after a pause). */
    polishNow(): void {
      if (polishTimer) clearTimeout(polishTimer);
      polish();
    },

    /** How many chunks deflated at the fast level wait for the polish (for tests). */
    fastChunks(): number {
      return chunks.filter((ch) => ch.fast).length;
    },

    /** How many chunks the list has now (for tests). */
    chunkCount(): number {
      return chunks.length;
    },
  };
}

export type CompressedList = ReturnType<typeof createCompressedList>;
