/** The client's calls for the server around the vault: keys, agent, channels, plugins, security. */
import type * as v from 'valibot';
import type * as O from '../adapters/http/openapi/operations-oauth.ts';
import type * as S from '../adapters/http/openapi/operations-security.ts';
import type * as R from '../adapters/http/openapi/responses.ts';
import type * as F from '../adapters/http/openapi/responses-features.ts';
import type { ChatBody } from '../core/agent/schemas.ts';
import type { KeyScope } from '../core/auth/scope.ts';
import type { CreateChannelBody, WebMessageBody } from '../core/channels/schemas.ts';
import type { InstallPluginBody } from '../core/plugins/schemas.ts';
import type { Call, OperationId } from './operations.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;
type In<S extends v.GenericSchema> = v.InferInput<S>;

/** The body of a toggle: `{enabled}`, or none (the server flips the current state). */
const toggleBody = (enabled?: boolean) => ({ body: enabled === undefined ? undefined : { enabled } });

export const authCalls = (call: Call) => ({
  /** Checks the client's key (or `key`, sent in X-Service-Key). */
  verify: (key?: string) =>
    call<Out<typeof R.Verified>>('verifyKey', {}, { headers: key ? { 'x-service-key': key } : undefined }),
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
});

export const agentCalls = (call: Call) => ({
  status: () => call<Out<typeof F.AgentStatus>>('agentStatus'),
  chat: (body: In<typeof ChatBody>) => call<Out<typeof F.ChatReply>>('chat', {}, { body }),
});

export const channelCalls = (call: Call) => ({
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
});

export const pluginCalls = (call: Call) => ({
  list: () => call<Out<typeof F.Plugin>[]>('listPlugins'),
  catalog: () => call<Out<typeof F.CatalogEntry>[]>('pluginCatalog'),
  runtime: () => call<Out<typeof F.PluginRuntime>>('pluginRuntime'),
  install: (body: In<typeof InstallPluginBody>) => call<Out<typeof F.Plugin>>('installPlugin', {}, { body }),
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
});

export const securityCalls = (call: Call) => ({
  audit: () => call<Out<typeof S.AuditReport>>('securityAudit'),
  config: () => call<Out<typeof S.SecurityConfig>>('securityConfig'),
  recommendations: () => call<Out<typeof S.Recommendations>>('securityRecommendations'),
});
