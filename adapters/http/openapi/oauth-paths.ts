/**
 * The OAuth endpoints for MCP clients (adapters/http/routes/oauth.ts), as OpenAPI paths.
 * They live outside `/api/v1`, answer in OAuth's own shapes (not the envelope) and are public, so
 * they are written here rather than in OPERATIONS (the typed client has no use for them).
 */
type Json = Record<string, unknown>;

const TAG = 'OAuth';
const form = (properties: Json, required: string[]): Json => ({
  required: true,
  content: {
    'application/x-www-form-urlencoded': { schema: { type: 'object', required, properties } },
  },
});
const oauthError: Json = {
  description: 'An OAuth error (RFC 6749 section 5.2).',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'string' }, error_description: { type: 'string' } },
      },
    },
  },
};
const anyJson = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { type: 'object' } } },
});
const redirect: Json = {
  description:
    "The owner's decision back to the registered redirect_uri: `code` and `state`, or `error=access_denied` and `state`; never to any other address.",
  headers: { Location: { schema: { type: 'string', format: 'uri' } } },
};
const page = (description: string): Json => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});
const str = { type: 'string' };

const authorizeQuery = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
].map((name) => ({
  name,
  in: 'query',
  required: ['response_type', 'client_id', 'code_challenge', 'code_challenge_method'].includes(name),
  schema: name === 'code_challenge_method' ? { const: 'S256' } : str,
}));

/** Every OAuth path with its operations. */
export const OAUTH_PATHS: Record<string, Json> = {
  '/.well-known/oauth-protected-resource': {
    get: {
      operationId: 'oauthProtectedResource',
      tags: [TAG],
      summary: 'Protected resource metadata of /mcp (RFC 9728)',
      security: [],
      responses: {
        '200': anyJson('`resource` (`<base>/mcp`), `authorization_servers` (`<base>`), `scopes_supported`.'),
      },
    },
  },
  '/.well-known/oauth-authorization-server': {
    get: {
      operationId: 'oauthAuthorizationServer',
      tags: [TAG],
      summary: 'Authorization server metadata (RFC 8414)',
      description:
        'Through a relay the base is `<relay>/r/<serverId>`; the relay also answers `/.well-known/oauth-authorization-server/r/<serverId>`.',
      security: [],
      responses: { '200': anyJson('Issuer, endpoints, `code_challenge_methods_supported: ["S256"]`.') },
    },
  },
  '/oauth/register': {
    post: {
      operationId: 'oauthRegister',
      tags: [TAG],
      summary: 'Dynamic client registration (RFC 7591): public clients, exact redirect URIs',
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['redirect_uris'],
              properties: { redirect_uris: { type: 'array', items: str }, client_name: str },
            },
          },
        },
      },
      responses: { '201': anyJson('`client_id` and the registered metadata.'), '400': oauthError },
    },
  },
  '/oauth/authorize': {
    get: {
      operationId: 'oauthAuthorize',
      tags: [TAG],
      summary: 'The consent page: the owner approves with a key and picks the scope (read-only by default)',
      security: [],
      parameters: authorizeQuery,
      responses: {
        '200': page('The consent page.'),
        '400': page(
          'The request is not valid (client, redirect URI, response_type, PKCE, resource); shown here, never redirected.',
        ),
      },
    },
    post: {
      operationId: 'oauthConsent',
      tags: [TAG],
      summary: 'The consent form: approve (with a key) or deny',
      security: [],
      parameters: authorizeQuery,
      requestBody: form(
        {
          key: { ...str, description: 'A Quire API key; never stored or shown to the client.' },
          capability: {
            type: 'array',
            items: { enum: ['notes:read', 'files:read', 'notes:write', 'files:write'] },
          },
          folders: { ...str, description: 'Comma-separated folder prefixes (optional).' },
          action: { enum: ['approve', 'deny'] },
        },
        ['action'],
      ),
      responses: {
        '302': redirect,
        '400': page('Not valid.'),
        '401': page('The key is not valid.'),
      },
    },
  },
  '/oauth/token': {
    post: {
      operationId: 'oauthToken',
      tags: [TAG],
      summary: 'Tokens: authorization_code (with the PKCE verifier) or refresh_token (rotates)',
      security: [],
      requestBody: form(
        {
          grant_type: { enum: ['authorization_code', 'refresh_token'] },
          code: str,
          redirect_uri: str,
          code_verifier: str,
          client_id: str,
          refresh_token: str,
          resource: str,
        },
        ['grant_type'],
      ),
      responses: {
        '200': anyJson(
          '`access_token` (15 minutes, for `/mcp` only), `refresh_token`, `expires_in`, `scope`.',
        ),
        '400': oauthError,
      },
    },
  },
  '/oauth/revoke': {
    post: {
      operationId: 'oauthRevoke',
      tags: [TAG],
      summary: 'Revocation (RFC 7009): an access or refresh token ends its grant',
      security: [],
      requestBody: form({ token: str, token_type_hint: str }, ['token']),
      responses: { '200': { description: 'Revoked (also for an unknown token).' } },
    },
  },
};
