/** The MCP tools over the history and the trash. */
import type * as v from 'valibot';
import { DomainError } from '../../core/errors.ts';
import { authorOf, type KeyNames } from '../../core/history/author.ts';
import { restoreFromTrash } from '../../core/history/trash.ts';
import { trashOut, versionOut } from '../../core/history/wire.ts';
import type { McpToolInputs } from '../../core/notes/schemas.ts';
import type { NoteService } from '../../core/notes/service.ts';
import { type McpToolResult, toolResult } from './result.ts';

/** The tool names this file answers. */
export const HISTORY_TOOLS = {
  list_versions: true,
  restore_version: true,
  list_trash: true,
  restore_from_trash: true,
} as const;

type HistoryTool = keyof typeof HISTORY_TOOLS;
type Input<K extends HistoryTool> = v.InferOutput<(typeof McpToolInputs)[K]>;
interface Context {
  notes: NoteService;
  /** The `by` of a restore. */
  by: string;
  /** A key's name by its id: authors are named (a model repeats what it reads; never a key id). */
  names: KeyNames;
}

/** A version or trash item with its author named in place of the raw `by`. */
const named = <T extends { by: string }>({ by, ...rest }: T, names: KeyNames) => ({
  ...rest,
  author: authorOf(by, names),
});

/** The history of `notes`, or the error a server without one answers. */
function historyOf(notes: NoteService) {
  if (!notes.history) throw new DomainError('NOT_FOUND', 'This server keeps no history.');
  return notes.history;
}

/** Each history tool over its validated input; domain errors are thrown for the caller to wrap. */
export const HISTORY_HANDLERS: {
  [K in HistoryTool]: (i: Input<K>, c: Context) => Promise<McpToolResult>;
} = {
  list_versions: async (i, { notes, names }) =>
    toolResult({
      versions: historyOf(notes)
        .list(i.path)
        .map((x) => versionOut(named(x, names))),
    }),
  restore_version: async (i, { notes, by }) => {
    const version = await historyOf(notes).get(i.path, i.id);
    const r = await notes.withActor(by, () =>
      notes.restore(i.path, version.bytes, { to: 'same', ifMatch: i.ifMatch }),
    );
    return toolResult({ path: r.path, checksum: r.note.checksum });
  },
  list_trash: async (_i, { notes, names }) =>
    toolResult({
      items: historyOf(notes)
        .listTrash()
        .map((x) => trashOut(named(x, names))),
    }),
  restore_from_trash: async (i, { notes, by }) => {
    historyOf(notes);
    const noFiles = new DomainError(
      'VALIDATION_ERROR',
      'Restore files through POST /api/v1/trash/:id/restore.',
    );
    const r = await restoreFromTrash(notes, i.id, { by, noFiles });
    return toolResult({ path: r.path });
  },
};
