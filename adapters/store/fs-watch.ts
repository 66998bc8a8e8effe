import { type FSWatcher, watch } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { StopWatching, StoreChange } from '../../core/ports.ts';

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
): Promise<StopWatching> {
  const set = vaultWatchSet(debounceMs, toRel);
  return set.walk(root).then(() => set.start(onChanges, false));
}

/**
 * The watches of one vault, armed folder by folder by whoever walks it (the store's one
 * walk arms each folder before reading it, so nothing created meanwhile is missed) and started
 * later: changes seen before `start` wait in the batch and are reported by it.
 */
export function vaultWatchSet(debounceMs: number, toRel: (abs: string) => string) {
  let onChanges: ((changes: StoreChange[]) => void) | null = null;
  const pending = new Map<string, StoreChange['kind']>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const watchers = new Map<string, FSWatcher>();
  const flush = () => {
    timer = undefined;
    const batch = [...pending].map(([path, kind]) => ({ path, kind }));
    pending.clear();
    if (batch.length && !stopped) onChanges?.(batch);
  };
  const push = (abs: string, kind: StoreChange['kind']) => {
    const rel = toRel(abs);
    if (!rel || rel.startsWith('..') || rel.split('/').some((s) => s.startsWith('.'))) return;
    pending.set(rel, kind);
    if (onChanges) timer ??= setTimeout(flush, debounceMs);
  };

  const unwatch = (dir: string) => {
    for (const [d, w] of watchers) {
      if (d === dir || d.startsWith(dir + sep)) {
        w.close();
        watchers.delete(d);
      }
    }
  };

  /** Starts watching the folder `dir` (not below it); false when it is watched already or cannot be. */
  const arm = (dir: string): boolean => {
    if (stopped || watchers.has(dir)) return false;
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: false }, (_event, name) => {
        if (typeof name === 'string' && name) void seen(join(dir, name));
      });
    } catch {
      return false;
    }
    w.on('error', () => unwatch(dir));
    watchers.set(dir, w);
    return true;
  };

  /** Watches `dir` and the folders below it; with `report`, reports the notes found (a new folder). */
  const add = async (dir: string, report: boolean): Promise<void> => {
    if (!arm(dir)) return;
    // Read after the watch began, so nothing created in between is missed.
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const abs = join(dir, e.name);
      if (e.isDirectory()) await add(abs, report);
      else if (report && e.isFile()) push(abs, 'changed');
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
    else if (st.isFile()) push(abs, 'changed');
    // A symlink is not followed (docs/reference/security.md): a note replaced by one is gone from its path.
    else if (st.isSymbolicLink()) push(abs, 'removed');
  };

  const stop = async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  return {
    /** Arms `dir` alone (the caller reads it next and arms the folders it finds). */
    arm,
    /** Arms `dir` and every folder below it, reading each (a start without a walk to share). */
    walk: (dir: string) => add(dir, false),
    /**
     * Reports changes from now on, and those seen since the folders were armed, to `onChanges`.
     * `sinceListing`: the folders were armed by the listing walk (no gap to reconcile).
     */
    start(fn: (changes: StoreChange[]) => void, sinceListing: boolean): StopWatching {
      onChanges = fn;
      if (pending.size) timer ??= setTimeout(flush, debounceMs);
      return Object.assign(stop, { sinceListing });
    },
    stop,
    get started(): boolean {
      return onChanges !== null;
    },
  };
}

export type VaultWatchSet = ReturnType<typeof vaultWatchSet>;
