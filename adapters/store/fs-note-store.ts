import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { link, lstat, readFile, rm, stat, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { FileInfo, NoteStore, StoreChange } from '../../core/ports.ts';
import {
  conflictOf,
  ensureParents,
  foldsCase,
  isInside,
  openInside,
  readSmallInside,
  refuseSymlink,
  resolveInside,
  statAfterReplace,
  TEMP_PREFIX,
  tempsInFlight,
  writeAtomic,
} from './fs-safe.ts';
import { type VaultWatchSet, vaultWatchSet, watchVault } from './fs-watch.ts';

const isNote = (name: string) => name.toLowerCase().endsWith('.md') && !name.startsWith('.');
const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/** The move in progress (a dot-file: never listed, never watched), so a crash mid-move can be finished. */
const MOVE_JOURNAL = '.quire-move.json';

/**
 * Finishes a move that a crash cut between its link and its unlink (both paths name the same
 * file): the source goes, so the note is not left twice. Anything else just drops the journal.
 */
function finishCutMove(root: string): void {
  const journal = join(root, MOVE_JOURNAL);
  let move: { from?: unknown; to?: unknown };
  try {
    move = JSON.parse(readFileSync(journal, 'utf8'));
  } catch (err) {
    if (code(err) !== 'ENOENT') rmSync(journal, { force: true });
    return;
  }
  if (typeof move.from === 'string' && typeof move.to === 'string') {
    const src = join(root, move.from);
    const dest = join(root, move.to);
    const a = isInside(root, src) ? lstatSync(src, { throwIfNoEntry: false }) : undefined;
    const b = isInside(root, dest) ? lstatSync(dest, { throwIfNoEntry: false }) : undefined;
    if (a?.isFile() && b?.isFile() && a.ino === b.ino && a.dev === b.dev) unlinkSync(src);
  }
  rmSync(journal, { force: true });
}

const toInfo = (path: string, st: { size: number; mtimeMs: number }): FileInfo => ({
  path,
  size: st.size,
  mtimeMs: st.mtimeMs,
});

/**
 * The one walk of the vault at `root`: notes, the other files when `files`, folders; with `arm`, each folder
 * is watched before it is read. Folders are read synchronously, with a yield every few ms (as
 * the stats below): one promise per folder cost several times the CPU of the read itself. It
 * yields once before the first read too, so a caller listing in a loop never starves the event
 * loop. Paths are joined by concatenation, not `path.join`: a folder's absolute path is built
 * once and every name read from it is one plain segment (no `.`, `..` or separator to normalize),
 * so `join`'s normalizing pass per entry (10,000 of them at 10,000 notes) did nothing but cost.
 */
async function walk(root: string, want: { files: boolean }, arm: VaultWatchSet | null) {
  const notes: [string, string][] = [];
  const files: [string, string][] = [];
  const folders: string[] = [];
  // [relative path, absolute path with a trailing separator]
  const stack: [string, string][] = [['', root.endsWith(sep) ? root : root + sep]];
  let slice = Number.NEGATIVE_INFINITY;
  while (stack.length) {
    const [rel, prefix] = stack.pop()!;
    if (performance.now() - slice > 4) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    const dir = rel ? prefix.slice(0, -1) : root;
    // Watched before it is read, so nothing created in between is missed.
    arm?.arm(dir);
    let dirents: import('node:fs').Dirent[];
    try {
      dirents = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of dirents) {
      const name = d.name;
      if (name.charCodeAt(0) === 46 /* . */) {
        if (name.startsWith(TEMP_PREFIX)) {
          // Left behind by a crash mid-write: the target still holds its old content.
          const abs = prefix + name;
          if (!tempsInFlight.has(abs)) await rm(abs, { force: true }).catch(() => {});
        }
        continue;
      }
      if (name.includes('\\')) continue;
      const childRel = rel ? `${rel}/${name}` : name;
      if (d.isDirectory()) {
        folders.push(childRel);
        stack.push([childRel, `${prefix}${name}${sep}`]);
        continue;
      }
      const note = isNote(name);
      if (!note && !want.files) continue;
      // A symlink is not followed (docs/reference/security.md): what it names is listed under its real path.
      if (d.isFile()) (note ? notes : files).push([childRel, prefix + name]);
    }
  }
  return { notes, files, folders };
}

/**
 * Stats run synchronously in slices of a few ms with a yield between them: at 10,000 notes
 * that is about 30 ms of CPU, where one promise per stat through the thread pool cost 80 to
 * 180 ms (and more wall time). A stat that hangs (a stalled network mount) blocks meanwhile.
 */
async function statAll(found: [string, string][]): Promise<FileInfo[]> {
  const out: FileInfo[] = [];
  let slice = performance.now();
  for (const [rel, abs] of found) {
    try {
      const st = statSync(abs, { throwIfNoEntry: false });
      if (st?.isFile()) out.push(toInfo(rel, st));
    } catch {
      // Unreadable or gone meanwhile: not listed, as before.
    }
    if (performance.now() - slice > 4) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  return out;
}

/**
 * The note at vault-relative `path` with its size and mtime, or null: one open and one check of
 * what was opened (fs-safe.ts `openInside`) instead of two realpaths, a stat and a readFile: a
 * note read that misses the answer cache spent 22% of its CPU in the second realpath and the
 * extra stat.
 */
async function readWithInfo(
  root: string,
  path: string,
): Promise<{ info: FileInfo; bytes: Uint8Array } | null> {
  const fh = await openInside(root, path);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile()) return null;
    // One byte more than the size: a file that grew since the fstat is read whole again.
    const buf = new Uint8Array(st.size + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead <= st.size) return { info: toInfo(path, st), bytes: buf.subarray(0, bytesRead) };
    const bytes = new Uint8Array(await fh.readFile());
    return { info: toInfo(path, await fh.stat()), bytes };
  } catch (err) {
    if (code(err) === 'ENOENT' || code(err) === 'EISDIR' || code(err) === 'ENOTDIR') return null;
    throw err;
  } finally {
    await fh.close();
  }
}

