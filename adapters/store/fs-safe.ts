import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  readSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  utimes,
} from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { DomainError } from '../../core/errors.ts';

/** True when `abs` is `root` or inside it. */
export function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root + sep);
}

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

const folding = new Map<string, boolean>();

/**
 * Whether the file system of folder `dir` compares names without case (macOS and Windows by
 * default): probed once per folder by creating a dot-file and looking it up in upper case.
 */
export function foldsCase(dir: string): boolean {
  let known = folding.get(dir);
  if (known !== undefined) return known;
  const name = `${TEMP_PREFIX}case-${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(join(dir, name), '', { flag: 'wx' });
    known = statSync(join(dir, name.toUpperCase()), { throwIfNoEntry: false }) !== undefined;
  } catch {
    known = false;
  } finally {
    rmSync(join(dir, name), { force: true });
  }
  folding.set(dir, known);
  return known;
}

const fold = (s: string) => s.normalize('NFC').toLowerCase();

/**
 * Throws INVALID_PATH unless `real` (where the file system led) is `abs` (the path asked for):
 * outside the vault, or through a symlink inside it. A symlink inside the vault is not followed,
 * so every note and file has one path, the one every folder scope is decided on (docs/reference/security.md).
 */
function checkReal(root: string, abs: string, real: string): void {
  if (!isInside(root, real)) throw new DomainError('INVALID_PATH', 'That path leads outside the vault.');
  if (real !== abs && !(foldsCase(root) && fold(real) === fold(abs))) throw throughSymlink();
}

/**
 * A file replaced by a rename (every writer's way, ours included) or removed after the open is
 * named "<its path> (deleted)" by /proc/self/fd: the version the read opened, at the path it was
 * opened by, not a symlink. A link count of 0 proves the suffix is the kernel's, not the name's.
 */
const UNLINKED = ' (deleted)';
const openedName = (real: string, links: number) =>
  links === 0 && real.endsWith(UNLINKED) ? real.slice(0, -UNLINKED.length) : real;

const throughSymlink = () =>
  new DomainError(
    'INVALID_PATH',
    'That path goes through a symlink; symlinks inside the vault are not followed (each note and file has one path).',
  );

let procFd: boolean | undefined;

/**
 * Opens the file at vault-relative `rel` for reading and checks that what was opened lies inside
 * `root`: on Linux by the descriptor's own link in /proc/self/fd (one system call, and it names the
 * file actually opened, so a symlink swapped in between cannot slip past), elsewhere by `realpath`
 * of the name. Null when there is no such file; INVALID_PATH when it lies outside the vault. A FIFO
 * does not block the open (O_NONBLOCK). The caller closes the handle.
 */
export async function openInside(root: string, rel: string): Promise<FileHandle | null> {
  const abs = join(root, rel);
  let fh: FileHandle;
  try {
    fh = await open(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR' || code(err) === 'ELOOP') return null;
    throw err;
  }
  try {
    let real: string | null = null;
    if (procFd !== false) {
      real = await readlink(`/proc/self/fd/${fh.fd}`).catch(() => null);
      procFd ??= real !== null;
      if (real?.endsWith(UNLINKED)) real = openedName(real, (await fh.stat()).nlink);
    }
    real ??= await realpath(abs);
    checkReal(root, abs, real);
    return fh;
  } catch (err) {
    await fh.close();
    if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return null;
    throw err;
  }
}

/** Files read synchronously by `readSmallInside` at most (larger ones are read asynchronously). */
export const SYNC_READ_MAX = 256 * 1024;

/**
 * The bytes of the small file at vault-relative `rel`, read synchronously: one open, the check of
 * what was opened through /proc/self/fd (as `openInside`), one fstat, one read, one close; no
 * promise and no thread-pool trip (a cold load's reads cost several times less CPU).
 * Null when there is no such file (or it is not a file); INVALID_PATH when it lies outside the
 * vault; `undefined` when this way does not apply (no /proc, a file over SYNC_READ_MAX or growing
 * meanwhile, another error): the caller reads it the usual way.
 */
export function readSmallInside(root: string, rel: string): Uint8Array | null | undefined {
  if (procFd === false) return undefined;
  const abs = join(root, rel);
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const c = code(err);
    return c === 'ENOENT' || c === 'ENOTDIR' || c === 'ELOOP' ? null : undefined;
  }
  try {
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
      procFd = true;
      if (real.endsWith(UNLINKED)) real = openedName(real, fstatSync(fd).nlink);
    } catch {
      procFd ??= false;
      return undefined;
    }
    checkReal(root, abs, real);
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    if (st.size > SYNC_READ_MAX) return undefined;
    // One byte more than the size: a file that grew since the fstat is read the usual way.
    const buf = new Uint8Array(st.size + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return n <= st.size ? buf.subarray(0, n) : undefined;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Resolves a vault-relative path to an absolute one whose real location is itself.
 * Returns null when the path (or a parent) does not exist. Throws INVALID_PATH when a
 * symlink is on the way (leading out of the vault or not).
 */
export async function resolveInside(root: string, rel: string): Promise<string | null> {
  const abs = join(root, rel);
  let real: string;
  try {
    real = await realpath(abs);
  } catch (err) {
    if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return null;
    throw err;
  }
  checkReal(root, abs, real);
  return abs;
}

/** Throws INVALID_PATH when the file at `abs` (vault-relative `rel`) is a symlink: it is not followed. */
export async function refuseSymlink(root: string, rel: string, st: Stats | null): Promise<void> {
  if (st?.isSymbolicLink()) {
    // The message says whether it leads out of the vault (a dangling one: through a symlink).
    const real = await realpath(join(root, rel)).catch(() => null);
    if (real && !isInside(root, real))
      throw new DomainError('INVALID_PATH', 'That path leads outside the vault.');
    throw throughSymlink();
  }
}

/** Creates the parent folders of `rel` one by one, never following a symlink. */
export async function ensureParents(root: string, rel: string): Promise<void> {
  const parts = rel.split('/').slice(0, -1);
  let cur = root;
  for (const part of parts) {
    cur = join(cur, part);
    try {
      const st = await lstat(cur);
      if (st.isSymbolicLink()) {
        const real = await realpath(cur).catch((e: unknown) => {
          if (code(e) === 'ENOENT' || code(e) === 'ELOOP')
            throw new DomainError('INVALID_PATH', `"${part}" is a broken symlink, not a folder.`);
          throw e;
        });
        if (!isInside(root, real))
          throw new DomainError('INVALID_PATH', 'That path leads outside the vault.');
        throw throughSymlink();
      } else if (!st.isDirectory()) {
        throw new DomainError('INVALID_PATH', `"${part}" is a file, not a folder.`);
      }
    } catch (err) {
      if (code(err) !== 'ENOENT') throw err;
      await mkdir(cur).catch((e: unknown) => {
        if (code(e) !== 'EEXIST') throw e;
      });
    }
  }
}

/** Name prefix of temporary files; dot-files are never listed as notes. */
export const TEMP_PREFIX = '.quire-tmp-';

/** Temporary files this process is writing right now; a leftover sweep must not delete them. */
export const tempsInFlight = new Set<string>();

/**
 * fsyncs a folder, so a rename in it survives a power loss. Some platforms (Windows) and file
 * systems refuse to open or sync a directory: that is not an error there.
 */
export async function syncFolder(dir: string): Promise<void> {
  const fh = await open(dir, 'r').catch(() => null);
  if (!fh) return;
  try {
    await fh.sync();
  } catch {
    // EINVAL/EISDIR/EPERM: the platform cannot sync a directory handle.
  } finally {
    await fh.close().catch(() => {});
  }
}

/**
 * The error to throw for a write or move that the file system refused because the place is taken
 * by something of the other kind (a folder where a file should go, or the reverse): a
 * DomainError `CONFLICT` (409) naming `rel`; any other error is returned unchanged.
 */
export function conflictOf(err: unknown, rel: string): unknown {
  const c = code(err);
  if (c === 'EISDIR' || c === 'EEXIST' || c === 'ENOTDIR' || c === 'ENOTEMPTY')
    return new DomainError('CONFLICT', `"${rel}" is taken: a folder or file of that name exists.`);
  return err;
}

/**
 * Writes `bytes` to `abs` atomically: a temporary file in the same folder, flushed to disk,
 * then renamed over the target. Readers see the old or the new content, never a mix. `bytes`
 * may come in pieces (written one after another, never joined).
 */
export async function writeAtomic(
  abs: string,
  bytes: Uint8Array | AsyncIterable<Uint8Array>,
  mode?: number,
  durable = true,
): Promise<void> {
  const tmp = join(dirname(abs), `${TEMP_PREFIX}${randomBytes(6).toString('hex')}`);
  tempsInFlight.add(tmp);
  try {
    const fh = await open(tmp, 'wx', mode ?? 0o644);
    try {
      if (bytes instanceof Uint8Array) await fh.writeFile(bytes);
      else for await (const piece of bytes) await fh.write(piece);
      if (durable) await fh.sync();
    } catch (err) {
      await fh.close().catch(() => {});
      await rm(tmp, { force: true });
      throw err;
    }
    await fh.close();
    try {
      await rename(tmp, abs);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    if (durable) await syncFolder(dirname(abs));
  } finally {
    tempsInFlight.delete(tmp);
  }
}

/**
 * The stat of `abs` after it replaced `prev`, with its mtime moved past the old one when the
 * file-system clock (coarse, a few ms) gave both the same: readers detect changes by size and
 * mtime (and files derive their ETag from them), so a replace must never keep the old mtime.
 */
export async function statAfterReplace(abs: string, prev: Stats | null | undefined): Promise<Stats> {
  const st = await stat(abs);
  if (!prev?.isFile() || st.mtimeMs > prev.mtimeMs) return st;
  await utimes(abs, st.atime, (prev.mtimeMs + 1) / 1000);
  return stat(abs);
}
