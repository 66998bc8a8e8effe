import { watch } from 'chokidar';
import type { StoreChange } from '../../core/ports.ts';

/**
 * Watches a vault folder and reports changes of notes and other files (attachments) in batches,
 * debounced by `debounceMs`.
 * Dot-files and dot-folders (including our own temporary files) are ignored.
 */
export function watchVault(
  root: string,
  onChanges: (changes: StoreChange[]) => void,
  debounceMs: number,
  toRel: (abs: string) => string,
): Promise<() => Promise<void>> {
  const pending = new Map<string, StoreChange['kind']>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    const batch = [...pending].map(([path, kind]) => ({ path, kind }));
    pending.clear();
    if (batch.length) onChanges(batch);
  };
  const push = (abs: string, kind: StoreChange['kind']) => {
    const rel = toRel(abs);
    if (!rel || rel.startsWith('..')) return;
    pending.set(rel, kind);
    timer ??= setTimeout(flush, debounceMs);
  };
  const watcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    ignored: (p: string) => {
      const rel = toRel(p);
      return rel.split('/').some((s) => s.startsWith('.'));
    },
  });
  watcher.on('add', (p) => push(p, 'changed'));
  watcher.on('change', (p) => push(p, 'changed'));
  watcher.on('unlink', (p) => push(p, 'removed'));
  watcher.on('unlinkDir', (p) => push(p, 'folder-removed'));
  watcher.on('error', () => {});
  const stop = async () => {
    if (timer) clearTimeout(timer);
    await watcher.close();
  };
  return new Promise((resolve) => watcher.once('ready', () => resolve(stop)));
}
