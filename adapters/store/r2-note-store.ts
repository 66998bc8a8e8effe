import type { Clock, FileInfo, NoteStore } from '../../core/ports.ts';

/** One object as an R2 binding describes it (the members this store uses). */
export interface R2ObjectLike {
  key: string;
  size: number;
  uploaded: Date;
  customMetadata?: Record<string, string>;
}

/** The part of a Cloudflare R2 bucket binding (`env.NOTES`) this store uses. */
export interface R2BucketLike {
  head(key: string): Promise<R2ObjectLike | null>;
  get(key: string): Promise<(R2ObjectLike & { arrayBuffer(): Promise<ArrayBuffer> }) | null>;
  put(
    key: string,
    value: ArrayBuffer | Uint8Array,
    options?: { customMetadata?: Record<string, string> },
  ): Promise<R2ObjectLike | null>;
  delete(keys: string | string[]): Promise<void>;
  list(options?: {
    prefix?: string;
    cursor?: string;
    limit?: number;
    include?: ('customMetadata' | 'httpMetadata')[];
  }): Promise<{ objects: R2ObjectLike[]; truncated: boolean; cursor?: string }>;
}

/** Folders are empty objects named `<folder>/`, so a folder outlives its last note, as on disk. */
const MARKER = '/';
const isHidden = (key: string) => key.split('/').some((s) => s.startsWith('.'));
const isNote = (key: string) => key.toLowerCase().endsWith('.md') && !isHidden(key);

/**
 * The vault in an R2 bucket, one object per note under its vault path. R2 is strongly
 * consistent, so a read after a write sees it from anywhere. The modification time is kept in
 * the object's metadata (`mtime`, ms), always moving forward within this store; objects put by
 * other tools (rclone, wrangler) fall back to their upload time. A move is a copy then a delete:
 * not atomic against a crash between the two (the note then exists twice), which is why the
 * Worker serializes every write through one Durable Object.
 */
export function r2NoteStore(opts: {
  bucket: R2BucketLike;
  clock?: Clock;
  /** Keys of this vault start with it (default none: the whole bucket). */
  prefix?: string;
  /** Objects per list call (R2's maximum, 1,000, by default). */
  listPageSize?: number;
}): NoteStore {
  const { bucket } = opts;
  const clock = opts.clock ?? { now: () => Date.now() };
  const prefix = opts.prefix ?? '';
  const knownFolders = new Set<string>();
  let last = 0;
  const tick = () => {
    last = Math.max(last + 1, clock.now());
    return last;
  };
  const info = (path: string, o: R2ObjectLike): FileInfo => {
    const m = Number(o.customMetadata?.mtime);
    return { path, size: o.size, mtimeMs: Number.isFinite(m) && m > 0 ? m : o.uploaded.getTime() };
  };
  const ensureFolders = async (path: string) => {
    const parts = path.split('/');
    const missing: string[] = [];
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (!knownFolders.has(folder)) missing.push(folder);
    }
    await Promise.all(missing.map((f) => bucket.put(prefix + f + MARKER, new Uint8Array(0))));
    for (const f of missing) knownFolders.add(f);
  };
  const listAll = async (): Promise<R2ObjectLike[]> => {
    const out: R2ObjectLike[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({
        prefix,
        cursor,
        limit: opts.listPageSize,
        include: ['customMetadata'],
      });
      out.push(...page.objects);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out;
  };
  const put = async (path: string, bytes: Uint8Array, mtimeMs: number): Promise<FileInfo> => {
    await ensureFolders(path);
    // A copy: the caller may reuse its buffer once this resolves.
    await bucket.put(prefix + path, bytes.slice(), { customMetadata: { mtime: String(mtimeMs) } });
    return { path, size: bytes.length, mtimeMs };
  };

  return {
    async read(path) {
      const o = await bucket.get(prefix + path);
      return o ? new Uint8Array(await o.arrayBuffer()) : null;
    },
    async stat(path) {
      const o = await bucket.head(prefix + path);
      return o ? info(path, o) : null;
    },
    write(path, bytes) {
      return put(path, bytes, tick());
    },
    async move(from, to) {
      const src = await bucket.get(prefix + from);
      if (!src) throw new Error(`r2NoteStore.move: no file at ${from}`);
      if (await bucket.head(prefix + to)) throw new Error(`r2NoteStore.move: ${to} exists`);
      const moved = await put(to, new Uint8Array(await src.arrayBuffer()), info(from, src).mtimeMs);
      await bucket.delete(prefix + from);
      return moved;
    },
    async remove(path) {
      if (!(await bucket.head(prefix + path))) return false;
      await bucket.delete(prefix + path);
      return true;
    },
    async list() {
      const out: FileInfo[] = [];
      for (const o of await listAll()) {
        const path = o.key.slice(prefix.length);
        if (isNote(path)) out.push(info(path, o));
      }
      return out;
    },
    async listFolders() {
      const folders = new Set<string>();
      for (const o of await listAll()) {
        const path = o.key.slice(prefix.length);
        if (isHidden(path)) continue;
        const parts = path.split('/');
        // A marker `a/b/` splits into ['a', 'b', '']: its own folder is among its parents.
        for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
      }
      for (const f of folders) knownFolders.add(f);
      return [...folders];
    },
  };
}
