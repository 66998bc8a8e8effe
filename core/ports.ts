/**
 * Every port the core needs, in one place. Adapters implement these as factory
 * functions returning plain objects. Paths handed to a port are always already
 * validated vault-relative POSIX paths (see `core/paths.ts`).
 */
import type { KeyScope } from './auth/scope.ts';

/** Size and modification time of one file in the vault. */
export interface FileInfo {
  /** Vault-relative POSIX path, e.g. `projects/plan.md`. */
  path: string;
  /** Size in bytes. */
  size: number;
  /** Last modification time, milliseconds since the Unix epoch. */
  mtimeMs: number;
}

/** A change to the vault made by someone other than this server (editor, git, sync tool). */
export interface StoreChange {
  /**
   * Vault-relative path of a note (`.md`) or of another file of the vault (an attachment: links to
   * it re-resolve), or of a folder when `kind` is `folder-removed`.
   */
  path: string;
  /** `changed` covers create and modify; `removed` a deleted file; `folder-removed` a deleted folder. */
  kind: 'changed' | 'removed' | 'folder-removed';
}

/** Stops a store's watch. */
export type StopWatching = (() => Promise<void>) & {
  /**
   * True when the watch reports every change since the store's last `listAll({ watch: true })`
   * (that walk began watching each folder before reading it): nothing to reconcile in between.
   */
  sinceListing?: boolean;
};

/** Everything one walk of the vault finds. */
export interface VaultListing {
  /** What `list()` answers: every note. */
  notes: FileInfo[];
  /** What a FileStore on the same folder lists: every other file (attachment). */
  files: FileInfo[];
  /** What `listFolders()` answers. */
  folders: string[];
  /** True when the walk armed the store's watch (the next `watch` adopts it: no second walk, no gap). */
  watched: boolean;
  /**
   * An opaque name of the folder walked: `files` stand for a FileStore's `list()` only when that
   * store's `vault` is the same.
   */
  vault?: string;
}

/** Raw storage of the vault's markdown files. The core does all parsing and validation. */
export interface NoteStore {
  /**
   * True when the vault's file system compares names without case (macOS and Windows by default):
   * `Work/PRIVATE/x.md` is then the file `Work/private/x.md`, and folder scopes compare names
   * folded (core/auth/scope.ts). Absent: names compare exactly.
   */
  readonly foldsCase?: boolean;
  /** Bytes of the file at `path`; `null` when there is no such file. */
  read(path: string): Promise<Uint8Array | null>;
  /** Size and mtime of the file at `path`; `null` when there is no such file. */
  stat(path: string): Promise<FileInfo | null>;
  /**
   * The bytes and the info of the file at `path` in one go (one path check, one open: what a
   * note read needs to trust the index); `null` when there is no such file. Optional: without
   * it the core calls `stat` and `read`.
   */
  readWithInfo?(path: string): Promise<{ info: FileInfo; bytes: Uint8Array } | null>;
  /**
   * The bytes of several files (a load's batch), in order, `null` for each that is not there.
   * Optional: without it the core calls `read` for each. The fs store reads small files
   * synchronously in slices of a few ms: a promise and four thread-pool trips per
   * note cost several times the read itself.
   */
  readMany?(paths: string[]): Promise<(Uint8Array | null)[]>;
  /**
   * Replaces the whole file atomically (readers see the old or the new bytes, never a mix),
   * creating parent folders. Returns the file's info after the write.
   */
  write(path: string, bytes: Uint8Array): Promise<FileInfo>;
  /** Renames `from` to `to` atomically, creating parent folders. Rejects, changing nothing, when `to` exists. */
  move(from: string, to: string): Promise<FileInfo>;
  /** Deletes the file. Returns false when there was no such file. Empty parent folders are kept. */
  remove(path: string): Promise<boolean>;
  /**
   * Every `.md` file in the vault, recursively. Skips dot-folders (`.obsidian`, `.git`, ...)
   * and anything reached through a symlink that leaves the vault.
   */
  list(): Promise<FileInfo[]>;
  /** Every folder (vault-relative, no trailing slash), including empty ones; root excluded. */
  listFolders(): Promise<string[]>;
  /**
   * Optional: notes, the vault's other files and folders in one walk (the same answers as `list`,
   * `listFolders` and the file store's `list` on the same folder), for a start that would walk
   * three times otherwise. With `watch`, a store that can watch arms its watch during the walk
   * (each folder before it is read), and its next `watch` adopts it without walking again.
   */
  listAll?(opts?: { watch?: boolean }): Promise<VaultListing>;
  /**
   * Optional: calls `onChanges` with batches of changes to the vault (the server's own writes
   * may be echoed; the core tolerates that). Resolves, once every change from then on will be
   * reported, to a function that stops watching.
   */
  watch?(onChanges: (changes: StoreChange[]) => void): Promise<StopWatching>;
}

