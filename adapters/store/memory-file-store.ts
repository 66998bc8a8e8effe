import { DomainError } from '../../core/errors.ts';
import type { Clock, FileInfo, FileStore } from '../../core/ports.ts';

/**
 * Attachments held in memory, for tests and embedding. Uploads are collected before they replace
 * the old bytes (atomic), refused past `maxBytes`; mtimes come from `clock` and move forward.
 */
export function memoryFileStore(
  opts: { clock?: Clock; files?: Record<string, Uint8Array | string>; obsidianAppConfig?: string } = {},
): FileStore {
  const clock = opts.clock ?? { now: () => Date.now() };
  const files = new Map<string, { bytes: Uint8Array; mtimeMs: number }>();
  let last = 0;
  const tick = () => {
    last = Math.max(last + 1, clock.now());
    return last;
  };
  const info = (path: string): FileInfo | null => {
    const f = files.get(path);
    return f ? { path, size: f.bytes.length, mtimeMs: f.mtimeMs } : null;
  };
  for (const [path, v] of Object.entries(opts.files ?? {})) {
    files.set(path, { bytes: typeof v === 'string' ? new TextEncoder().encode(v) : v, mtimeMs: tick() });
  }
  return {
    async stat(path) {
      return info(path);
    },
    async read(path, range) {
      const f = files.get(path);
      if (!f) return null;
      const bytes = range ? f.bytes.slice(range.start, range.end + 1) : f.bytes.slice();
      return new ReadableStream<Uint8Array>({
        start(controller) {
          if (bytes.length) controller.enqueue(bytes);
          controller.close();
        },
      });
    },
    async write(path, body, maxBytes) {
      const parts: Uint8Array[] = [];
      let total = 0;
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) {
          await reader.cancel().catch(() => {});
          throw new DomainError(
            'PAYLOAD_TOO_LARGE',
            `The file is larger than ${maxBytes} bytes (MAX_FILE_BYTES).`,
          );
        }
        parts.push(value);
      }
      const bytes = new Uint8Array(total);
      let at = 0;
      for (const p of parts) {
        bytes.set(p, at);
        at += p.byteLength;
      }
      files.set(path, { bytes, mtimeMs: tick() });
      return info(path)!;
    },
    async move(from, to) {
      const f = files.get(from);
      if (!f) throw new DomainError('FILE_NOT_FOUND', `No file at "${from}".`);
      if (files.has(to)) throw new DomainError('FILE_ALREADY_EXISTS', `A file already exists at "${to}".`);
      files.delete(from);
      files.set(to, f);
      return info(to)!;
    },
    async remove(path) {
      return files.delete(path);
    },
    async list() {
      return [...files.keys()].map((p) => info(p)!);
    },
    async obsidianAppConfig() {
      return opts.obsidianAppConfig ?? null;
    },
  };
}
