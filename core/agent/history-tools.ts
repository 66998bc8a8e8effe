/**
 * The agent's tools over the history and the trash: list a note's versions, restore
 * one, list the trash, restore from it. Offered only when the server keeps a history. Restores
 * are normal writes by `agent`, so each is itself a version and can be undone.
 */
import * as v from 'valibot';
import { DomainError } from '../errors.ts';
import { authorOf, type KeyNames, noKeyNames } from '../history/author.ts';
import { restoreFromTrash } from '../history/trash.ts';
import type { NoteService } from '../notes/service.ts';
import { stem } from '../paths.ts';
import { resolveNote } from './tools.ts';
import type { AgentTool } from './types.ts';

const tool = <S extends v.GenericSchema>(t: AgentTool<S>): AgentTool => t as unknown as AgentTool;
const pathField = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(1024));
const idField = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64));
/** Most versions or trash items handed to the model at once. */
const LIST_LIMIT = 50;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The four history tools over `notes`, or none when it keeps no history. Authors are named
 * (`names` gives a key's device name): a model repeats what it reads, so it never reads a key id.
 */
export function historyTools(notes: NoteService, names: KeyNames = noKeyNames): AgentTool[] {
  const history = notes.history;
  if (!history) return [];
  /** A note by path or title; a deleted note (no longer listed) by its exact path when it has versions. */
  const pathOf = (ref: string): string => {
    try {
      return resolveNote(notes, ref);
    } catch (err) {
      const raw = ref.trim().replace(/^\/+/, '');
      for (const p of [raw, `${raw}.md`]) if (history.list(p).length) return p;
      throw err;
    }
  };
  return [
    tool({
      name: 'list_versions',
      description:
        'Lists the kept versions of a note (by path or title), newest first: id, time, who made the change (the device or key name, agent, an MCP client, another program...) and the kind of change (create, update, patch, move, delete, restore, outside).',
      input: v.object({
        path: pathField,
        limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIST_LIMIT))),
      }),
      write: false,
      async run({ path: ref, limit = 20 }) {
        const path = pathOf(ref);
        const all = history.list(path);
        const versions = all.slice(0, limit).map((x) => ({
          id: x.id,
          at: iso(x.at),
          author: authorOf(x.by, names),
          change: x.change,
          size: x.size,
        }));
        return {
          output: { path, total: all.length, versions },
          action: {
            type: 'list_versions',
            summary: `Listed ${versions.length} of ${all.length} version${all.length === 1 ? '' : 's'} of "${path}".`,
            path,
          },
          related: notes.list().items.some((n) => n.path === path) ? [{ path, title: stem(path) }] : [],
        };
      },
    }),
    tool({
      name: 'restore_version',
      description:
        'Restores a version of a note (an id from list_versions): its text replaces the note (recreated if it was deleted). The text it replaces is kept as a version, so this can be undone.',
      input: v.object({ path: pathField, id: idField }),
      write: true,
      async run({ path: ref, id }) {
        const path = pathOf(ref);
        const version = await history.get(path, id);
        const r = await notes.withActor('agent', () => notes.restore(path, version.bytes, { to: 'same' }));
        return {
          output: { restored: r.path, version: id, checksum: r.note.checksum },
          action: {
            type: 'restore_version',
            summary: `Restored "${r.note.title}" to its version of ${iso(version.at)}.`,
            path: r.path,
          },
          related: [{ path: r.path, title: r.note.title }],
        };
      },
    }),
    tool({
      name: 'list_trash',
      description:
        'Lists the deleted notes and files in the trash, newest first: id, original path, when and by whom.',
      input: v.object({}),
      write: false,
      async run() {
        const all = history.listTrash();
        const items = all.slice(0, LIST_LIMIT).map((x) => ({
          id: x.id,
          path: x.path,
          kind: x.kind,
          deletedAt: iso(x.deletedAt),
          author: authorOf(x.by, names),
        }));
        return {
          output: { total: all.length, items },
          action: {
            type: 'list_trash',
            summary: `Listed the trash: ${all.length} item${all.length === 1 ? '' : 's'}.`,
          },
          related: [],
        };
      },
    }),
    tool({
      name: 'restore_from_trash',
      description:
        'Restores a deleted note from the trash (an id from list_trash) to its original path, or beside it as "name (restored).md" when that path is taken: never overwrites.',
      input: v.object({ id: idField }),
      write: true,
      async run({ id }) {
        const noFiles = new DomainError(
          'VALIDATION_ERROR',
          'Only notes can be restored here; restore files from the Trash view.',
        );
        const r = await restoreFromTrash(notes, id, { by: 'agent', noFiles });
        const title = r.note?.title ?? stem(r.path);
        return {
          output: { restored: r.path, from: r.from },
          action: {
            type: 'restore_from_trash',
            summary: `Restored "${title}" from the trash.`,
            path: r.path,
          },
          related: [{ path: r.path, title }],
        };
      },
    }),
  ];
}
