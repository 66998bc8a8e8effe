import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { DomainError } from '../../core/errors.ts';

/** True when `abs` is `root` or inside it. */
export function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root + sep);
}

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

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
        const real = await realpath(cur);
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
 * Writes `bytes` to `abs` atomically: a temporary file in the same folder, flushed to disk,
 * then renamed over the target. Readers see the old or the new content, never a mix.
 */
export async function writeAtomic(abs: string, bytes: Uint8Array, mode?: number): Promise<void> {
  const tmp = join(dirname(abs), `${TEMP_PREFIX}${randomBytes(6).toString('hex')}`);
  tempsInFlight.add(tmp);
  try {
    const fh = await open(tmp, 'wx', mode ?? 0o644);
    try {
      await fh.writeFile(bytes);
      await fh.sync();
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
  } finally {
    tempsInFlight.delete(tmp);
  }
}
