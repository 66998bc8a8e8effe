/**
 * A small typed client of the Quire API, for other apps (`quire/client`), the web client and the
 * tests. Its operations are the OpenAPI document's (tests/openapi checks every id, method and
 * path against the document, and the answers against its schemas); the types are the schemas'.
 * No runtime dependencies.
 */
import type * as v from 'valibot';
import type * as FI from '../adapters/http/openapi/operations-files.ts';
import type * as H from '../adapters/http/openapi/operations-history.ts';
import type * as I from '../adapters/http/openapi/operations-integrations.ts';
import type * as O from '../adapters/http/openapi/operations-oauth.ts';
import type * as S from '../adapters/http/openapi/operations-security.ts';
import type * as R from '../adapters/http/openapi/responses.ts';
import type * as F from '../adapters/http/openapi/responses-features.ts';
import type { ChatBody } from '../core/agent/schemas.ts';
import type { KeyScope } from '../core/auth/scope.ts';
import type { CreateChannelBody, WebMessageBody } from '../core/channels/schemas.ts';
import type { PatchNoteBody } from '../core/notes/schemas.ts';
import type { InstallPluginBody } from '../core/plugins/schemas.ts';
import type { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from '../core/schemas.ts';
import { type ApiRequest, type FetchTransportOptions, fetchTransport, type Transport } from './transport.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;
type In<S extends v.GenericSchema> = v.InferInput<S>;

/** operationId → method and path template, exactly as in /api/v1/openapi.json. */
export const CLIENT_OPERATIONS = {
  health: ['GET', '/api/v1/health'],
  setup: ['GET', '/api/v1/system/setup'],
  systemInfo: ['GET', '/api/v1/system/info'],
  verifyKey: ['POST', '/api/v1/auth/verify'],
  link: ['POST', '/api/v1/auth/link'],
  issueToken: ['POST', '/api/v1/auth/token'],
  rotatePairCode: ['POST', '/api/v1/auth/pair-code/rotate'],
  listKeys: ['GET', '/api/v1/auth/keys'],
  mintKey: ['POST', '/api/v1/auth/keys'],
  revokeKey: ['DELETE', '/api/v1/auth/keys/{id}'],
  listOAuthGrants: ['GET', '/api/v1/auth/oauth/grants'],
  revokeOAuthGrant: ['DELETE', '/api/v1/auth/oauth/grants/{id}'],
  listNotes: ['GET', '/api/v1/notes'],
  createNote: ['POST', '/api/v1/notes'],
  getNote: ['GET', '/api/v1/notes/{path}'],
  updateNote: ['PUT', '/api/v1/notes/{path}'],
  deleteNote: ['DELETE', '/api/v1/notes/{path}'],
  moveNote: ['POST', '/api/v1/notes/{path}/move'],
  listVersions: ['GET', '/api/v1/notes/{path}/versions'],
  getVersion: ['GET', '/api/v1/notes/{path}/versions/{id}'],
  restoreVersion: ['POST', '/api/v1/notes/{path}/versions/{id}/restore'],
  listTrash: ['GET', '/api/v1/trash'],
  restoreFromTrash: ['POST', '/api/v1/trash/{id}/restore'],
  deleteFromTrash: ['DELETE', '/api/v1/trash/{id}'],
  relatedNotes: ['GET', '/api/v1/notes/{path}/related'],
  attachmentPath: ['GET', '/api/v1/files/attachment-path'],
  getFile: ['GET', '/api/v1/files/{path}'],
  putFile: ['PUT', '/api/v1/files/{path}'],
  deleteFile: ['DELETE', '/api/v1/files/{path}'],
  moveFile: ['POST', '/api/v1/files/{path}/move'],
  patchNote: ['PATCH', '/api/v1/notes/{path}'],
  listTags: ['GET', '/api/v1/tags'],
  events: ['GET', '/api/v1/events'],
  folderTree: ['GET', '/api/v1/folders/tree'],
  folderSubtree: ['GET', '/api/v1/folders/tree/{path}'],
  search: ['GET', '/api/v1/search'],
  agentStatus: ['GET', '/api/v1/agent/status'],
  chat: ['POST', '/api/v1/agent/chat'],
  channelProviders: ['GET', '/api/v1/channels/providers'],
  listChannels: ['GET', '/api/v1/channels'],
  createChannel: ['POST', '/api/v1/channels'],
  getChannel: ['GET', '/api/v1/channels/{id}'],
  toggleChannel: ['POST', '/api/v1/channels/{id}/toggle'],
  deleteChannel: ['DELETE', '/api/v1/channels/{id}'],
  channelMessages: ['GET', '/api/v1/channels/{id}/messages'],
  sendChannelMessage: ['POST', '/api/v1/channels/{id}/messages'],
  listPlugins: ['GET', '/api/v1/plugins'],
  pluginCatalog: ['GET', '/api/v1/plugins/catalog'],
  pluginRuntime: ['GET', '/api/v1/plugins/runtime'],
  installPlugin: ['POST', '/api/v1/plugins/install'],
  getPlugin: ['GET', '/api/v1/plugins/{id}'],
  togglePlugin: ['POST', '/api/v1/plugins/{id}/toggle'],
  configurePlugin: ['PUT', '/api/v1/plugins/{id}/config'],
  removePlugin: ['DELETE', '/api/v1/plugins/{id}'],
  pluginRouteGet: ['GET', '/api/v1/plugins/{id}/{route}'],
  pluginRoutePost: ['POST', '/api/v1/plugins/{id}/{route}'],
  pluginRoutePut: ['PUT', '/api/v1/plugins/{id}/{route}'],
  pluginRouteDelete: ['DELETE', '/api/v1/plugins/{id}/{route}'],
  securityAudit: ['GET', '/api/v1/security/audit'],
  securityConfig: ['GET', '/api/v1/security/config'],
  securityRecommendations: ['GET', '/api/v1/security/recommendations'],
} as const satisfies Record<string, readonly [ApiRequest['method'], string]>;

export type OperationId = keyof typeof CLIENT_OPERATIONS;

/** The cursor of the page after `path` (what the server's `page.nextCursor` holds). */
export function pageCursor(path: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(path)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `If-Match` for a checksum (quoted as an ETag). */
const ifMatch = (checksum?: string) => (checksum ? { 'if-match': `"${checksum}"` } : undefined);

/** The body of a toggle: `{enabled}`, or none (the server flips the current state). */
const toggleBody = (enabled?: boolean) => ({ body: enabled === undefined ? undefined : { enabled } });

/** A client over `transport`, or over fetch with `{baseUrl, apiKey}`. */
export function createQuireClient(transport: Transport | FetchTransportOptions) {
  const send: Transport = typeof transport === 'function' ? transport : fetchTransport(transport);
  const call = <T>(
    id: OperationId,
    params: Record<string, string> = {},
    rest: Pick<ApiRequest, 'query' | 'body' | 'headers' | 'rawBody' | 'rawResponse'> = {},
  ): Promise<T> => {
    const [method, template] = CLIENT_OPERATIONS[id];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === 'route'
        ? params[name]!.split('/').map(encodeURIComponent).join('/')
        : encodeURIComponent(params[name]!),
    );
    return send<T>({ operationId: id, method, path, ...rest });
  };
  return {
    health: () => call<Out<typeof R.Health>>('health'),
    setup: () => call<Out<typeof R.SetupPayload>>('setup'),
    systemInfo: () => call<Out<typeof R.SystemInfo>>('systemInfo'),
    auth: {
      /** Checks the client's key (or `key`, sent in X-Service-Key). */
      verify: (key?: string) =>
        call<Out<typeof R.Verified>>(
          'verifyKey',
          {},
          { headers: key ? { 'x-service-key': key } : undefined },
        ),
      link: () => call<Out<typeof R.Linked>>('link'),
      token: () => call<Out<typeof R.IssuedToken>>('issueToken'),
      rotatePairCode: () => call<Out<typeof R.PairCode>>('rotatePairCode'),
      listKeys: () => call<Out<typeof R.KeyInfo>[]>('listKeys'),
      /** A new key; with `scope`, limited to those capabilities and folders (full access without). */
      mintKey: (name: string, scope?: KeyScope) =>
        call<Out<typeof R.MintedKey>>('mintKey', {}, { body: scope ? { name, scope } : { name } }),
      revokeKey: (id: string) => call<Out<typeof R.RevokedKey>>('revokeKey', { id }),
      /** The OAuth grants MCP clients hold (docs/guide/mcp.md, "OAuth"). */
      listOAuthGrants: () => call<Out<typeof O.OAuthGrant>[]>('listOAuthGrants'),
      /** Ends one OAuth grant without revoking the key that approved it. */
      revokeOAuthGrant: (id: string) => call<Out<typeof O.RevokedGrant>>('revokeOAuthGrant', { id }),
    },
    notes: {
      list: () => call<Out<typeof R.NoteSummary>[]>('listNotes'),
      /**
       * Beyond the spec: one page of summaries in path order, `fields` only (path is always kept,
       * it makes the cursor; `aliases` may be asked too). Pass the returned `nextCursor` for the
       * next page; null after the last. `limit: null` answers every note from the cursor on.
       */
      page: async <K extends keyof Out<typeof R.NoteListItem>>(
        opts: { limit?: number | null; cursor?: string | null; fields?: readonly K[] } = {},
      ) => {
        const fields = opts.fields ? [...new Set(['path', ...opts.fields])].join(',') : undefined;
        // limit null: every note from the cursor on, in one answer (nextCursor is then null).
        const limit = opts.limit === null ? undefined : (opts.limit ?? 500);
        const query: Record<string, string | number | undefined> = { limit, fields };
        if (opts.cursor) query.cursor = opts.cursor;
        const items = await call<Required<Pick<Out<typeof R.NoteListItem>, K | 'path'>>[]>(
          'listNotes',
          {},
          { query },
        );
        const last = items.at(-1);
        const nextCursor = last && items.length === query.limit ? pageCursor(last.path) : null;
        return { items, nextCursor };
      },
      create: (body: In<typeof CreateNoteBody>) => call<Out<typeof R.Note>>('createNote', {}, { body }),
      get: (path: string) => call<Out<typeof R.Note>>('getNote', { path }),
      /** The notes closest to one note, best first (by meaning when embedded, else by links and words). */
      related: (path: string, limit?: number) =>
        call<Out<typeof R.SearchHit>[]>('relatedNotes', { path }, { query: { limit } }),
      /** With `checksum`, saves only if the note still has it (412 otherwise). */
      update: (path: string, body: In<typeof UpdateNoteBody>, checksum?: string) =>
        call<Out<typeof R.Note>>('updateNote', { path }, { body, headers: ifMatch(checksum) }),
      remove: (path: string, checksum?: string) =>
        call<Out<typeof R.Deleted>>('deleteNote', { path }, { headers: ifMatch(checksum) }),
      move: (path: string, body: In<typeof MoveNoteBody>, checksum?: string) =>
        call<Out<typeof R.MovedNote>>('moveNote', { path }, { body, headers: ifMatch(checksum) }),
      /** A section PATCH: append, prepend or replace at a heading, block, frontmatter key or the document. */
      patch: (path: string, body: In<typeof PatchNoteBody>, checksum?: string) =>
        call<Out<typeof R.Note>>('patchNote', { path }, { body, headers: ifMatch(checksum) }),
    },
    history: {
      /** A note's kept versions, newest first. */
      list: (path: string) => call<Out<typeof H.VersionItem>[]>('listVersions', { path }),
      /** One version with its content. */
      get: (path: string, id: string) => call<Out<typeof H.VersionContent>>('getVersion', { path, id }),
      /** A unified diff from version `from` (or `current`) to version `id`. */
      diff: (path: string, id: string, from: string) =>
        call<Out<typeof H.VersionDiff>>('getVersion', { path, id }, { query: { diff: from } }),
      /** Writes version `id` back; with `checksum`, only if the note still has it. */
      restore: (path: string, id: string, checksum?: string) =>
        call<{ path: string; checksum: string }>(
          'restoreVersion',
          { path, id },
          { headers: ifMatch(checksum) },
        ),
    },
    trash: {
      list: () => call<Out<typeof H.TrashItem>[]>('listTrash'),
      /** Answers where the item was restored (its path, or a new one when that was taken). */
      restore: (id: string) => call<{ path: string }>('restoreFromTrash', { id }),
      remove: (id: string) => call<{ deleted: string }>('deleteFromTrash', { id }),
    },
    files: {
      /**
       * The file's Response (bytes in its body; 206 for a `range` like `bytes=0-99`; 304 when
       * `etag` still matches). Through the relay too; the key never goes into a URL.
       */
      get: (path: string, opts: { range?: string; etag?: string } = {}) =>
        call<Response>(
          'getFile',
          { path },
          {
            rawResponse: true,
            headers: {
              ...(opts.range ? { range: opts.range } : {}),
              ...(opts.etag ? { 'if-none-match': opts.etag } : {}),
            },
          },
        ),
      /** Uploads raw bytes; `ifMatch` an ETag, or `ifNoneMatch: '*'` to never replace a file. */
      put: (
        path: string,
        bytes: Uint8Array | Blob | ReadableStream<Uint8Array>,
        opts: { ifMatch?: string; ifNoneMatch?: string; contentType?: string } = {},
      ) =>
        call<Out<typeof FI.FileMeta>>(
          'putFile',
          { path },
          {
            rawBody: bytes,
            headers: {
              ...(opts.ifMatch ? { 'if-match': opts.ifMatch } : {}),
              ...(opts.ifNoneMatch ? { 'if-none-match': opts.ifNoneMatch } : {}),
              ...(opts.contentType ? { 'content-type': opts.contentType } : {}),
            },
          },
        ),
      remove: (path: string, etag?: string) =>
        call<Out<typeof FI.DeletedFile>>(
          'deleteFile',
          { path },
          { headers: etag ? { 'if-match': etag } : undefined },
        ),
      /** With `updateLinks`, the embeds and links to the file in notes are rewritten (`rewritten`). */
      move: (path: string, to: string, etag?: string, opts: { updateLinks?: boolean } = {}) =>
        call<Out<typeof FI.MovedFile>>(
          'moveFile',
          { path },
          {
            body: opts.updateLinks === undefined ? { path: to } : { path: to, updateLinks: opts.updateLinks },
            headers: etag ? { 'if-match': etag } : undefined,
          },
        ),
      /** Where a new attachment `name` of `note` goes (Obsidian's attachmentFolderPath), first free path. */
      attachmentPath: (name: string, note?: string) =>
        call<Out<typeof FI.AttachmentPath>>('attachmentPath', {}, { query: { name, note } }),
    },
    tags: () => call<Out<typeof I.TagCount>[]>('listTags'),
    /** The change feed's long-poll form: events after `after`, waiting up to `wait` seconds (max 25). */
    events: (after?: number, wait?: number) =>
      call<Out<typeof I.FeedPage>>(
        'events',
        {},
        { query: { after, wait }, headers: { accept: 'application/json' } },
      ),
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
    agent: {
      status: () => call<Out<typeof F.AgentStatus>>('agentStatus'),
      chat: (body: In<typeof ChatBody>) => call<Out<typeof F.ChatReply>>('chat', {}, { body }),
    },
    channels: {
      providers: () => call<Out<typeof F.ChannelProviderInfo>[]>('channelProviders'),
      list: () => call<Out<typeof F.Channel>[]>('listChannels'),
      create: (body: In<typeof CreateChannelBody>) =>
        call<Out<typeof F.CreatedChannel>>('createChannel', {}, { body }),
      get: (id: string) => call<Out<typeof F.Channel>>('getChannel', { id }),
      /** Sets `enabled`, or flips the channel when it is left out. */
      toggle: (id: string, enabled?: boolean) =>
        call<Out<typeof F.Channel>>('toggleChannel', { id }, toggleBody(enabled)),
      remove: (id: string) => call<Out<typeof R.Deleted>>('deleteChannel', { id }),
      messages: (id: string) => call<Out<typeof F.ConversationTurn>[]>('channelMessages', { id }),
      send: (id: string, body: In<typeof WebMessageBody>) =>
        call<Out<typeof F.WebMessageReply>>('sendChannelMessage', { id }, { body }),
    },
    plugins: {
      list: () => call<Out<typeof F.Plugin>[]>('listPlugins'),
      catalog: () => call<Out<typeof F.CatalogEntry>[]>('pluginCatalog'),
      runtime: () => call<Out<typeof F.PluginRuntime>>('pluginRuntime'),
      install: (body: In<typeof InstallPluginBody>) =>
        call<Out<typeof F.Plugin>>('installPlugin', {}, { body }),
      get: (id: string) => call<Out<typeof F.Plugin>>('getPlugin', { id }),
      toggle: (id: string, enabled?: boolean) =>
        call<Out<typeof F.Plugin>>('togglePlugin', { id }, toggleBody(enabled)),
      configure: (id: string, config: Record<string, unknown>) =>
        call<Out<typeof F.Plugin>>('configurePlugin', { id }, { body: config }),
      remove: (id: string) => call<Out<typeof F.RemovedPlugin>>('removePlugin', { id }),
      /** Calls a route a plugin contributes: `route` is the part after `/plugins/<id>/`. */
      route: <T = unknown>(
        id: string,
        method: 'GET' | 'POST' | 'PUT' | 'DELETE',
        route: string,
        input?: Record<string, unknown>,
      ) => {
        const opId = `pluginRoute${method[0]}${method.slice(1).toLowerCase()}` as OperationId;
        return method === 'GET'
          ? call<T>(opId, { id, route }, { query: input as Record<string, string> })
          : call<T>(opId, { id, route }, { body: method === 'DELETE' ? undefined : input });
      },
    },
    security: {
      audit: () => call<Out<typeof S.AuditReport>>('securityAudit'),
      config: () => call<Out<typeof S.SecurityConfig>>('securityConfig'),
      recommendations: () => call<Out<typeof S.Recommendations>>('securityRecommendations'),
    },
  };
}

/** The typed client. */
export type QuireClient = ReturnType<typeof createQuireClient>;