/** Small named blobs of server state (index cache, credentials, ...), written atomically. */
export interface StateStore {
  /** The stored text under `key`; `null` when absent. */
  get(key: string): Promise<string | null>;
  /** Replaces the text under `key` atomically (old or new, never torn). */
  put(key: string, value: string): Promise<void>;
  /** Removes `key`; no error when absent. */
  remove(key: string): Promise<void>;
  /**
   * Optional: adds `value` at the end of `key` (created when absent). Not atomic: a crash may
   * leave the end torn, so callers write self-delimiting lines and check them when reading.
   */
  append?(key: string, value: string): Promise<void>;
  /**
   * Optional: replaces `key` atomically (old or new, never torn) with the pieces written one
   * after another, so a large value is never held or encoded as one string.
   */
  putPieces?(key: string, pieces: AsyncIterable<string>): Promise<void>;
  /**
   * Optional, with `getRange` and `byteSize`: binary values read by byte range (the index's binary
   * snapshot, read lazily). Replaces `key` atomically with the bytes of the pieces, in order.
   */
  putBytes?(key: string, pieces: AsyncIterable<Uint8Array>): Promise<void>;
  /** The bytes of `key` from `offset` (at most `length`, fewer at its end); null when absent. */
  getRange?(key: string, offset: number, length: number): Promise<Uint8Array | null>;
  /** The size of `key` in bytes; null when absent. */
  byteSize?(key: string): Promise<number | null>;
}

/** Wall clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Structured logger. Never pass keys or secrets in `fields`. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /**
   * False when a line at `level` would be dropped, so a caller may skip building it (a per-request
   * access line, say); a logger without it is taken to write every line.
   */
  enabled?(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
}

/** Who a request is, once authenticated. */
export interface Principal {
  /** Stable id of the credential (key id, token subject, or `anonymous` in mode none). */
  id: string;
  /** How the principal was authenticated (`session`: a person signed in, core/people). */
  method: 'api-key' | 'jwt' | 'none' | 'session';
  /** What it may do (core/auth/scope.ts); absent: full access. */
  scope?: KeyScope;
  /** The person behind it (a session, or a key of theirs); absent: the owner's keys. */
  personId?: string;
  /** A session's device (`Chrome on Linux`, named at sign-in), for who-did-what. */
  device?: string;
  /**
   * True for a session carried by a cookie: a browser sends that by itself, so the adapter
   * refuses a state change whose `Origin` is not the server's own (CSRF; decision 0030). A
   * bearer session or a key needs no such check: no browser adds those on its own.
   */
  cookie?: true;
}

/** The credentials an HTTP request carried, as the adapter found them. */
export interface RequestCredentials {
  /** Value of the `X-Service-Key` header, if any. */
  apiKey?: string;
  /** Bearer token from `Authorization`, if any. */
  bearer?: string;
  /** The session cookie, if any (a person signed in to the workspace). */
  session?: string;
}

/** Decides whether a request may reach a protected route. */
export interface Authenticator {
  /**
   * Resolves the principal, or throws a DomainError with `UNAUTHORIZED` (nothing given)
   * or `INVALID_API_KEY` (something given that is not valid).
   */
  authenticate(creds: RequestCredentials): Promise<Principal>;
  /**
   * The principal when `creds` are known good without any work (a key verified moments ago, or no
   * authentication at all); null when `authenticate` must decide. Never throws; a runtime's fast
   * lane answers only what this accepts and hands everything else to the full path.
   */
  known?(creds: RequestCredentials): Principal | null;
}

