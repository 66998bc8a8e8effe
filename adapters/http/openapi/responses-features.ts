/** What the agent, channel and plugin routes answer (the `data` of each envelope), as valibot schemas. */
import * as v from 'valibot';

const isoDate = v.pipe(v.string(), v.isoTimestamp());
const channelKind = v.picklist(['telegram', 'whatsapp', 'web']);

/** `GET /api/v1/agent/status`. */
export const AgentStatus = v.object({
  enabled: v.boolean(),
  provider: v.string(),
  model: v.string(),
  description: v.optional(v.string()),
  local: v.optional(v.boolean()),
  reachable: v.optional(v.nullable(v.boolean())),
  tools: v.optional(v.array(v.object({ name: v.string(), description: v.string(), write: v.boolean() }))),
  writes: v.optional(v.unknown()),
  limits: v.optional(v.record(v.string(), v.unknown())),
});

const chatReplyEntries = {
  reply: v.string(),
  actions: v.array(v.object({ type: v.string(), summary: v.string(), path: v.optional(v.string()) })),
  relatedNotes: v.array(v.object({ path: v.string(), title: v.string() })),
  /** The passages the answer drew on: note path, title, and the heading ('' before the first). */
  citations: v.array(v.object({ path: v.string(), title: v.string(), heading: v.string() })),
  provider: v.string(),
  model: v.string(),
  createdAt: isoDate,
};

/** `POST /api/v1/agent/chat`. */
export const ChatReply = v.object(chatReplyEntries);

/** `POST /api/v1/channels/:id/messages`: the agent's reply on a web channel. */
export const WebMessageReply = v.object({ ...chatReplyEntries, channelId: v.string() });

/** A channel as the API shows it: which secrets are set, never their values. */
export const Channel = v.object({
  id: v.string(),
  provider: channelKind,
  name: v.string(),
  enabled: v.boolean(),
  settings: v.object({
    allowWrite: v.boolean(),
    allowedSenders: v.array(v.string()),
    apiBaseUrl: v.nullable(v.string()),
  }),
  phoneNumberId: v.optional(v.string()),
  secrets: v.record(v.string(), v.boolean()),
  webhookPath: v.nullable(v.string()),
  createdAt: isoDate,
  updatedAt: isoDate,
});

const webhookUrls = v.nullable(v.object({ url: v.string(), relayUrl: v.nullable(v.string()) }));

/** `POST /api/v1/channels`: the channel, and its webhook secret and URLs, shown this once. */
export const CreatedChannel = v.object({
  channel: Channel,
  webhookSecret: v.string(),
  webhook: webhookUrls,
  notice: v.string(),
});

/** An item of `GET /api/v1/channels/providers`. */
export const ChannelProviderInfo = v.object({
  id: channelKind,
  name: v.string(),
  description: v.string(),
  fields: v.array(
    v.object({
      name: v.string(),
      label: v.string(),
      required: v.boolean(),
      secret: v.boolean(),
      description: v.string(),
    }),
  ),
  webhook: v.nullable(
    v.object({
      method: v.literal('POST'),
      path: v.string(),
      urlPattern: v.string(),
      providerCheck: v.string(),
      handshake: v.optional(v.string()),
      url: v.optional(v.string()),
      relayUrl: v.optional(v.nullable(v.string())),
    }),
  ),
  maxMessageChars: v.nullable(v.number()),
});

/** One turn of a web channel's conversation. */
export const ConversationTurn = v.object({
  role: v.picklist(['user', 'assistant']),
  content: v.string(),
  at: isoDate,
});

/** What a channel webhook answers once the delivery is authenticated. */
export const WebhookResult = v.object({
  status: v.picklist(['accepted', 'duplicate', 'ignored', 'disabled']),
  channelId: v.string(),
  accepted: v.number(),
  duplicate: v.number(),
  ignored: v.number(),
  reasons: v.optional(v.array(v.string())),
});

const capability = v.picklist(['tools', 'hooks', 'routes', 'network', 'notes:read', 'notes:write']);
const pluginIdentity = {
  id: v.string(),
  name: v.string(),
  version: v.string(),
  description: v.string(),
  source: v.picklist(['builtin', 'code']),
};

/** An installed plugin; secret config fields are redacted. */
export const Plugin = v.object({
  ...pluginIdentity,
  enabled: v.boolean(),
  configured: v.boolean(),
  config: v.record(v.string(), v.unknown()),
  configSchema: v.record(v.string(), v.unknown()),
  capabilities: v.array(capability),
  installedAt: isoDate,
  updatedAt: isoDate,
});

/** An entry of `GET /api/v1/plugins/catalog`. */
export const CatalogEntry = v.object({
  ...pluginIdentity,
  capabilities: v.array(capability),
  configSchema: v.record(v.string(), v.unknown()),
  installed: v.boolean(),
  enabled: v.boolean(),
});

/** One plugin's entry in `GET /api/v1/plugins/runtime`. */
export const PluginRuntimeEntry = v.object({
  id: v.string(),
  enabled: v.boolean(),
  loaded: v.boolean(),
  state: v.picklist(['active', 'disabled', 'unconfigured', 'error']),
  activatedAt: v.nullable(isoDate),
  uptimeSeconds: v.number(),
  contributions: v.object({
    tools: v.array(v.string()),
    hooks: v.array(v.string()),
    routes: v.array(v.string()),
  }),
  hookCalls: v.number(),
  errorCount: v.number(),
  lastError: v.nullable(v.object({ where: v.string(), message: v.string(), at: isoDate })),
  stats: v.unknown(),
});

/** `GET /api/v1/plugins/runtime`: why plugins.json could not be read (null when fine), and each plugin. */
export const PluginRuntime = v.object({
  stateError: v.nullable(v.string()),
  plugins: v.array(PluginRuntimeEntry),
});

/** `DELETE /api/v1/plugins/:id`. */
export const RemovedPlugin = v.object({ removed: v.string() });

/** Whatever a plugin's own route answers (each plugin documents its own shape). */
export const PluginRouteAnswer = v.unknown();
