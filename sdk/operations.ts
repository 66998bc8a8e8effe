/**
 * The operations of the typed client: operationId → method and path template, and how a call is
 * sent (a leaf: the client's areas share it without importing client.ts).
 */
import type { ApiRequest, Transport } from './transport.ts';

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
  listActivity: ['GET', '/api/v1/activity'],
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
  liveTicket: ['POST', '/api/v1/live/tickets'],
  liveSession: ['POST', '/api/v1/live/sessions'],
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
  listPeople: ['GET', '/api/v1/people'],
  addPerson: ['POST', '/api/v1/people'],
  getPerson: ['GET', '/api/v1/people/{id}'],
  updatePerson: ['PATCH', '/api/v1/people/{id}'],
  removePerson: ['DELETE', '/api/v1/people/{id}'],
  invitePerson: ['POST', '/api/v1/people/{id}/invite'],
  sharePerson: ['POST', '/api/v1/people/{id}/shares'],
  unsharePerson: ['DELETE', '/api/v1/people/{id}/shares/{share}'],
  listPublications: ['GET', '/api/v1/publications'],
  publish: ['POST', '/api/v1/publications'],
  getPublication: ['GET', '/api/v1/publications/{id}'],
  revokePublication: ['DELETE', '/api/v1/publications/{id}'],
  lookupInvite: ['POST', '/api/v1/invites/lookup'],
  enrolPassword: ['POST', '/api/v1/invites/password'],
  enrolPasskeyOptions: ['POST', '/api/v1/invites/passkey/options'],
  enrolPasskey: ['POST', '/api/v1/invites/passkey'],
  signIn: ['POST', '/api/v1/session'],
  signInPasskeyOptions: ['POST', '/api/v1/session/passkey/options'],
  signInPasskey: ['POST', '/api/v1/session/passkey'],
  getSession: ['GET', '/api/v1/session'],
  signOut: ['DELETE', '/api/v1/session'],
  setOwnPassword: ['POST', '/api/v1/session/password'],
  addOwnPasskeyOptions: ['POST', '/api/v1/session/passkeys/options'],
  addOwnPasskey: ['POST', '/api/v1/session/passkeys'],
  listOwnKeys: ['GET', '/api/v1/session/keys'],
  mintOwnKey: ['POST', '/api/v1/session/keys'],
  revokeOwnKey: ['DELETE', '/api/v1/session/keys/{id}'],
} as const satisfies Record<string, readonly [ApiRequest['method'], string]>;

export type OperationId = keyof typeof CLIENT_OPERATIONS;

/** Sends one operation: path parameters by name, then query, body and headers. */
export type Call = <T>(
  id: OperationId,
  params?: Record<string, string>,
  rest?: Pick<ApiRequest, 'query' | 'body' | 'headers' | 'rawBody' | 'rawResponse'>,
) => Promise<T>;

/** `Call` over a transport: the path template filled in (a plugin's `route` keeps its slashes). */
export function callOver(send: Transport): Call {
  return <T>(
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
}
