/**
 * What a load needs to know of the vault: its notes, folders and other files, from one
 * walk where the store can (`NoteStore.listAll`), else from the separate listings.
 */
import type { FileInfo, FileStore, Logger, NoteStore } from '../ports.ts';

export interface LoadListing {
  notes: FileInfo[];
  folders: string[];
  /** The vault's other files; null without a file store. */
  files: FileInfo[] | null;
}

/**
 * Lists the vault for a load. With `watch`, a store that can asks its walk to arm the watch (the
 * lifecycle's `watch` then adopts it: one walk for the index and the watcher). The file store's
 * files come from the same walk when it names the same `vault`; otherwise they are listed beside
 * it (a failure there is logged and leaves links to files unresolved until the reconcile).
 */
export async function listForLoad(
  store: NoteStore,
  files: (Pick<FileStore, 'list'> & Partial<Pick<FileStore, 'vault'>>) | undefined,
  logger: Logger | undefined,
  opts: { watch?: boolean } = {},
): Promise<LoadListing> {
  const listFiles = () =>
    files?.list().catch((err: unknown) => {
      logger?.warn('could not list the vault files; links to them stay unresolved until the reconcile', {
        error: err instanceof Error ? err.message : String(err),
      });
      return [];
    }) ?? Promise.resolve(null);
  if (store.listAll) {
    const shared = files?.vault !== undefined;
    const [all, others] = await Promise.all([
      store.listAll({ watch: opts.watch }),
      // Listed beside only when the walk cannot stand for the file store.
      shared ? null : listFiles(),
    ]);
    const same = shared && all.vault === files?.vault;
    return {
      notes: all.notes,
      folders: all.folders,
      files: !files ? null : same ? all.files : (others ?? (await listFiles())),
    };
  }
  const [notes, folders, others] = await Promise.all([store.list(), store.listFolders(), listFiles()]);
  return { notes, folders, files: others };
}

/** The notes and the other files for a reconcile, from one walk where the store can. */
export async function listForReconcile(
  store: NoteStore,
  files: (Pick<FileStore, 'list'> & Partial<Pick<FileStore, 'vault'>>) | undefined,
): Promise<{ notes: FileInfo[]; files: FileInfo[] | null }> {
  if (store.listAll && files?.vault !== undefined) {
    const all = await store.listAll();
    if (all.vault === files.vault) return { notes: all.notes, files: all.files };
    return { notes: all.notes, files: await files.list() };
  }
  const notes = await store.list();
  return { notes, files: files ? await files.list() : null };
}
