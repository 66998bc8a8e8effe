import { type FSWatcher, watch } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { StoreChange } from '../../core/ports.ts';

/**
 * Watches a vault folder and reports changes of notes and other files (attachments) in batches,
 * debounced by `debounceMs`.
 * Dot-files and dot-folders (including our own temporary files) are ignored; symlinks are not
 * followed.
 *
 * One `fs.watch` per folder (inotify reports the files of a watched folder), none per file, and the
 * start reads each folder's entries once without a `stat` of any file: at 10,000 notes the start costs
 * the main thread a few ms per hundred folders, where a watcher that stats and watches every file
 * (chokidar, used before) cost 1.7 s and a watch handle per note. A folder that appears is watched and
 * its files are reported (they may have been written before its watch began); a watched folder that
 * disappears is reported as `folder-removed`. Each reported path is checked by the note service
 * (stat and checksum), so a spurious report costs a stat and changes nothing.
 */
export function watchVault(
  root: string,
  onChanges: (changes: StoreChange[]) => void,
  debounceMs: number,
  toRel: (abs: string) => string,
): Promise<() => Promise<void>> {
  const pending = new Map<string, StoreChange['kind']>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const watchers = new Map<string, FSWatcher>();
  const flush = () => {
    timer = undefined;
    const batch = [...pending].map(([path, kind]) => ({ path, kind }));
    pending.clear();
    if (batch.length && !stopped) onChanges(batch);
  };
  const push = (abs: string, kind: StoreChange['kind']) => {
    const rel = toRel(abs);
    if (!rel || rel.startsWith('..') || rel.split('/').some((s) => s.startsWith('.'))) return;
    pending.set(rel, kind);
    timer ??= setTimeout(flush, debounceMs);
  };

  const unwatch = (dir: string) => {
    for (const [d, w] of watchers) {
      if (d === dir || d.startsWith(dir + sep)) {
        w.close();
        watchers.delete(d);
      }
    }
  };

  /** Watches `dir` and the folders below it; with `report`, reports the notes found (a new folder). */
  const add = async (dir: string, report: boolean): Promise<void> => {
    if (stopped || watchers.has(dir)) return;
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: false }, (_event, name) => {
        if (typeof name === 'string' && name) void seen(join(dir, name));
      });
    } catch {
      return;
    }
    w.on('error', () => unwatch(dir));
    watchers.set(dir, w);
    // Read after the watch began, so nothing created in between is missed.
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const abs = join(dir, e.name);
      if (e.isDirectory()) await add(abs, report);
      else if (report && (e.isFile() || e.isSymbolicLink())) push(abs, 'changed');
    }
  };

  /** Something named `abs` changed: a note, a new folder, or a removed one. */
  const seen = async (abs: string) => {
    if (stopped) return;
    const name = abs.slice(abs.lastIndexOf(sep) + 1);
    if (name.startsWith('.')) return;
    const st = await lstat(abs).catch(() => null);
    if (!st) {
      if (watchers.has(abs)) {
        unwatch(abs);
        push(abs, 'folder-removed');
      } else push(abs, 'removed');
      return;
    }
    if (st.isDirectory()) await add(abs, true);
    // A symlink is reported as what it names may be a note; the note service checks where it leads.
    else if (st.isFile() || st.isSymbolicLink()) push(abs, 'changed');
  };

  const stop = async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  return add(root, false).then(() => stop);
}