/** One byte range of a file, both ends inclusive (`{start: 0, end: 0}` is the first byte). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Raw storage of the vault's attachments: every file that is not a note (images, PDFs, audio...).
 * Kept apart from NoteStore so the note port stays narrow; paths are validated vault-relative
 * paths that do not end in `.md`. Bodies are streams, so a large file is never held whole.
 */
export interface FileStore {
  /** Size and mtime of the attachment at `path`; `null` when there is no such file (or it is a folder). */
  stat(path: string): Promise<FileInfo | null>;
  /** The bytes of `path` (only `range` when given, already checked against the size); `null` when absent. */
  read(path: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null>;
  /**
   * Streams `body` into `path`, replacing it atomically (old or new bytes, never a mix), creating
   * parent folders. Rejects with PAYLOAD_TOO_LARGE as soon as more than `maxBytes` arrived, leaving
   * nothing behind. Returns the file's info after the write; its mtime moves forward on a replace.
   */
  write(path: string, body: ReadableStream<Uint8Array>, maxBytes: number): Promise<FileInfo>;
  /** Renames `from` to `to`, creating parent folders. Rejects, changing nothing, when `to` exists. */
  move(from: string, to: string): Promise<FileInfo>;
  /** Deletes the file. Returns false when there was no such file. */
  remove(path: string): Promise<boolean>;
  /** Every attachment in the vault (not `.md`), recursively; skips dot-folders and symlinks leaving the vault. */
  list(): Promise<FileInfo[]>;
  /**
   * Optional: an opaque name of the folder it keeps; a note store's `listAll` naming the same
   * `vault` lists these files in its one walk, so the start need not call `list`.
   */
  readonly vault?: string;
  /** The text of `.obsidian/app.json` (Obsidian's settings, e.g. `attachmentFolderPath`); `null` when absent. */
  obsidianAppConfig(): Promise<string | null>;
}

/**
 * Where the history of the vault lives: an append-only pack of compressed blobs and an
 * append-only journal of JSON lines describing versions, moves and trash items. The core does the
 * content addressing, compression and indexing; an adapter only keeps bytes. A resolved append is
 * durable (fsynced where the adapter promises it), so a version is safe before the write it protects.
 */
export interface HistoryStore {
  /** Appends `bytes` to the current pack; resolves with the offset they start at, once durable. */
  appendBlob(bytes: Uint8Array): Promise<number>;
  /** `length` bytes of the current pack from `offset`; `null` when the pack is shorter. */
  readBlob(offset: number, length: number): Promise<Uint8Array | null>;
  /** Appends `text` (whole lines) to the journal; resolves once durable (with the pack bytes before it). */
  appendJournal(text: string): Promise<void>;
  /**
   * Optional: makes the pack bytes appended so far durable (the core calls it before writing
   * journal lines that name them, so a line never reaches the disk before its bytes).
   */
  syncBlobs?(): Promise<void>;
  /** The whole journal (a torn last line may be present after a crash: the core drops it). */
  readJournal(): Promise<string>;
  /**
   * Replaces pack and journal together (pruning): after it resolves both are the new ones; a
   * crash in between leaves the old pair. `pack` pieces are written one after another, then
   * `journal()` is called for the journal's text (it may depend on what the pieces turned out to be).
   */
  replace(pack: AsyncIterable<Uint8Array>, journal: () => string): Promise<void>;
  /** Bytes held (pack plus journal). */
  size(): Promise<number>;
  /**
   * Optional (TRASH_DIR=vault): puts a copy of a trashed note or file at `.trash/<path>` in the
   * vault (a free name when taken), durable when it resolves; answers where, relative to `.trash/`.
   */
  keepTrashCopy?(path: string, bytes: Uint8Array): Promise<string>;
  /** Removes a copy `keepTrashCopy` made (restored or purged); nothing when it is gone already. */
  dropTrashCopy?(where: string): Promise<void>;
}

/**
 * A text embeddings model the user already runs (Ollama, llama.cpp, vLLM, OpenAI...). Quire never
 * downloads a model: this port is how the core asks one. Optional; without it search is lexical.
 */
export interface Embeddings {
  /** The model's name, as configured (a change of model re-embeds every passage). */
  readonly model: string;
  /**
   * One vector per text, in order, all of the same length. Rejects (an Error with a message a
   * person can act on, never a key) when the provider is down or answers something else.
   */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}
