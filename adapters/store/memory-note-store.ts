import type { Clock, NoteStore } from '../../core/ports.ts';
import { memoryFiles } from './memory-files.ts';

/**
 * A vault held in memory, for tests and for embedding. Modification times come from `clock`
 * and always move forward, so every write is visible as a change.
 */
export function memoryNoteStore(opts: { clock?: Clock; files?: Record<string, string> } = {}): NoteStore {
  const { files, info, put, move } = memoryFiles(opts.clock);
  const folders = new Set<string>();
  const addFolders = (path: string) => {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  };
  for (const [path, text] of Object.entries(opts.files ?? {})) {
    put(path, new TextEncoder().encode(text));
    addFolders(path);
  }
  return {
    async read(path) {
      const f = files.get(path);
      return f ? f.bytes.slice() : null;
    },
    async stat(path) {
      return info(path);
    },
    async write(path, bytes) {
      addFolders(path);
      return put(path, bytes.slice());
    },
    async move(from, to) {
      const moved = move(
        from,
        to,
        () => new Error(`memoryNoteStore.move: no file at ${from}`),
        () => new Error(`memoryNoteStore.move: ${to} exists`),
      );
      addFolders(to);
      return moved;
    },
    async remove(path) {
      return files.delete(path);
    },
    async list() {
      return [...files.keys()].filter((p) => p.toLowerCase().endsWith('.md')).map((p) => info(p)!);
    },
    async listFolders() {
      return [...folders];
    },
  };
}
