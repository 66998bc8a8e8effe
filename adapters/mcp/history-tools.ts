/** The MCP tools over the history and the trash. */
import { DomainError } from '../../core/errors.ts';
import { restoreFromTrash } from '../../core/history/trash.ts';
import type { NoteService } from '../../core/notes/service.ts';
import { type McpToolResult, toolResult } from './result.ts';

/** The tool names this file answers. */
export const HISTORY_TOOLS = {
  list_versions: true,
  restore_version: true,
  list_trash: true,
  restore_from_trash: true,
} as const;

/** Runs one history tool with validated input; domain errors are thrown for the caller to wrap. */
export async function runHistoryTool(
  notes: NoteService,
  tool: keyof typeof HISTORY_TOOLS,
  i: Record<string, unknown>,
  by = 'mcp',
): Promise<McpToolResult> {
  const history = notes.history;
  if (!history) throw new DomainError('NOT_FOUND', 'This server keeps no history.');
  switch (tool) {
    case 'list_versions':
      return toolResult({ versions: history.list(String(i.path)) });
    case 'restore_version': {
      const v = await history.get(String(i.path), String(i.id));
      const ifMatch = i.ifMatch as string | undefined;
      const r = await notes.withActor(by, () =>
        notes.restore(String(i.path), v.bytes, { to: 'same', ifMatch }),
      );
      return toolResult({ path: r.path, checksum: r.note.checksum });
    }
    case 'list_trash':
      return toolResult({ items: history.listTrash() });
    case 'restore_from_trash': {
      const noFiles = new DomainError(
        'VALIDATION_ERROR',
        'Restore files through POST /api/v1/trash/:id/restore.',
      );
      const r = await restoreFromTrash(notes, String(i.id), { by, noFiles });
      return toolResult({ path: r.path });
    }
  }
}
