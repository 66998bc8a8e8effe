/** The documented operations of section PATCH, tags, and the change feed. */
import * as v from 'valibot';
import { PatchNoteBody } from '../../../core/notes/schemas.ts';
import type { Operation } from './operation.ts';
import * as r from './responses.ts';

/** One tag and how many notes carry it. */
export const TagCount = v.object({ tag: v.string(), count: v.number() });

/** One change of the feed. */
export const FeedEvent = v.object({
  id: v.number(),
  type: v.picklist(['note.created', 'note.updated', 'note.deleted', 'note.moved', 'note.restored']),
  data: v.object({
    path: v.string(),
    from: v.optional(v.string()),
    checksum: v.optional(v.string()),
    external: v.boolean(),
    /** Who made the change, for people: a key by its device name, `agent`, `another program`. */
    author: v.optional(v.string()),
  }),
});

/** An answer of the long-poll form of the change feed. */
export const FeedPage = v.object({
  events: v.array(FeedEvent),
  next: v.number(),
  reset: v.optional(v.literal(true)),
});

export const integrations: Operation[] = [
  {
    id: 'patchNote',
    method: 'patch',
    path: '/api/v1/notes/{path}',
    tag: 'Notes',
    summary:
      'Append, prepend or replace one part of a note (heading section, block, frontmatter key, document)',
    description:
      'Everything outside the target (line endings, frontmatter, other sections) is kept byte for byte. A heading path is matched level by level outside code; a missing target is 404 TARGET_NOT_FOUND unless createTarget; an ambiguous heading path is 409 CONFLICT with the candidates in details. See docs/reference/api.md.',
    headers: {
      'If-Match': {
        description: 'The checksum the change is based on, quoted; 412 when the note changed since.',
        schema: { type: 'string' },
      },
    },
    body: PatchNoteBody,
    data: r.Note,
    errors: [404, 409, 412],
  },
  {
    id: 'listTags',
    method: 'get',
    path: '/api/v1/tags',
    tag: 'Folders and search',
    summary: 'Every tag with its note count, most used first',
    data: v.array(TagCount),
  },
  {
    id: 'events',
    method: 'get',
    path: '/api/v1/events',
    tag: 'Notes',
    summary: 'The change feed: a text/event-stream, or a long poll with Accept: application/json',
    description:
      'As text/event-stream (the default): `id:` a sequence number, `event:` note.created | note.updated | note.deleted | note.moved | note.restored, `data:` {path, from?, checksum?, external, author?} (author: who made the change, a key by its device name, never its id); a heartbeat comment every 15 s; Last-Event-ID (or ?after=) resumes from a ring of recent events, and an id older than the ring first gets `event: reset` (re-list). With Accept: application/json: the events after `after`, answered as soon as there is one or when `wait` seconds pass (this form works through the relay).',
    query: {
      after: {
        description: 'The last event id seen (default: now).',
        schema: { type: 'string', pattern: '^\\d+$' },
      },
      wait: {
        description: 'Long poll: seconds to wait for an event, at most 25 (default 0).',
        schema: { type: 'string', pattern: '^\\d+$' },
      },
    },
    headers: {
      'Last-Event-ID': {
        description: 'Event stream: resume after this id (what EventSource sends on reconnect).',
        schema: { type: 'string' },
      },
    },
    data: FeedPage,
  },
];
