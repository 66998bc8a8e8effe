import { createReadStream, mkdirSync, realpathSync } from 'node:fs';
import { link, lstat, open, readdir, readFile, realpath, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { DomainError } from '../../core/errors.ts';
import type { FileInfo, FileStore } from '../../core/ports.ts';
import {
  ensureParents,
  isInside,
  refuseSymlink,
  resolveInside,
  statAfterReplace,
  TEMP_PREFIX,
  tempsInFlight,
} from './fs-safe.ts';

const WRITE_CHUNK = 1024 * 1024;
const isAttachment = (name: string) => !name.startsWith('.') && !name.toLowerCase().endsWith('.md');
const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;
const tooLarge = (max: number) =>
  new DomainError('PAYLOAD_TOO_LARGE', `The file is larger than ${max} bytes (MAX_FILE_BYTES).`);

/**
 * The vault's attachments on disk, beside the notes of `fsNoteStore` (same folder, same rules:
 * nothing read or written through a symlink that leaves the vault, dot-folders skipped). Uploads
 * stream into a temporary file in the target folder (flushed, then renamed over the target), so
 * readers see the old or the new file, a crash leaves the old one, and a body over the limit
 * leaves nothing.
 */
export function fsFileStore(opts: { dir: string }): FileStore {
  mkdirSync(opts.dir, { recursive: true });
  const root = realpathSync(opts.dir);
  const toInfo = (path: string, st: { size: number; mtimeMs: number }): FileInfo => ({
    path,
    size: st.size,
    mtimeMs: st.mtimeMs,
  });
  const fileAt = async (path: string) => {
    const abs = await resolveInside(root, path);
    const st = abs ? await stat(abs).catch(() => null) : null;
    return abs && st?.isFile() ? { abs, st } : null;
  };

  return {
    // The note store's one walk names the same folder (its realpath), so a start lists these files there.
    vault: root,
    async stat(path) {
      const f = await fileAt(path);
      return f ? toInfo(path, f.st) : null;
    },
    async read(path, range) {
      const f = await fileAt(path);
      if (!f) return null;
      // 256 KiB reads: a quarter of the chunks (and stream hops) of the 64 KiB default.
      const nodeStream = createReadStream(f.abs, {
        highWaterMark: 256 * 1024,
        ...(range ? { start: range.start, end: range.end } : {}),
      });
      return Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>;
    },
    async write(path, body, maxBytes) {
      await ensureParents(root, path);
      const abs = join(root, path);
      const prev = await lstat(abs).catch(() => null);
      // Neither followed nor replaced: a symlink is no file (docs/reference/security.md).
      await refuseSymlink(root, path, prev);
      if (prev?.isDirectory()) throw new DomainError('INVALID_PATH', `"${path}" is a folder.`);
      const tmp = join(dirname(abs), `${TEMP_PREFIX}${crypto.randomUUID().slice(0, 12)}`);
      tempsInFlight.add(tmp);
      try {
        const fh = await open(tmp, 'wx', 0o644);
        try {
          let total = 0;
          // Small network chunks are gathered into 1 MiB writes (far fewer system calls).
          const buffer = new Uint8Array(WRITE_CHUNK);
          let filled = 0;
          for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
            total += chunk.byteLength;
            if (total > maxBytes) throw tooLarge(maxBytes);
            if (filled + chunk.byteLength > WRITE_CHUNK && filled > 0) {
              await fh.write(buffer, 0, filled);
              filled = 0;
            }
            if (chunk.byteLength >= WRITE_CHUNK) await fh.write(chunk);
            else {
              buffer.set(chunk, filled);
              filled += chunk.byteLength;
            }
          }
          if (filled > 0) await fh.write(buffer, 0, filled);
          await fh.sync();
        } finally {
          await fh.close().catch(() => {});
        }
        await rename(tmp, abs);
      } catch (err) {
        await rm(tmp, { force: true });
        // Stop reading the request so its remaining bytes are not waited for.
        await body.cancel().catch(() => {});
        throw err;
      } finally {
        tempsInFlight.delete(tmp);
      }
      // A coarse file-system clock could give a replace the old mtime, and with it the old ETag.
      return toInfo(path, await statAfterReplace(abs, prev));
    },
    async move(from, to) {
      const src = await resolveInside(root, from);
      if (!src) throw new DomainError('FILE_NOT_FOUND', `No file at "${from}".`);
      await ensureParents(root, to);
      const dest = join(root, to);
      try {
        // link() refuses to replace an existing file, so a move never clobbers one.
        await link(src, dest);
      } catch (err) {
        if (code(err) === 'EEXIST')
          throw new DomainError('FILE_ALREADY_EXISTS', `A file already exists at "${to}".`);
        throw err;
      }
      await unlink(src);
      return toInfo(to, await stat(dest));
    },
    async remove(path) {
      const f = await fileAt(path);
      if (!f) return false;
      try {
        await unlink(f.abs);
        return true;
      } catch (err) {
        if (code(err) === 'ENOENT') return false;
        throw err;
      }
    },
    async list() {
      const out: FileInfo[] = [];
      const stack = [''];
      while (stack.length) {
        const rel = stack.pop()!;
        const dirents = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
        for (const d of dirents) {
          if (d.name.startsWith('.') || d.name.includes('\\')) continue;
          const childRel = rel ? `${rel}/${d.name}` : d.name;
          const abs = join(root, childRel);
          if (d.isDirectory()) stack.push(childRel);
          // A symlink is not followed (docs/reference/security.md): what it names is listed under its real path.
          else if (d.isFile() && isAttachment(d.name)) {
            const st = await stat(abs).catch(() => null);
            if (st?.isFile()) out.push(toInfo(childRel, st));
          }
        }
      }
      return out;
    },
    async obsidianAppConfig() {
      const abs = join(root, '.obsidian', 'app.json');
      const real = await realpath(abs).catch(() => null);
      if (!real || !isInside(root, real)) return null;
      return readFile(real, 'utf8').catch(() => null);
    },
  };
}
