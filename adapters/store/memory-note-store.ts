import type { Clock, FileInfo, NoteStore } from '../../core/ports.ts';

/**
 * A vault held in memory, for tests and for embedding. Modification times come from `clock`
 * and always move forward, so every write is visible as a change.
 */
export function memoryNoteStore(opts: { clock?: Clock; files?: Record<string, string> } = {}): NoteStore {
  const clock = opts.clock ?? { now: () => Date.now() };
  const files = new Map<string, { bytes: Uint8Array; mtimeMs: number }>();
  const folders = new Set<string>();
  let last = 0;
  const tick = () => {
    last = Math.max(last + 1, clock.now());
    return last;
  };
  const info = (path: string): FileInfo | null => {
    const f = files.get(path);
    return f ? { path, size: f.bytes.length, mtimeMs: f.mtimeMs } : null;
  };
  const addFolders = (path: string) => {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  };
  for (const [path, text] of Object.entries(opts.files ?? {})) {
    files.set(path, { bytes: new TextEncoder().encode(text), mtimeMs: tick() });
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
      files.set(path, { bytes: bytes.slice(), mtimeMs: tick() });
      addFolders(path);
      return info(path)!;
    },
    async move(from, to) {
      const f = files.get(from);
      if (!f) throw new Error(`memoryNoteStore.move: no file at ${from}`);
      if (files.has(to)) throw new Error(`memoryNoteStore.move: ${to} exists`);
      files.delete(from);
      files.set(to, f);
      addFolders(to);
      return info(to)!;
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
