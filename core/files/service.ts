import { DomainError } from '../errors.ts';
import type { History } from '../history/history.ts';
import { freePath as freeRestorePath } from '../notes/free-path.ts';
import { validateNotePath } from '../paths.ts';
import type { Clock, FileInfo, FileStore } from '../ports.ts';
import { attachmentFolder, freePath, parseAttachmentRule } from './attachment-folder.ts';
import { etagMatches, etagOf, type FileMeta, type FileRead, fileMeta } from './file-meta.ts';
import { FileListing } from './listing.ts';
import { PathLocks } from './path-locks.ts';
import { validateFilePath } from './paths.ts';
import { parseRange } from './range.ts';

export { etagMatches, type FileMeta, type FileRead } from './file-meta.ts';

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

/** PRECONDITION_FAILED unless `ifMatch` is absent or names the file's current ETag. */
function checkIfMatch(ifMatch: string | undefined, info: FileInfo | null): void {
  if (ifMatch !== undefined && !etagMatches(ifMatch, info ? etagOf(info) : null)) {
    throw new DomainError(
      'PRECONDITION_FAILED',
      'The file changed since you read it (If-Match does not match).',
    );
  }
}

/**
 * Where a new attachment `name` for note `note` goes, by `.obsidian/app.json`'s
 * `attachmentFolderPath`, and the first free path there (`x.png`, `x 1.png`, ...).
 */
async function attachmentPath(
  store: FileStore,
  noteInput: unknown,
  nameInput: unknown,
): Promise<{ folder: string; path: string }> {
  const note = noteInput === undefined || noteInput === '' ? null : validateNotePath(noteInput);
  const name = validateFilePath(nameInput);
  if (name.includes('/'))
    throw new DomainError('INVALID_PATH', 'The name must be a file name, without folders.');
  const rule = parseAttachmentRule(await store.obsidianAppConfig());
  const folder = attachmentFolder(rule, note);
  const path = await freePath(folder, name, async (p) => (await store.stat(p)) !== null);
  return { folder, path: validateFilePath(path) };
}

/** The attachments service: validation, preconditions, ranges and the listing cache over a FileStore. */
export function createFileService(deps: FileServiceDeps) {
  const { store } = deps;
  const clock = deps.clock ?? { now: () => Date.now() };
  const maxBytes = deps.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const listing = new FileListing(store, clock, deps.listTtlMs ?? 2_000, deps.listWaitMs ?? 250);
  const changed = (path: string, info: FileInfo | null) => listing.changed(path, info);
  const pathLocks = new PathLocks();
  const locked = <T>(paths: string[], fn: () => Promise<T>): Promise<T> => pathLocks.run(paths, fn);

  const history = deps.history;
  /** The whole file when the history keeps files of its size; null otherwise. */
  const keptBytes = async (info: FileInfo | null): Promise<Uint8Array | null> => {
    if (!history || !info || !history.keepsFile(info.size)) return null;
    const stream = await store.read(info.path);
    return stream ? new Uint8Array(await new Response(stream).arrayBuffer()) : null;
  };

  const meta = fileMeta;

  const mustStat = async (path: string): Promise<FileInfo> => {
    const info = await store.stat(path);
    if (!info) throw new DomainError('FILE_NOT_FOUND', `No file at "${path}".`);
    return info;
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
     * once per request or per write (this service's writes update the listing in place); see
     * listing.ts for how a due walk is waited for.
     */
    async list(): Promise<FileMeta[]> {
      const files = await listing.files();
      return [...files.values()].map(meta).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },

    /**
     * Where a new attachment `name` for note `note` goes, by `.obsidian/app.json`'s
     * `attachmentFolderPath`, and the first free path there (`x.png`, `x 1.png`, ...).
     */
    attachmentPath: (noteInput: unknown, nameInput: unknown) => attachmentPath(store, noteInput, nameInput),
  };
}

/** The attachments service. */
export type FileService = ReturnType<typeof createFileService>;
