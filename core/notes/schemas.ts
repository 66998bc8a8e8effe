/**
 * Input schemas of the section PATCH, the change feed and the MCP tools. The HTTP adapter and
 * the MCP adapter run them at the edge; the MCP tools' JSON schemas are generated from them.
 */
import * as v from 'valibot';
import { SearchNotesInput } from '../search/schemas.ts';

const notePath = v.pipe(
  v.string('path must be a string.'),
  v.minLength(1, 'path must not be empty.'),
  v.maxLength(1024),
  v.description('Vault-relative note path ending in .md, e.g. "journal/2026-01-01.md".'),
);
const ifMatch = v.optional(
  v.pipe(v.string(), v.maxLength(200), v.description('Checksum the note must still have (else 412).')),
);

/** Where a section PATCH applies. */
export const PatchTargetSchema = v.variant(
  'type',
  [
    v.strictObject({
      type: v.literal('heading'),
      path: v.pipe(
        v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
        v.minLength(1, 'target.path needs at least one heading.'),
        v.maxLength(6),
        v.description('Heading names from the top level down, e.g. ["2026-01-01", "Tasks"].'),
      ),
    }),
    v.strictObject({
      type: v.literal('block'),
      id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{1,64}$/, 'target.id: letters, digits and dashes.')),
    }),
    v.strictObject({
      type: v.literal('frontmatter'),
      key: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
    }),
    v.strictObject({ type: v.literal('document') }),
  ],
  'target.type must be heading, block, frontmatter or document.',
);

const patchFields = {
  operation: v.picklist(['append', 'prepend', 'replace'], 'operation must be append, prepend or replace.'),
  target: PatchTargetSchema,
  content: v.pipe(
    v.unknown(),
    v.check((x) => x !== undefined, 'content is required.'),
    v.description('Markdown text; any JSON value for a frontmatter key.'),
  ),
  createTarget: v.optional(v.boolean('createTarget must be true or false.')),
};

/** Body of `PATCH /api/v1/notes/:path`. */
export const PatchNoteBody = v.strictObject(patchFields);

/** Query of `GET /api/v1/events` (long-poll form). */
export const EventsQuery = v.object({
  after: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'after must be an event id.'), v.transform(Number)),
  ),
  wait: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'wait must be whole seconds.'),
      v.transform(Number),
      v.maxValue(25, 'wait is at most 25 seconds.'),
    ),
  ),
});

/** Inputs of the MCP tools, by tool name. */
export const McpToolInputs = {
  search_notes: SearchNotesInput,
  list_notes: v.strictObject({
    folder: v.optional(v.pipe(v.string(), v.maxLength(1024), v.description('Only notes under this folder.'))),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000))),
    cursor: v.optional(
      v.pipe(v.string(), v.maxLength(1100), v.description('The nextCursor of the last page.')),
    ),
  }),
  read_note: v.strictObject({ path: notePath }),
  get_backlinks: v.strictObject({ path: notePath }),
  list_tags: v.strictObject({}),
  create_note: v.strictObject({ path: notePath, content: v.pipe(v.string(), v.maxLength(5_000_000)) }),
  update_note: v.strictObject({
    path: notePath,
    content: v.pipe(v.string(), v.maxLength(5_000_000)),
    ifMatch,
    base: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(200),
        v.description(
          'Checksum of the version your content was made from (read_note gives it). If the note changed since, your edit is merged with the changes made meanwhile; overlapping edits keep the newer text in the note and yours whole in a conflict copy (the answer names it).',
        ),
      ),
    ),
  }),
  patch_note: v.strictObject({
    path: notePath,
    operation: patchFields.operation,
    target: PatchTargetSchema,
    content: patchFields.content,
    ifMatch,
  }),
  move_note: v.strictObject({
    path: notePath,
    to: notePath,
    updateLinks: v.optional(v.boolean()),
  }),
  delete_note: v.strictObject({ path: notePath, ifMatch }),
  list_versions: v.strictObject({ path: notePath }),
  restore_version: v.strictObject({
    path: notePath,
    id: v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(64),
      v.description('A version id from list_versions.'),
    ),
    ifMatch,
  }),
  list_trash: v.strictObject({}),
  restore_from_trash: v.strictObject({
    id: v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(64),
      v.description('A trash item id from list_trash.'),
    ),
  }),
} as const;
