import type { Clock, FileInfo } from '../../core/ports.ts';

/**
 * The map behind both memory stores (notes and attachments): bytes by path, each with an mtime
 * from `clock` that always moves forward, so every write is visible as a change.
 */
export function memoryFiles(clock: Clock = { now: () => Date.now() }) {
  const files = new Map<string, { bytes: Uint8Array; mtimeMs: number }>();
  let last = 0;
  const info = (path: string): FileInfo | null => {
    const f = files.get(path);
    return f ? { path, size: f.bytes.length, mtimeMs: f.mtimeMs } : null;
  };
  /** Stores `bytes` at `path` with the next mtime. */
  const put = (path: string, bytes: Uint8Array): FileInfo => {
    last = Math.max(last + 1, clock.now());
    files.set(path, { bytes, mtimeMs: last });
    return info(path)!;
  };
  /** Renames `from` to `to` (mtime kept); the errors are the store's own. */
  const move = (from: string, to: string, missing: () => Error, taken: () => Error): FileInfo => {
    const f = files.get(from);
    if (!f) throw missing();
    if (files.has(to)) throw taken();
    files.delete(from);
    files.set(to, f);
    return info(to)!;
  };
  return { files, info, put, move };
}
