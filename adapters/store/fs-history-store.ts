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
 * Opens the history folder at start: which pack the journal names, the packs no journal names
 * (a crash mid-prune) removed, and a torn last line of the journal ended.
 */
function openHistoryDir(dir: string, journalPath: string): { packName: string } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let packName = 'pack-0';
  if (existsSync(journalPath)) {
    const first = readFileSync(journalPath, 'utf8').split('\n', 1)[0] ?? '';
    if (first.startsWith(HEADER)) packName = first.slice(HEADER.length).trim();
  }
  for (const name of readdirSync(dir)) {
    if (name !== packName && name !== 'journal') rmSync(join(dir, name), { force: true });
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
  return { packName };
}

/** Copies of trashed items in `<vault>/.trash/` (TRASH_DIR=vault), Obsidian's convention. */
function vaultTrashCopies(
  vaultDir: string,
  durable: boolean,
): Pick<HistoryStore, 'keepTrashCopy' | 'dropTrashCopy'> {
  const vault = resolve(vaultDir);
  const trashRoot = join(vault, '.trash');
  /** The absolute place of `.trash/<rel>`, or null when `rel` would leave `.trash/`. */
  const inTrash = (rel: string): string | null => {
    const abs = resolve(trashRoot, rel);
    return rel && !rel.startsWith('/') && isInside(trashRoot, abs) && abs !== trashRoot ? abs : null;
  };
  const taken = (abs: string) =>
    lstat(abs).then(
      () => true,
      () => false,
    );
  return {
    async keepTrashCopy(path, bytes) {
      const dot = path.lastIndexOf('.');
      const slash = path.lastIndexOf('/');
      const [stem, ext] = dot > slash + 1 ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
      let rel = path;
      for (let n = 2; inTrash(rel) && (await taken(inTrash(rel)!)); n++) rel = `${stem} (${n})${ext}`;
      const abs = inTrash(rel);
      if (!abs) throw new Error(`"${path}" cannot be copied to the vault trash`);
      await mkdir(trashRoot, { recursive: true });
      await ensureParents(vault, `.trash/${rel}`);
      await writeAtomic(abs, bytes, 0o644, durable);
      return rel;
    },
    async dropTrashCopy(rel) {
      const abs = inTrash(rel);
      if (!abs) return;
      await rm(abs, { force: true });
      // Empty folders left behind in `.trash/` go too (never `.trash/` itself).
      for (let d = dirname(abs); d !== trashRoot && isInside(trashRoot, d); d = dirname(d)) {
        if (
          !(await rmdir(d).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    },
  };
}

const encoder = new TextEncoder();

/** The pack and the journal: their names and sizes, the open append handles, unsynced pack bytes. */
class FsHistory {
  private readonly journalPath: string;
  private packName: string;
  private packSize: number;
  private journalSize: number;
  private packFh: Promise<FileHandle> | null = null;
  private packDirty = false;
  private journalFh: Promise<FileHandle> | null = null;

  constructor(
    private readonly dir: string,
    private readonly durable: boolean,
  ) {
    this.journalPath = join(dir, 'journal');
    this.packName = openHistoryDir(dir, this.journalPath).packName;
    const pack = join(dir, this.packName);
    this.packSize = existsSync(pack) ? statSync(pack).size : 0;
    this.journalSize = statSync(this.journalPath).size;
  }

  private packFile(): Promise<FileHandle> {
    this.packFh ??= open(join(this.dir, this.packName), 'a', 0o600);
    return this.packFh;
  }

  private journalFile(): Promise<FileHandle> {
    this.journalFh ??= open(this.journalPath, 'a', 0o600);
    return this.journalFh;
  }

  async closeAll(): Promise<void> {
    const handles = [this.packFh, this.journalFh];
    this.packFh = null;
    this.journalFh = null;
    for (const fh of handles) if (fh) await (await fh).close().catch(() => {});
  }

  async appendBlob(bytes: Uint8Array): Promise<number> {
    const fh = await this.packFile();
    const at = this.packSize;
    this.packSize += bytes.length;
    await fh.write(bytes, 0, bytes.length);
    // Synced with the journal line that names these bytes (appendJournal), in parallel.
    this.packDirty = true;
    return at;
  }

  async readBlob(offset: number, length: number): Promise<Uint8Array | null> {
    if (offset + length > this.packSize) return null;
    const fh = await open(join(this.dir, this.packName), 'r');
    try {
      const buf = new Uint8Array(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      return bytesRead === length ? buf : null;
    } finally {
      await fh.close();
    }
  }

  async appendJournal(text: string): Promise<void> {
    const fh = await this.journalFile();
    const bytes = encoder.encode(text);
    this.journalSize += bytes.length;
    await fh.write(bytes, 0, bytes.length);
    if (this.durable) {
      const pack = this.packDirty && this.packFh ? (await this.packFh).datasync() : null;
      this.packDirty = false;
      await Promise.all([fh.datasync(), pack]);
    }
  }

  async syncBlobs(): Promise<void> {
    if (!this.durable || !this.packDirty || !this.packFh) return;
    this.packDirty = false;
    try {
      await (await this.packFh).datasync();
    } catch (err) {
      this.packDirty = true; // the next attempt syncs again
      throw err;
    }
  }

  async readJournal(): Promise<string> {
    const text = readFileSync(this.journalPath, 'utf8');
    return text.startsWith(HEADER) ? text.slice(text.indexOf('\n') + 1) : text;
  }

  /** A new pack, then a new journal naming it, switched in by one rename. */
  async replace(pieces: AsyncIterable<Uint8Array>, journal: () => string): Promise<void> {
    const n = Number(this.packName.slice(5)) || 0;
    const nextName = `pack-${n + 1}`;
    const nextPack = await open(join(this.dir, nextName), 'w', 0o600);
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
    const tmp = join(this.dir, 'journal.tmp');
    const text = `${HEADER}${nextName}\n${journal()}`;
    const jt = await open(tmp, 'w', 0o600);
    try {
      await jt.write(text);
      await jt.sync();
    } finally {
      await jt.close();
    }
    await this.closeAll();
    await rename(tmp, this.journalPath);
    const dirFd = openSync(this.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    const old = this.packName;
    this.packName = nextName;
    this.packSize = size;
    this.journalSize = encoder.encode(text).length;
    await rm(join(this.dir, old), { force: true });
  }

  size(): number {
    return this.packSize + this.journalSize;
  }
}

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
  const h = new FsHistory(opts.dir, durable);
  return {
    ...(opts.vaultTrash ? vaultTrashCopies(opts.vaultTrash, durable) : {}),
    appendBlob: (bytes) => h.appendBlob(bytes),
    readBlob: (offset, length) => h.readBlob(offset, length),
    appendJournal: (text) => h.appendJournal(text),
    syncBlobs: () => h.syncBlobs(),
    readJournal: () => h.readJournal(),
    replace: (pieces, journal) => h.replace(pieces, journal),
    size: async () => h.size(),
    close: () => h.closeAll(),
  };
}
