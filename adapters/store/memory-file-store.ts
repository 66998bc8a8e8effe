import { DomainError } from '../../core/errors.ts';
import type { Clock, FileStore } from '../../core/ports.ts';
import { memoryFiles } from './memory-files.ts';

/**
 * Attachments held in memory, for tests and embedding. Uploads are collected before they replace
 * the old bytes (atomic), refused past `maxBytes`; mtimes come from `clock` and move forward.
 */
export function memoryFileStore(
  opts: { clock?: Clock; files?: Record<string, Uint8Array | string>; obsidianAppConfig?: string } = {},
): FileStore {
  const { files, info, put, move } = memoryFiles(opts.clock);
  for (const [path, v] of Object.entries(opts.files ?? {})) {
    put(path, typeof v === 'string' ? new TextEncoder().encode(v) : v);
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
      return put(path, bytes);
    },
    async move(from, to) {
      return move(
        from,
        to,
        () => new DomainError('FILE_NOT_FOUND', `No file at "${from}".`),
        () => new DomainError('FILE_ALREADY_EXISTS', `A file already exists at "${to}".`),
      );
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
