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
const boundary = (path: string): boolean => {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SPREAD === 0;
};

interface Chunk {
  items: readonly NoteSummary[];
  first: boolean;
  json: Uint8Array;
  part?: DeflatedPart;
  /** The chunk before this one when `part` was made: its bytes primed the compressor. */
  partAfter?: Chunk | null;
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
  const deflate = (z: Zlib, bytes: Uint8Array, last: boolean, history?: Uint8Array): DeflatedPart => ({
    deflated: z.deflateRawSync(bytes, {
      level: 6,
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

  const rebuild = (items: readonly NoteSummary[]) => {
    const old = new Map<string, Chunk>();
    for (const ch of chunks) old.set(`${ch.first ? '^' : ''}${ch.items[0]!.path}`, ch);
    const next: Chunk[] = [];
    let start = 0;
    for (let i = 0; i < items.length; i++) {
      if (i + 1 < items.length && i + 1 - start < MAX_CHUNK && !boundary(items[i]!.path)) continue;
      const slice = items.slice(start, i + 1);
      const first = start === 0;
      const prev = old.get(`${first ? '^' : ''}${slice[0]!.path}`);
      if (prev && prev.items.length === slice.length && prev.items.every((s, k) => s === slice[k])) {
        next.push(prev);
      } else {
        const text = (first ? '' : ',') + slice.map((s) => JSON.stringify(s)).join(',');
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
        let before: Chunk | null = null;
        for (const ch of chunks) {
          if (!ch.part || ch.partAfter !== before) {
            ch.part = deflate(z, ch.json, false, before?.json);
            ch.partAfter = before;
          }
          before = ch;
        }
        gzip = assembleGzip([ends.head, ...chunks.map((ch) => ch.part!), ends.tail]);
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

    /** How many chunks the list has now (for tests). */
    chunkCount(): number {
      return chunks.length;
    },
  };
}

export type CompressedList = ReturnType<typeof createCompressedList>;
