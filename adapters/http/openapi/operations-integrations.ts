/** The documented operations of section PATCH, tags, and the change feed. */
import * as v from 'valibot';
import { LiveSessionBody, LiveTicketAnswer, LiveTicketBody } from '../../../core/live/schemas.ts';
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
  {
    id: 'liveTicket',
    method: 'post',
    path: '/api/v1/live/tickets',
    tag: 'Notes',
    summary: 'A single-use ticket to edit a note live over the WebSocket at /api/v1/live',
    description:
      'The ticket (valid 30 s, once) opens `GET /api/v1/live` as a WebSocket, shown as the subprotocol `quire-live.ticket.<ticket>` beside `quire-live` (a browser cannot set the key header on a WebSocket, and the key never goes into a URL). The socket speaks y-protocols (binary: 0 sync, 1 awareness, as y-websocket frames them) and sends JSON notices as text: hello {path, name, readOnly}, saved {checksum, received}, refused, closed {reason}. A key that cannot see the note gets 404; without notes:write the ticket is read-only (its updates are refused).',
    body: LiveTicketBody,
    status: 201,
    data: v.object({ ...LiveTicketAnswer.entries, url: v.string() }),
    errors: [404, 429],
  },
  {
    id: 'liveSession',
    method: 'post',
    path: '/api/v1/live/sessions',
    tag: 'Notes',
    summary: 'Joins a live session over plain requests (the way through the relay), with a ticket',
    description:
      "For editors that reach the server through the relay, which carries requests and answers, not WebSockets. The ticket of `POST /api/v1/live/tickets` is spent here instead of on the WebSocket; the answer is the session id, a secret of the editor (its own key must come with every call on it). The session speaks the WebSocket's messages: sent by `POST /api/v1/live/sessions/{id}/messages`, received by long-polling `GET /api/v1/live/sessions/{id}/messages?after=N`. Unknown, spent or expired ticket: 401.",
    body: LiveSessionBody,
    status: 201,
    data: v.object({ session: v.string() }),
    errors: [401, 429],
  },
  {
    id: 'liveSend',
    method: 'post',
    path: '/api/v1/live/sessions/{id}/messages',
    tag: 'Notes',
    summary: "The editor's messages to its live session, in order",
    description:
      'application/octet-stream: a run of y-protocols messages, each `[length u32 big-endian][bytes]`. A body that is not such a run is 400; a message the room cannot read is 400 and ends the session (its last frame says 1007). Another key, or a session that ended and was fetched: 404.',
    rawBody: true,
    raw: 'none',
    status: 204,
    errors: [404, 415],
  },
  {
    id: 'livePoll',
    method: 'get',
    path: '/api/v1/live/sessions/{id}/messages',
    tag: 'Notes',
    summary: "The live session's messages after `after`, waiting up to 20 s for one (a long poll)",
    description:
      "application/octet-stream: a run of frames, each `[kind u8][seq u32][length u32][bytes]` (kind 0 a y-protocols message, 1 a JSON notice, 2 the end: JSON `{code, reason}` with the WebSocket's close codes). `after` is the last seq the editor holds: the frames up to it are dropped, the rest sent (again, when an answer was lost on the way). A newer poll answers an older one of the same session empty. A session neither polled nor sent to for 60 s is left.",
    query: {
      after: {
        description: 'The last frame the editor holds (0 at first); also taken from Last-Event-ID.',
        schema: { type: 'integer', minimum: 0 },
      },
    },
    raw: 'frames',
    errors: [404],
  },
  {
    id: 'liveLeave',
    method: 'delete',
    path: '/api/v1/live/sessions/{id}',
    tag: 'Notes',
    summary: 'Leaves a live session',
    raw: 'none',
    status: 204,
    errors: [404],
  },
];
