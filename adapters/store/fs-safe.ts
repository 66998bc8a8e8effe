import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
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
    }
    real ??= await realpath(abs);
    if (!isInside(root, real)) throw new DomainError('INVALID_PATH', 'That path leads outside the vault.');
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
 * promise and no thread-pool trip (issue 33: a cold load's reads cost several times less CPU).
 * Null when there is no such file (or it is not a file); INVALID_PATH when it lies outside the
 * vault; `undefined` when this way does not apply (no /proc, a file over SYNC_READ_MAX or growing
 * meanwhile, another error): the caller reads it the usual way.
 */
export function readSmallInside(root: string, rel: string): Uint8Array | null | undefined {
  if (procFd === false) return undefined;
  let fd: number;
  try {
    fd = openSync(join(root, rel), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const c = code(err);
    return c === 'ENOENT' || c === 'ENOTDIR' || c === 'ELOOP' ? null : undefined;
  }
  try {
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
      procFd = true;
    } catch {
      procFd ??= false;
      return undefined;
    }
    if (!isInside(root, real)) throw new DomainError('INVALID_PATH', 'That path leads outside the vault.');
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
 * Resolves a vault-relative path to an absolute one whose real location is inside `root`.
 * Returns null when the path (or a parent) does not exist. Throws INVALID_PATH when a
 * symlink on the way leads out of the vault.
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
  if (!isInside(root, real)) throw new DomainError('INVALID_PATH', 'That path leads outside the vault.');
  return abs;
}

/** Creates the parent folders of `rel` one by one, never following a symlink out of the vault. */
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
