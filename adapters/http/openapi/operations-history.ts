/** The documented operations of the history and the trash. */
import * as v from 'valibot';
import type { Operation, Param } from './operation.ts';

/** ISO 8601 with milliseconds, as every timestamp of the API. */
const isoDate = v.pipe(v.string(), v.isoTimestamp());

const change = v.picklist([
  'create',
  'update',
  'patch',
  'move',
  'delete',
  'restore',
  'links',
  'outside',
  'baseline',
]);

/** One kept version of a note. */
export const VersionItem = v.object({
  id: v.string(),
  at: isoDate,
  size: v.number(),
  checksum: v.string(),
  by: v.string(),
  /** Who, for people: the key's name (its device), a client, `agent`, `another program`. */
  author: v.string(),
  change,
});

/** A version with its content. */
export const VersionContent = v.object({
  id: v.string(),
  content: v.string(),
  checksum: v.string(),
  at: isoDate,
  by: v.string(),
  /** Who, for people: the key's name (its device), a client, `agent`, `another program`. */
  author: v.string(),
  change,
});

/** A unified diff between two versions (or a version and the current note). */
export const VersionDiff = v.object({
  from: v.string(),
  to: v.string(),
  diff: v.string(),
  /** Whether both sides hold the frontmatter block (`included`) or neither does (`excluded`). */
  frontmatter: v.picklist(['included', 'excluded']),
});

/** An item of the trash. */
/** One change as the activity lists it. */
export const ActivityItem = v.object({
  at: isoDate,
  path: v.string(),
  change,
  /** Who, for people: a person with their device (`Ann (laptop)`), a key's name, a client... */
  author: v.string(),
});

export const TrashItem = v.object({
  id: v.string(),
  path: v.string(),
  kind: v.picklist(['note', 'file']),
  deletedAt: isoDate,
  by: v.string(),
  /** Who, for people: the key's name (its device), a client, `agent`, `another program`. */
  author: v.string(),
  size: v.number(),
  checksum: v.string(),
});

const ifMatch: Record<string, Param> = {
  'If-Match': {
    description: "The note's current checksum; 412 when it changed since.",
    schema: { type: 'string' },
  },
};

/** The history and trash routes. */
export const history: Operation[] = [
  {
    id: 'listVersions',
    method: 'get',
    path: '/api/v1/notes/{path}/versions',
    tag: 'Notes',
    summary: "A note's kept versions, newest first (history follows moves)",
    data: v.array(VersionItem),
    errors: [404],
  },
  {
    id: 'getVersion',
    method: 'get',
    path: '/api/v1/notes/{path}/versions/{id}',
    tag: 'Notes',
    summary: 'One version with its content, or with ?diff=<id|current> a unified diff from that one to it',
    query: {
      diff: {
        description: 'Another version id, or `current` (the note as it is now): answers {from, to, diff}.',
        schema: { type: 'string' },
      },
    },
    data: v.union([VersionContent, VersionDiff]),
    errors: [404],
  },
  {
    id: 'restoreVersion',
    method: 'post',
    path: '/api/v1/notes/{path}/versions/{id}/restore',
    tag: 'Notes',
    summary: 'Write a version back (a normal write: If-Match, and itself a new version)',
    headers: ifMatch,
    data: v.object({ path: v.string(), checksum: v.string() }),
    errors: [404, 412],
  },
  {
    id: 'listActivity',
    method: 'get',
    path: '/api/v1/activity',
    tag: 'Notes',
    summary: 'Who did what, newest first: the changes of the notes you can see, and their deletions',
    description:
      'Every kept version of each note the key sees (its change and author: a person with their ' +
      'device, a key by its name, a client, `agent`, `another program`) and every deletion in the ' +
      'trash, newest first. A key limited to folders sees the changes there only.',
    query: {
      limit: {
        description: 'How many changes, 1 to 500 (default 50).',
        schema: { type: 'integer', minimum: 1, maximum: 500 },
      },
    },
    data: v.array(ActivityItem),
    errors: [400],
  },
  {
    id: 'listTrash',
    method: 'get',
    path: '/api/v1/trash',
    tag: 'Notes',
    summary: 'Deleted notes and files, newest first (kept TRASH_RETENTION_DAYS)',
    data: v.array(TrashItem),
  },
  {
    id: 'restoreFromTrash',
    method: 'post',
    path: '/api/v1/trash/{id}/restore',
    tag: 'Notes',
    summary: 'Restore an item to its original path, or beside it when taken (never overwrites)',
    data: v.object({ path: v.string() }),
    errors: [404],
  },
  {
    id: 'deleteFromTrash',
    method: 'delete',
    path: '/api/v1/trash/{id}',
    tag: 'Notes',
    summary: 'Delete an item of the trash for good (admin: a key of the whole vault with admin)',
    data: v.object({ deleted: v.string() }),
    errors: [403, 404],
  },
];
