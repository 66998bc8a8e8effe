import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, lstat, mkdir, open, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { HistoryStore } from '../../core/ports.ts';
import { ensureParents, isInside, writeAtomic } from './fs-safe.ts';

const HEADER = '#pack ';

/**
 * The history as two append-only files in `dir` (mode 0700): `pack-<n>` (the compressed blobs)
 * and `journal` (JSON lines; its first line names the pack). With `fsync` (default true) a journal
 * append resolves once it and the pack bytes before it are on disk (both fdatasynced in parallel:
 * after a power loss a line may name pack bytes that did not reach the disk; reading them answers
 * null, and the note's next write keeps what is on disk again). Pruning writes a new pack and journal and switches with
 * one rename of the journal, so a crash leaves the old pair or the new one; a pack no journal
 * names (a crash mid-prune) is removed at start.
 *
 * With `vaultTrash` (the vault's folder; TRASH_DIR=vault), a trashed note or file is also copied to
 * `<vault>/.trash/<its path>` (` (2)`, ` (3)`... before the extension when taken), Obsidian's
 * convention; a dot-folder, so never indexed, listed, searched or watched.
 */
export function fsHistoryStore(opts: {
  dir: string;
  fsync?: boolean;
  vaultTrash?: string;
}): HistoryStore & { close(): Promise<void> } {
  const durable = opts.fsync ?? true;
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const journalPath = join(opts.dir, 'journal');
  let packName = 'pack-0';
  if (existsSync(journalPath)) {
    const first = readFileSync(journalPath, 'utf8').split('\n', 1)[0] ?? '';
    if (first.startsWith(HEADER)) packName = first.slice(HEADER.length).trim();
  }
  for (const name of readdirSync(opts.dir)) {
    if (name !== packName && name !== 'journal') rmSync(join(opts.dir, name), { force: true });
  }
  if (!existsSync(journalPath)) {
    const fd = openSync(journalPath, 'w', 0o600);
    closeSync(fd);
  }
  // A crash mid-append may leave a torn last line: end it, so the next record starts a line of its own.
  const tail = statSync(journalPath).size;
  if (tail > 0) {
    const fd = openSync(journalPath, 'r+');
    try {
      const last = new Uint8Array(1);
      readSync(fd, last, 0, 1, tail - 1);
      if (last[0] !== 0x0a) writeSync(fd, '\n', tail);
    } finally {
      closeSync(fd);
    }
  }
  let packSize = existsSync(join(opts.dir, packName)) ? statSync(join(opts.dir, packName)).size : 0;
  let journalSize = statSync(journalPath).size;
  let packFh: Promise<FileHandle> | null = null;
  let packDirty = false;
  let journalFh: Promise<FileHandle> | null = null;
  const packFile = () => {
    packFh ??= open(join(opts.dir, packName), 'a', 0o600);
    return packFh;
  };
  const journalFile = () => {
    journalFh ??= open(journalPath, 'a', 0o600);
    return journalFh;
  };
  const closeAll = async () => {
    const open = [packFh, journalFh];
    packFh = null;
    journalFh = null;
    for (const fh of open) if (fh) await (await fh).close().catch(() => {});
  };
  const encoder = new TextEncoder();
  const vault = opts.vaultTrash ? resolve(opts.vaultTrash) : null;
  const trashRoot = vault ? join(vault, '.trash') : null;
  /** The absolute place of `.trash/<rel>`, or null when `rel` would leave `.trash/`. */
  const inTrash = (rel: string): string | null => {
    const abs = resolve(trashRoot!, rel);
    return rel && !rel.startsWith('/') && isInside(trashRoot!, abs) && abs !== trashRoot ? abs : null;
  };
  const taken = (abs: string) =>
    lstat(abs).then(
      () => true,
      () => false,
    );
  const trashCopies: Pick<HistoryStore, 'keepTrashCopy' | 'dropTrashCopy'> = trashRoot
    ? {
        async keepTrashCopy(path, bytes) {
          const dot = path.lastIndexOf('.');
          const slash = path.lastIndexOf('/');
          const [stem, ext] = dot > slash + 1 ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
          let rel = path;
          for (let n = 2; inTrash(rel) && (await taken(inTrash(rel)!)); n++) rel = `${stem} (${n})${ext}`;
          const abs = inTrash(rel);
          if (!abs) throw new Error(`"${path}" cannot be copied to the vault trash`);
          await mkdir(trashRoot!, { recursive: true });
          await ensureParents(vault!, `.trash/${rel}`);
          await writeAtomic(abs, bytes, 0o644, durable);
          return rel;
        },
        async dropTrashCopy(rel) {
          const abs = inTrash(rel);
          if (!abs) return;
          await rm(abs, { force: true });
          // Empty folders left behind in `.trash/` go too (never `.trash/` itself).
          for (let d = dirname(abs); d !== trashRoot && isInside(trashRoot!, d); d = dirname(d)) {
            if (
              !(await rmdir(d).then(
                () => true,
                () => false,
              ))
            )
              break;
          }
        },
      }
    : {};

  return {
    ...trashCopies,
    async appendBlob(bytes) {
      const fh = await packFile();
      const at = packSize;
      packSize += bytes.length;
      await fh.write(bytes, 0, bytes.length);
      // Synced with the journal line that names these bytes (appendJournal), in parallel.
      packDirty = true;
      return at;
    },
    async readBlob(offset, length) {
      if (offset + length > packSize) return null;
      const fh = await open(join(opts.dir, packName), 'r');
      try {
        const buf = new Uint8Array(length);
        const { bytesRead } = await fh.read(buf, 0, length, offset);
        return bytesRead === length ? buf : null;
      } finally {
        await fh.close();
      }
    },
    async appendJournal(text) {
      const fh = await journalFile();
      const bytes = encoder.encode(text);
      journalSize += bytes.length;
      await fh.write(bytes, 0, bytes.length);
      if (durable) {
        const pack = packDirty && packFh ? (await packFh).datasync() : null;
        packDirty = false;
        await Promise.all([fh.datasync(), pack]);
      }
    },
    async syncBlobs() {
      if (!durable || !packDirty || !packFh) return;
      packDirty = false;
      try {
        await (await packFh).datasync();
      } catch (err) {
        packDirty = true; // the next attempt syncs again
        throw err;
      }
    },
    async readJournal() {
      const text = readFileSync(journalPath, 'utf8');
      return text.startsWith(HEADER) ? text.slice(text.indexOf('\n') + 1) : text;
    },
    async replace(pieces, journal) {
      const n = Number(packName.slice(5)) || 0;
      const nextName = `pack-${n + 1}`;
      const nextPack = await open(join(opts.dir, nextName), 'w', 0o600);
      let size = 0;
      try {
        for await (const p of pieces) {
          await nextPack.write(p, 0, p.length);
          size += p.length;
        }
        await nextPack.sync();
      } finally {
        await nextPack.close();
      }
      const tmp = join(opts.dir, 'journal.tmp');
      const text = `${HEADER}${nextName}\n${journal()}`;
      const jt = await open(tmp, 'w', 0o600);
      try {
        await jt.write(text);
        await jt.sync();
      } finally {
        await jt.close();
      }
      await closeAll();
      await rename(tmp, journalPath);
      const dirFd = openSync(opts.dir, 'r');
      try {
        fsyncSync(dirFd);
      } finally {
        closeSync(dirFd);
      }
      const old = packName;
      packName = nextName;
      packSize = size;
      journalSize = encoder.encode(text).length;
      await rm(join(opts.dir, old), { force: true });
    },
    async size() {
      return packSize + journalSize;
    },
    close: closeAll,
  };
}
