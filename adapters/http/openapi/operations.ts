/**
 * Every route of the API, once: the OpenAPI document (`document.ts`) and the typed client
 * (`sdk/`) are made from this table, and tests/openapi fails when a route the app serves is
 * missing here or a documented one is not served.
 */
import * as v from 'valibot';
import { ChatBody } from '../../../core/agent/schemas.ts';
import { CreateChannelBody, ToggleChannelBody, WebMessageBody } from '../../../core/channels/schemas.ts';
import { InstallPluginBody, PluginConfigBody, TogglePluginBody } from '../../../core/plugins/schemas.ts';
import { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from '../../../core/schemas.ts';
import { KeyName } from '../routes/auth.ts';
import type { Operation, Param } from './operation.ts';
import * as r from './responses.ts';
import * as f from './responses-features.ts';

const ifMatch: Record<string, Param> = {
  'If-Match': {
    description: 'The checksum the change is based on, quoted; 412 when the note changed since.',
    schema: { type: 'string' },
  },
};
const ifNoneMatch: Record<string, Param> = {
  'If-None-Match': {
    description: 'An ETag from an earlier answer; 304 when nothing changed.',
    schema: { type: 'string' },
  },
};

/** System, setup, auth and the API's own documentation. */
const system: Operation[] = [
  {
    id: 'health',
    method: 'get',
    path: '/api/v1/health',
    tag: 'System',
    summary: 'Health of the server and its index',
    public: true,
    data: r.Health,
  },
  {
    id: 'setup',
    method: 'get',
    path: '/api/v1/system/setup',
    tag: 'System',
    summary: 'Setup payload: the first key (until setup is complete), pairing and connect links',
    public: true,
    data: r.SetupPayload,
  },
  {
    id: 'systemInfo',
    method: 'get',
    path: '/api/v1/system/info',
    tag: 'System',
    summary: 'Version, runtime, vault size, auth and relay state',
    data: r.SystemInfo,
  },
  {
    id: 'openapi',
    method: 'get',
    path: '/api/v1/openapi.json',
    tag: 'System',
    summary: 'This OpenAPI 3.1 document',
    public: true,
    raw: 'openapi',
  },
  {
    id: 'docs',
    method: 'get',
    path: '/api/v1/docs',
    tag: 'System',
    summary: 'The interactive API reference (HTML)',
    public: true,
    raw: 'html',
  },
  {
    id: 'docsScript',
    method: 'get',
    path: '/api/v1/docs/api-reference.js',
    tag: 'System',
    summary: "The reference page's script, served from this server",
    public: true,
    raw: 'javascript',
    errors: [503],
  },
  {
    id: 'agentToolsGone',
    method: 'get',
    path: '/api/v1/agent/tools',
    tag: 'System',
    summary: 'Retired: use GET /api/v1/agent/status',
    gone: true,
  },
  {
    id: 'foldersGone',
    method: 'post',
    path: '/api/v1/folders',
    tag: 'System',
    summary: 'Retired: use GET /api/v1/folders/tree/{path}',
    gone: true,
  },
  {
    id: 'verifyKey',
    method: 'post',
    path: '/api/v1/auth/verify',
    tag: 'Auth',
    summary: 'Check the key in X-Service-Key',
    public: true,
    keyOnly: true,
    data: r.Verified,
  },
  {
    id: 'link',
    method: 'post',
    path: '/api/v1/auth/link',
    tag: 'Auth',
    summary: 'Mark setup complete (idempotent); the setup payload redacts the key from then on',
    keyOnly: true,
    data: r.Linked,
  },
  {
    id: 'issueToken',
    method: 'post',
    path: '/api/v1/auth/token',
    tag: 'Auth',
    summary: 'Trade the key for a short-lived JWT (jwt mode)',
    keyOnly: true,
    data: r.IssuedToken,
    errors: [403],
  },
  {
    id: 'rotatePairCode',
    method: 'post',
    path: '/api/v1/auth/pair-code/rotate',
    tag: 'Auth',
    summary: 'A new relay pairing code',
    data: r.PairCode,
  },
  {
    id: 'listKeys',
    method: 'get',
    path: '/api/v1/auth/keys',
    tag: 'Auth',
    summary: 'Keys: names, redacted prefixes, created and last used',
    data: v.array(r.KeyInfo),
  },
  {
    id: 'mintKey',
    method: 'post',
    path: '/api/v1/auth/keys',
    tag: 'Auth',
    summary: 'Mint a named device key (shown once)',
    body: KeyName,
    status: 201,
    data: r.MintedKey,
  },
  {
    id: 'revokeKey',
    method: 'delete',
    path: '/api/v1/auth/keys/{id}',
    tag: 'Auth',
    summary: 'Revoke a key',
    data: r.RevokedKey,
    errors: [404],
  },
];

/** Notes, folders and search. */
const notes: Operation[] = [
  {
    id: 'listNotes',
    method: 'get',
    path: '/api/v1/notes',
    tag: 'Notes',
    summary: 'All note summaries, sorted by path',
    headers: ifNoneMatch,
    data: v.array(r.NoteSummary),
  },
  {
    id: 'createNote',
    method: 'post',
    path: '/api/v1/notes',
    tag: 'Notes',
    summary: 'Create a note (never overwrites: 409)',
    body: CreateNoteBody,
    status: 201,
    data: r.Note,
    errors: [409],
  },
  {
    id: 'getNote',
    method: 'get',
    path: '/api/v1/notes/{path}',
    tag: 'Notes',
    summary: 'One note with its body and frontmatter; the ETag is its checksum',
    headers: ifNoneMatch,
    data: r.Note,
    errors: [404],
  },
  {
    id: 'updateNote',
    method: 'put',
    path: '/api/v1/notes/{path}',
    tag: 'Notes',
    summary: 'Replace a note (the frontmatter block is kept when not given)',
    headers: ifMatch,
    body: UpdateNoteBody,
    data: r.Note,
    errors: [404, 412],
  },
  {
    id: 'deleteNote',
    method: 'delete',
    path: '/api/v1/notes/{path}',
    tag: 'Notes',
    summary: 'Delete a note for good',
    headers: ifMatch,
    data: r.Deleted,
    errors: [404, 412],
  },
  {
    id: 'moveNote',
    method: 'post',
    path: '/api/v1/notes/{path}/move',
    tag: 'Notes',
    summary: 'Rename a note, optionally rewriting links to it',
    headers: ifMatch,
    body: MoveNoteBody,
    data: r.MovedNote,
    errors: [404, 409, 412],
  },
  {
    id: 'folderTree',
    method: 'get',
    path: '/api/v1/folders/tree',
    tag: 'Folders and search',
    summary: 'The folder tree of the vault root',
    data: r.FolderNode,
  },
  {
    id: 'folderSubtree',
    method: 'get',
    path: '/api/v1/folders/tree/{path}',
    tag: 'Folders and search',
    summary: 'The subtree of one folder',
    data: r.FolderNode,
    errors: [404],
  },
  {
    id: 'search',
    method: 'get',
    path: '/api/v1/search',
    tag: 'Folders and search',
    summary: 'Full-text search, best first',
    data: v.array(r.SearchHit),
    query: {
      q: { description: 'The words to look for.', required: true, schema: { type: 'string' } },
      limit: {
        description: 'Most hits (1-100, default 20).',
        schema: { type: 'integer', minimum: 1, maximum: 100 },
      },
    },
  },
];

/** The agent. */
const agent: Operation[] = [
  {
    id: 'agentStatus',
    method: 'get',
    path: '/api/v1/agent/status',
    tag: 'Agent',
    summary: 'Provider, model, reachability, tools and limits',
    data: f.AgentStatus,
  },
  {
    id: 'chat',
    method: 'post',
    path: '/api/v1/agent/chat',
    tag: 'Agent',
    summary: 'Ask the agent; it may search, read and (on web) write notes',
    body: ChatBody,
    data: f.ChatReply,
    errors: [502, 503],
  },
];

/** Channels. */
const channels: Operation[] = [
  {
    id: 'channelProviders',
    method: 'get',
    path: '/api/v1/channels/providers',
    tag: 'Channels',
    summary: 'Providers, the fields they need and their webhook',
    data: v.array(f.ChannelProviderInfo),
  },
  {
    id: 'listChannels',
    method: 'get',
    path: '/api/v1/channels',
    tag: 'Channels',
    summary: 'The channels (never a token or secret)',
    data: v.array(f.Channel),
  },
  {
    id: 'createChannel',
    method: 'post',
    path: '/api/v1/channels',
    tag: 'Channels',
    summary: 'Create a channel; the webhook secret is shown once',
    body: CreateChannelBody,
    status: 201,
    data: f.CreatedChannel,
    errors: [409],
  },
  {
    id: 'getChannel',
    method: 'get',
    path: '/api/v1/channels/{id}',
    tag: 'Channels',
    summary: 'One channel',
    data: f.Channel,
    errors: [404],
  },
  {
    id: 'toggleChannel',
    method: 'post',
    path: '/api/v1/channels/{id}/toggle',
    tag: 'Channels',
    summary: 'Enable or disable (no body flips it)',
    body: ToggleChannelBody,
    bodyOptional: true,
    data: f.Channel,
    errors: [404],
  },
  {
    id: 'deleteChannel',
    method: 'delete',
    path: '/api/v1/channels/{id}',
    tag: 'Channels',
    summary: 'Remove a channel and its conversation',
    data: r.Deleted,
    errors: [404],
  },
  {
    id: 'channelMessages',
    method: 'get',
    path: '/api/v1/channels/{id}/messages',
    tag: 'Channels',
    summary: "A web channel's conversation, oldest first",
    data: v.array(f.ConversationTurn),
    errors: [404],
  },
  {
    id: 'sendChannelMessage',
    method: 'post',
    path: '/api/v1/channels/{id}/messages',
    tag: 'Channels',
    summary: 'Talk to the agent on a web channel',
    body: WebMessageBody,
    data: f.WebMessageReply,
    errors: [404, 502, 503],
  },
  {
    id: 'channelWebhook',
    method: 'post',
    path: '/api/v1/channels/webhook/{provider}',
    tag: 'Channels',
    public: true,
    summary: "A provider's delivery (Telegram update, WhatsApp notification)",
    description:
      "The body is the provider's own JSON. The channel's secret comes in X-Service-Channel-Secret or the `secret` query parameter.",
    body: v.record(v.string(), v.unknown()),
    data: f.WebhookResult,
    errors: [401, 403, 404],
    headers: {
      'X-Service-Channel-Secret': {
        description: "The channel's webhook secret.",
        schema: { type: 'string' },
      },
    },
    query: {
      secret: {
        description: "The channel's webhook secret (when the header cannot be set).",
        schema: { type: 'string' },
      },
    },
  },
  {
    id: 'channelHandshake',
    method: 'get',
    path: '/api/v1/channels/webhook/{provider}',
    tag: 'Channels',
    public: true,
    raw: 'text',
    summary: "WhatsApp's verification handshake: answers hub.challenge as text",
    errors: [401, 403, 404],
    query: {
      secret: { description: "The channel's webhook secret.", schema: { type: 'string' } },
      'hub.mode': { description: 'subscribe', schema: { type: 'string' } },
      'hub.verify_token': { description: "The channel's verify token.", schema: { type: 'string' } },
      'hub.challenge': { description: 'Echoed back on success.', schema: { type: 'string' } },
    },
  },
];

/** Plugins, and the routes plugins contribute. */
const pluginRoute = (method: Operation['method']): Operation => ({
  id: `pluginRoute${method[0]!.toUpperCase()}${method.slice(1)}`,
  method,
  path: '/api/v1/plugins/{id}/{route}',
  tag: 'Plugins',
  summary: `A route a plugin contributes (${method.toUpperCase()})`,
  description:
    'The plugin documents its own routes (docs/plugins.md); `route` may contain slashes. GET passes the query, POST and PUT a JSON body.',
  ...(method === 'post' || method === 'put'
    ? { body: v.record(v.string(), v.unknown()), bodyOptional: true }
    : {}),
  data: f.PluginRouteAnswer,
  errors: [404, 502],
});
const plugins: Operation[] = [
  {
    id: 'listPlugins',
    method: 'get',
    path: '/api/v1/plugins',
    tag: 'Plugins',
    summary: 'Installed plugins',
    data: v.array(f.Plugin),
  },
  {
    id: 'pluginCatalog',
    method: 'get',
    path: '/api/v1/plugins/catalog',
    tag: 'Plugins',
    summary: 'Everything installable',
    data: v.array(f.CatalogEntry),
  },
  {
    id: 'pluginRuntime',
    method: 'get',
    path: '/api/v1/plugins/runtime',
    tag: 'Plugins',
    summary: 'Loaded state, contributions and errors per plugin',
    data: f.PluginRuntime,
  },
  {
    id: 'installPlugin',
    method: 'post',
    path: '/api/v1/plugins/install',
    tag: 'Plugins',
    summary: 'Install a plugin from the catalog',
    body: InstallPluginBody,
    status: 201,
    data: f.Plugin,
    errors: [404, 409],
  },
  {
    id: 'getPlugin',
    method: 'get',
    path: '/api/v1/plugins/{id}',
    tag: 'Plugins',
    summary: "One installed plugin's record",
    data: f.Plugin,
    errors: [404],
  },
  {
    id: 'togglePlugin',
    method: 'post',
    path: '/api/v1/plugins/{id}/toggle',
    tag: 'Plugins',
    summary: 'Enable or disable (an empty body flips it)',
    body: TogglePluginBody,
    bodyOptional: true,
    data: f.Plugin,
    errors: [404],
  },
  {
    id: 'configurePlugin',
    method: 'put',
    path: '/api/v1/plugins/{id}/config',
    tag: 'Plugins',
    summary: "Replace a plugin's config (validated by its schema)",
    body: PluginConfigBody,
    data: f.Plugin,
    errors: [404],
  },
  {
    id: 'removePlugin',
    method: 'delete',
    path: '/api/v1/plugins/{id}',
    tag: 'Plugins',
    summary: 'Remove a plugin and its state',
    data: f.RemovedPlugin,
    errors: [404],
  },
  pluginRoute('get'),
  pluginRoute('post'),
  pluginRoute('put'),
  pluginRoute('delete'),
];

/** Every documented operation. */
export const OPERATIONS: readonly Operation[] = [...system, ...notes, ...agent, ...channels, ...plugins];
