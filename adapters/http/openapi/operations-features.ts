/** The documented operations of the agent, channel and plugin routes. */
import * as v from 'valibot';
import { ChatBody } from '../../../core/agent/schemas.ts';
import { CreateChannelBody, ToggleChannelBody, WebMessageBody } from '../../../core/channels/schemas.ts';
import { InstallPluginBody, PluginConfigBody, TogglePluginBody } from '../../../core/plugins/schemas.ts';
import type { Operation } from './operation.ts';
import * as r from './responses.ts';
import * as f from './responses-features.ts';

/** The agent. */
export const agent: Operation[] = [
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
export const channels: Operation[] = [
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
    'The plugin documents its own routes (docs/reference/plugins.md); `route` may contain slashes. GET passes the query, POST and PUT a JSON body.',
  ...(method === 'post' || method === 'put'
    ? { body: v.record(v.string(), v.unknown()), bodyOptional: true }
    : {}),
  data: f.PluginRouteAnswer,
  errors: [404, 502],
});
export const plugins: Operation[] = [
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
