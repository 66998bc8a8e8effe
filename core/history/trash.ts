/**
 * Restoring out of the trash, once for every caller: the REST route, the MCP tool and
 * the agent's tool. It works through the services it is handed, so a scoped view (a key limited
 * to some folders) guards it as it guards every other write: the item must be in its folders.
 */
import { DomainError } from '../errors.ts';
import type { FileService } from '../files/service.ts';
import type { Note } from '../notes/context.ts';
import type { NoteService } from '../notes/service.ts';

/** Where the item came back: `note` is set for a note, absent for an attachment. */
export interface TrashRestore {
  path: string;
  from: string;
  note?: Note;
}

export interface TrashRestoreOptions {
  /** Who restores (recorded as the version's author). */
  by: string;
  /** The attachments; without it a file item is refused with `noFiles`. */
  files?: FileService;
  /** The refusal for a file item when `files` is absent. */
  noFiles?: DomainError;
}

/**
 * Writes trash item `id` back at its path, or beside it when that path is taken (never
 * overwrites), then takes it out of the trash. NOT_FOUND when the server keeps no history or
 * the item is unknown (or outside a scoped view's folders).
 */
export async function restoreFromTrash(
  notes: NoteService,
  id: string,
  opts: TrashRestoreOptions,
): Promise<TrashRestore> {
  const history = notes.history;
  if (!history) throw new DomainError('NOT_FOUND', 'This server keeps no history.');
  const item = await history.trashed(id);
  let out: TrashRestore;
  if (item.kind === 'note') {
    const r = await notes.withActor(opts.by, () => notes.restore(item.path, item.bytes, { to: 'free' }));
    out = { path: r.path, from: item.path, note: r.note };
  } else {
    const files = opts.files;
    if (!files) throw opts.noFiles ?? new DomainError('NOT_FOUND', 'This server serves no attachments.');
    out = { path: await files.restore(item.path, item.bytes, opts.by), from: item.path };
  }
  await history.untrash(item.id);
  return out;
}
