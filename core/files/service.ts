import { DomainError } from '../errors.ts';
import type { History } from '../history/history.ts';
import { freePath as freeRestorePath } from '../notes/free-path.ts';
import { validateNotePath } from '../paths.ts';
import type { ByteRange, Clock, FileInfo, FileStore } from '../ports.ts';
import { attachmentFolder, freePath, parseAttachmentRule } from './attachment-folder.ts';
import { contentTypeOf } from './content-types.ts';
import { validateFilePath } from './paths.ts';
import { parseRange } from './range.ts';

/** An attachment as the API describes it. */
export interface FileMeta {
  path: string;
  size: number;
  /** Last modification, ISO 8601 UTC. */
  updatedAt: string;
  contentType: string;
  /** Strong validator from size and mtime (hashing every large file on each GET would not scale). */
  etag: string;
}

/** What a GET answers: the whole file, one range of it, or nothing when the range cannot be met. */
export type FileRead =
  | { kind: 'full'; meta: FileMeta; body: ReadableStream<Uint8Array> }
  | { kind: 'partial'; meta: FileMeta; range: ByteRange; body: ReadableStream<Uint8Array> }
  | { kind: 'unsatisfiable'; meta: FileMeta };

export interface FileServiceDeps {
  store: FileStore;
  clock?: Clock;
  /** Largest upload in bytes (MAX_FILE_BYTES, default 100 MiB). */
  maxBytes?: number;
  /**
   * How long the attachment listing (folder tree) is reused before the vault is walked again, in
   * ms (default 2,000). This service's own writes keep it current meanwhile; a walk picks up
   * changes made outside it.
   */
  listTtlMs?: number;
  /** How long a list waits for a new walk before it answers the last listing (ms, default 250). */
  listWaitMs?: number;
  /** Keeps versions of attachments (up to its size limit) and trashes deleted ones. */
  history?: History;
}

export const DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024;

const etagOf = (info: FileInfo) =>
  `"f-${info.size.toString(36)}-${Math.round(info.mtimeMs * 1000).toString(36)}"`;

/** True when an `If-Match` / `If-None-Match` list names `etag` (or is `*` and the file exists). */
export function etagMatches(header: string, etag: string | null): boolean {
  if (etag === null) return false;
  return header.split(',').some((t) => {
    const s = t.trim();
    return s === '*' || s === etag || s === `W/${etag}`;
  });
}

