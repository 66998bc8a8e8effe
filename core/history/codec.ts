/**
 * The history's on-store format: compressed blobs (web-standard CompressionStream, on every
 * runtime the core supports) and the journal's JSON lines.
 */

/** Where a blob's bytes lie in the pack, and whether they are deflated. */
export interface BlobLoc {
  o: number;
  l: number;
  /** 1 when deflate-raw compressed. */
  z: 0 | 1;
}

/** What caused a version (`change` of a version item). */
export type ChangeKind =
  | 'create'
  | 'update'
  | 'patch'
  | 'move'
  | 'delete'
  | 'restore'
  | 'links'
  | 'outside'
  | 'baseline';

/** One journal line. `v` a version, `m` a move, `x` a trash item, `u` a trash item gone. */
export type JournalRecord =
  | ({
      t: 'v';
      id: string;
      p: string;
      at: number;
      size: number;
      sum: string;
      by: string;
      ch: ChangeKind;
    } & BlobLoc)
  | { t: 'm'; from: string; to: string; at: number }
  | ({
      t: 'x';
      id: string;
      p: string;
      kind: 'note' | 'file';
      at: number;
      by: string;
      size: number;
      sum: string;
      /** Where its copy lies in the vault's `.trash/` (TRASH_DIR=vault). */
      c?: string;
    } & BlobLoc)
  | { t: 'u'; id: string };

/** Blobs shorter than this are kept as they are (deflate would not pay for its header). */
const MIN_COMPRESS = 96;

async function through(
  bytes: Uint8Array,
  stream: CompressionStream | DecompressionStream,
): Promise<Uint8Array> {
  const out = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

/**
 * The bytes to store for `bytes`, and whether they are compressed (only when it saves space).
 * Writes store blobs as they are (no compression on the write's path); compaction packs them.
 */
export async function packBlob(bytes: Uint8Array): Promise<{ data: Uint8Array; z: 0 | 1 }> {
  if (bytes.length < MIN_COMPRESS) return { data: bytes, z: 0 };
  const data = await through(bytes, new CompressionStream('deflate-raw'));
  return data.length < bytes.length ? { data, z: 1 } : { data: bytes, z: 0 };
}

/** The original bytes of a stored blob. */
export function unpackBlob(data: Uint8Array, z: 0 | 1): Promise<Uint8Array> {
  return z ? through(data, new DecompressionStream('deflate-raw')) : Promise.resolve(data);
}

/** The journal's records; a torn or unreadable line (a crash mid-append) is skipped. */
export function parseJournal(text: string): JournalRecord[] {
  const out: JournalRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const r = JSON.parse(line) as JournalRecord;
      if (r && typeof r === 'object' && typeof r.t === 'string') out.push(r);
    } catch {
      // torn tail
    }
  }
  return out;
}