/**
 * The vault as a folder of `.md` files. Writes are atomic (temporary file + rename), a move
 * cut by a crash is finished at the next start (never two copies); nothing is read or written
 * through a symlink, inside the vault or out of it (each note has one path, the one folder scopes
 * are decided on); dot-folders are skipped.
 */
export function fsNoteStore(opts: {
  dir: string;
  watch?: boolean;
  debounceMs?: number;
  /**
   * Default true: each write fsyncs the file and its folder before it returns (power-loss safe).
   * False keeps the atomic rename (never a torn note) but may lose the last writes on power loss.
   */
  fsync?: boolean;
}): NoteStore {
  const durable = opts.fsync ?? true;
  mkdirSync(opts.dir, { recursive: true });
  const root = realpathSync(opts.dir);
  finishCutMove(root);

  const canWatch = opts.watch !== false;
  const toRel = (abs: string) => relative(root, abs).split(sep).join('/');
  /** The watch a `listAll({ watch: true })` armed, until `watch` adopts it. */
  let armed: VaultWatchSet | null = null;
  let watching = false;

  const store: NoteStore = {
    foldsCase: foldsCase(root),
    async read(path) {
      const abs = await resolveInside(root, path);
      if (!abs) return null;
      try {
        return new Uint8Array(await readFile(abs));
      } catch (err) {
        if (code(err) === 'ENOENT' || code(err) === 'EISDIR' || code(err) === 'ENOTDIR') return null;
        throw err;
      }
    },
    // A load's batch: small files read synchronously, a yield every few ms (like the
    // stats above; a read that hangs on a stalled mount blocks meanwhile); larger ones, and any this
    // way does not apply to, through `read`.
    async readMany(paths) {
      const out: (Uint8Array | null)[] = [];
      let slice = performance.now();
      for (const path of paths) {
        const now = readSmallInside(root, path);
        out.push(now === undefined ? await store.read(path) : now);
        if (performance.now() - slice > 4) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
      return out;
    },
    readWithInfo: (path) => readWithInfo(root, path),
    async stat(path) {
      const abs = await resolveInside(root, path);
      if (!abs) return null;
      const st = await stat(abs).catch(() => null);
      return st?.isFile() ? toInfo(path, st) : null;
    },
    async write(path, bytes) {
      await ensureParents(root, path);
      const abs = join(root, path);
      const prev = await lstat(abs).catch(() => null);
      // Neither followed nor replaced: a symlink is no note (docs/reference/security.md).
      await refuseSymlink(root, path, prev);
      if (prev?.isDirectory()) throw conflictOf({ code: 'EISDIR' }, path);
      await writeAtomic(abs, bytes, undefined, durable).catch((err) => {
        throw conflictOf(err, path);
      });
      // Two quick writes could share an mtime: keep it moving forward, like the memory store.
      return toInfo(path, await statAfterReplace(abs, prev));
    },
    async move(from, to) {
      const src = await resolveInside(root, from);
      if (!src) throw new Error('fsNoteStore.move: source is missing');
      await ensureParents(root, to);
      const dest = join(root, to);
      // link() refuses to replace an existing file, so a move never clobbers a note. The journal
      // lets the next start finish a move cut between link and unlink (moves are serialized).
      const journal = join(root, MOVE_JOURNAL);
      await writeAtomic(journal, new TextEncoder().encode(JSON.stringify({ from, to })));
      try {
        await link(src, dest).catch((err) => {
          throw conflictOf(err, to);
        });
        await unlink(src);
      } finally {
        await rm(journal, { force: true });
      }
      return toInfo(to, await stat(dest));
    },
    async remove(path) {
      const abs = await resolveInside(root, path);
      if (!abs) return false;
      try {
        await unlink(abs);
        return true;
      } catch (err) {
        if (code(err) === 'ENOENT') return false;
        // unlink() on a folder fails (EISDIR on Linux, EPERM on macOS): a folder is not a file.
        if ((await lstat(abs).catch(() => null))?.isDirectory()) return false;
        throw err;
      }
    },
    async list() {
      return statAll((await walk(root, { files: false }, null)).notes);
    },
    async listFolders() {
      return (await walk(root, { files: false }, null)).folders;
    },
    async listAll(o) {
      // Armed once before the watch starts (a second listing before it re-arms the same set, so
      // folders created meanwhile are covered too); never while a watch runs.
      if (o?.watch && canWatch && !watching) armed ??= vaultWatchSet(opts.debounceMs ?? 100, toRel);
      const arm = o?.watch && canWatch && !watching ? armed : null;
      const found = await walk(root, { files: true }, arm);
      const notes = await statAll(found.notes);
      const files = await statAll(found.files);
      return { notes, files, folders: found.folders, watched: arm !== null, vault: root };
    },
  };
  if (canWatch) {
    store.watch = async (onChanges: (changes: StoreChange[]) => void) => {
      const set = armed;
      armed = null;
      watching = true;
      const stop = set
        ? set.start(onChanges, true)
        : await watchVault(root, onChanges, opts.debounceMs ?? 100, toRel);
      return Object.assign(
        async () => {
          watching = false;
          await stop();
        },
        { sinceListing: stop.sinceListing },
      );
    };
  }
  return store;
}