/** The attachments service: validation, preconditions, ranges and the listing cache over a FileStore. */
export function createFileService(deps: FileServiceDeps) {
  const { store } = deps;
  const clock = deps.clock ?? { now: () => Date.now() };
  const maxBytes = deps.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const ttl = deps.listTtlMs ?? 2_000;
  const listWaitMs = deps.listWaitMs ?? 250;
  /** The attachments as last listed, kept current by this service's writes; null before the first walk. */
  let known: { at: number; files: Map<string, FileInfo> } | null = null;
  /** The walk in progress, and the writes made here since it began (applied to what it finds). */
  type Walk = { done: Promise<Map<string, FileInfo>>; changes: [string, FileInfo | null][] };
  let walk: Walk | null = null;
  const locks = new Map<string, Promise<unknown>>();

  /** Records one write of this service in the listing (and in the walk under way, if any). */
  const changed = (path: string, info: FileInfo | null) => {
    if (known) {
      if (info) known.files.set(path, info);
      else known.files.delete(path);
    }
    walk?.changes.push([path, info]);
  };

  /** Walks the vault once (one walk at a time); the result replaces the listing. */
  const walkVault = (): Promise<Map<string, FileInfo>> => {
    if (walk) return walk.done;
    const at = clock.now();
    const w: Walk = { changes: [], done: Promise.resolve(new Map()) };
    w.done = store
      .list()
      .then((list) => {
        const files = new Map(list.map((f): [string, FileInfo] => [f.path, f]));
        for (const [p, info] of w.changes) {
          if (info) files.set(p, info);
          else files.delete(p);
        }
        known = { at, files };
        return files;
      })
      .finally(() => {
        if (walk === w) walk = null;
      });
    walk = w;
    return w.done;
  };

  /** Runs `fn` holding the locks of `paths` (writes to one path happen one at a time). */
  const locked = async <T>(paths: string[], fn: () => Promise<T>): Promise<T> => {
    const keys = [...new Set(paths.map((p) => p.toLowerCase()))].sort();
    const waits = keys.map((k) => locks.get(k) ?? Promise.resolve());
    const run = Promise.all(waits.map((w) => w.catch(() => {}))).then(fn);
    const settled = run.catch(() => {});
    for (const k of keys) locks.set(k, settled);
    try {
      return await run;
    } finally {
      for (const k of keys) if (locks.get(k) === settled) locks.delete(k);
    }
  };

  const history = deps.history;
  /** The whole file when the history keeps files of its size; null otherwise. */
  const keptBytes = async (info: FileInfo | null): Promise<Uint8Array | null> => {
    if (!history || !info || !history.keepsFile(info.size)) return null;
    const stream = await store.read(info.path);
    return stream ? new Uint8Array(await new Response(stream).arrayBuffer()) : null;
  };

  const meta = (info: FileInfo): FileMeta => ({
    path: info.path,
    size: info.size,
    updatedAt: new Date(info.mtimeMs).toISOString(),
    contentType: contentTypeOf(info.path),
    etag: etagOf(info),
  });

  const mustStat = async (path: string): Promise<FileInfo> => {
    const info = await store.stat(path);
    if (!info) throw new DomainError('FILE_NOT_FOUND', `No file at "${path}".`);
    return info;
  };

  const checkIfMatch = (ifMatch: string | undefined, info: FileInfo | null) => {
    if (ifMatch !== undefined && !etagMatches(ifMatch, info ? etagOf(info) : null)) {
      throw new DomainError(
        'PRECONDITION_FAILED',
        'The file changed since you read it (If-Match does not match).',
      );
    }
  };

  return {
    /** The upload limit in bytes. */
    maxBytes,

    /** Metadata of one attachment; FILE_NOT_FOUND when absent. */
    async stat(pathInput: unknown): Promise<FileMeta> {
      return meta(await mustStat(validateFilePath(pathInput)));
    },

    /** Opens an attachment for reading, honouring one `Range`. */
    async read(pathInput: unknown, rangeHeader?: string): Promise<FileRead> {
      const path = validateFilePath(pathInput);
      const info = await mustStat(path);
      const m = meta(info);
      const range = parseRange(rangeHeader, info.size);
      if (range === 'unsatisfiable') return { kind: 'unsatisfiable', meta: m };
      const body = await store.read(path, range ?? undefined);
      if (!body) throw new DomainError('FILE_NOT_FOUND', `No file at "${path}".`);
      return range ? { kind: 'partial', meta: m, range, body } : { kind: 'full', meta: m, body };
    },

    /**
     * Writes an attachment from a stream. `ifMatch` must name the current ETag; `ifNoneMatch: '*'`
     * refuses to replace an existing file. `contentLength`, when known, lets an oversized upload
     * be refused before a byte is stored.
     */
    async put(
      pathInput: unknown,
      body: ReadableStream<Uint8Array>,
      opts: { ifMatch?: string; ifNoneMatch?: string; contentLength?: number; by?: string } = {},
    ): Promise<{ file: FileMeta; created: boolean }> {
      const path = validateFilePath(pathInput);
      if (opts.contentLength !== undefined && opts.contentLength > maxBytes) {
        throw new DomainError(
          'PAYLOAD_TOO_LARGE',
          `The file is larger than ${maxBytes} bytes (MAX_FILE_BYTES).`,
        );
      }
      return locked([path], async () => {
        const before = await store.stat(path);
        if (opts.ifNoneMatch !== undefined && before && etagMatches(opts.ifNoneMatch, etagOf(before))) {
          throw new DomainError('PRECONDITION_FAILED', `A file already exists at "${path}" (If-None-Match).`);
        }
        checkIfMatch(opts.ifMatch, before);
        const old = await keptBytes(before);
        if (old) await history?.keepBefore(path, old);
        const info = await store.write(path, body, maxBytes);
        changed(path, info);
        const now = await keptBytes(info);
        if (now) await history?.record(path, now, opts.by ?? 'api', before ? 'update' : 'create');
        return { file: meta(info), created: before === null };
      });
    },

    /** Deletes an attachment (If-Match optional); FILE_NOT_FOUND when absent. */
    async remove(pathInput: unknown, ifMatch?: string, by = 'api'): Promise<{ path: string; deleted: true }> {
      const path = validateFilePath(pathInput);
      return locked([path], async () => {
        const info = await mustStat(path);
        checkIfMatch(ifMatch, info);
        const old = await keptBytes(info);
        if (old && history) {
          await history.keepBefore(path, old);
          await history.record(path, old, by, 'delete');
          await history.trash(path, 'file', old, by);
        }
        const removed = await store.remove(path);
        changed(path, null);
        if (!removed) throw new DomainError('FILE_NOT_FOUND', `No file at "${path}".`);
        return { path, deleted: true as const };
      });
    },

    /** Writes `bytes` out of the trash at `path`, or beside it when taken (never overwrites); answers where. */
    async restore(pathInput: unknown, bytes: Uint8Array, by = 'api'): Promise<string> {
      const wanted = validateFilePath(pathInput);
      return locked([wanted], async () => {
        const path = await freeRestorePath(wanted, async (p) => (await store.stat(p)) !== null);
        const body = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();
        changed(path, await store.write(path, body, Math.max(maxBytes, bytes.length)));
        await history?.record(path, bytes, by, 'restore');
        return path;
      });
    },

    /** Renames an attachment; FILE_ALREADY_EXISTS when the target is taken. */
    async move(fromInput: unknown, toInput: unknown, ifMatch?: string): Promise<FileMeta> {
      const from = validateFilePath(fromInput);
      const to = validateFilePath(toInput);
      return locked([from, to], async () => {
        checkIfMatch(ifMatch, await mustStat(from));
        if (from === to) return meta(await mustStat(from));
        if (from.toLowerCase() !== to.toLowerCase() && (await store.stat(to))) {
          throw new DomainError('FILE_ALREADY_EXISTS', `A file already exists at "${to}".`);
        }
        const info = await store.move(from, to);
        changed(from, null);
        changed(to, info);
        const moved = meta(info);
        await history?.moved(from, to);
        return moved;
      });
    },

    /**
     * Every attachment, sorted by path. The vault is walked at most once per `listTtlMs`, never
     * once per request or per write (this service's writes update the listing in place); when
     * the walk is due, a list waits for it up to `listWaitMs` and otherwise answers the last
     * listing. A walk is one file-system call per folder and file in sequence: behind a busy
     * thread pool (writes syncing to disk) it took seconds, and every tree request waited on it.
     */
    async list(): Promise<FileMeta[]> {
      let files: Map<string, FileInfo>;
      if (!known) files = await walkVault();
      else if (clock.now() - known.at <= ttl) files = known.files;
      else {
        const last = known.files;
        const fresh = walkVault();
        fresh.catch(() => {}); // a failed walk keeps the last listing; the next list tries again
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), listWaitMs);
        });
        files =
          (await Promise.race([fresh.catch(() => null), late]).finally(() => clearTimeout(timer))) ?? last;
      }
      return [...files.values()].map(meta).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },

    /**
     * Where a new attachment `name` for note `note` goes, by `.obsidian/app.json`'s
     * `attachmentFolderPath`, and the first free path there (`x.png`, `x 1.png`, ...).
     */
    async attachmentPath(noteInput: unknown, nameInput: unknown): Promise<{ folder: string; path: string }> {
      const note = noteInput === undefined || noteInput === '' ? null : validateNotePath(noteInput);
      const name = validateFilePath(nameInput);
      if (name.includes('/'))
        throw new DomainError('INVALID_PATH', 'The name must be a file name, without folders.');
      const rule = parseAttachmentRule(await store.obsidianAppConfig());
      const folder = attachmentFolder(rule, note);
      const path = await freePath(folder, name, async (p) => (await store.stat(p)) !== null);
      return { folder, path: validateFilePath(path) };
    },
  };
}

/** The attachments service. */
export type FileService = ReturnType<typeof createFileService>;
