/**
 * A small typed client of the Quire API, for other apps (`quire/client`), the web client and the
 * tests. Its operations are the OpenAPI document's (tests/openapi checks every id, method and
 * path against the document, and the answers against its schemas); the types are the schemas'.
 * No runtime dependencies.
 */
import type * as v from 'valibot';
import type * as H from '../adapters/http/openapi/operations-history.ts';
import type * as I from '../adapters/http/openapi/operations-integrations.ts';
import type * as R from '../adapters/http/openapi/responses.ts';
import { agentCalls, authCalls, channelCalls, pluginCalls, securityCalls } from './client-admin.ts';
import { peopleCalls, publicationCalls, sessionCalls } from './client-people.ts';
import { fileCalls, historyCalls, noteCalls, trashCalls } from './client-vault.ts';
import { callOver } from './operations.ts';
import { type FetchTransportOptions, fetchTransport, type Transport } from './transport.ts';

export { pageCursor } from './client-vault.ts';
export { CLIENT_OPERATIONS, type OperationId } from './operations.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;

/** A client over `transport`, or over fetch with `{baseUrl, apiKey}`. */
export function createQuireClient(transport: Transport | FetchTransportOptions) {
  const call = callOver(typeof transport === 'function' ? transport : fetchTransport(transport));
  return {
    health: () => call<Out<typeof R.Health>>('health'),
    setup: () => call<Out<typeof R.SetupPayload>>('setup'),
    systemInfo: () => call<Out<typeof R.SystemInfo>>('systemInfo'),
    auth: authCalls(call),
    notes: noteCalls(call),
    history: historyCalls(call),
    trash: trashCalls(call),
    /** Who did what, newest first, across the notes this key sees (`limit` 1 to 500, default 50). */
    activity: (limit?: number) =>
      call<Out<typeof H.ActivityItem>[]>('listActivity', {}, { query: { limit } }),
    files: fileCalls(call),
    tags: () => call<Out<typeof I.TagCount>[]>('listTags'),
    /** The change feed's long-poll form: events after `after`, waiting up to `wait` seconds (max 25). */
    events: (after?: number, wait?: number) =>
      call<Out<typeof I.FeedPage>>(
        'events',
        {},
        { query: { after, wait }, headers: { accept: 'application/json' } },
      ),
    live: {
      /**
       * A single-use ticket (30 s) to edit the note at `path` live: open `url` as a WebSocket with
       * the subprotocols `quire-live` and `quire-live.ticket.<ticket>` (docs/reference/api.md).
       */
      ticket: (path: string) =>
        call<{
          ticket: string;
          path: string;
          readOnly: boolean;
          name: string;
          expiresIn: number;
          url: string;
        }>('liveTicket', {}, { body: { path } }),
      /**
       * Spends a ticket on a live session over plain requests (the way through the relay): its id,
       * for `POST`/`GET /api/v1/live/sessions/{id}/messages` (binary; client-link's live-poll.ts).
       */
      session: (ticket: string) => call<{ session: string }>('liveSession', {}, { body: { ticket } }),
    },
    folders: {
      /** The tree of the vault root, or of one folder. */
      tree: (path?: string) =>
        path ? call<R.FolderNodeShape>('folderSubtree', { path }) : call<R.FolderNodeShape>('folderTree'),
    },
    /**
     * Ranked search (docs/reference/search.md): a question or words, with `"phrase"`, `-word`, `a OR b`,
     * `tag:`, `path:` and `file:`; hits are notes, or attachments by name (`type: 'file'`).
     * `mode`: lexical, semantic or hybrid (default: hybrid when the server has embeddings).
     */
    search: (q: string, limit?: number, mode?: 'lexical' | 'semantic' | 'hybrid') =>
      call<Out<typeof R.SearchHit>[]>('search', {}, { query: { q, limit, mode } }),
    agent: agentCalls(call),
    channels: channelCalls(call),
    plugins: pluginCalls(call),
    security: securityCalls(call),
    people: peopleCalls(call),
    publications: publicationCalls(call),
    session: sessionCalls(call),
  };
}

/** The typed client. */
export type QuireClient = ReturnType<typeof createQuireClient>;
