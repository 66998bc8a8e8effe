/**
 * Quire as its own OAuth 2.1 authorization server for `/mcp`, per the MCP
 * authorization specification: dynamic client registration (RFC 7591), the authorization code
 * with PKCE S256 only, access tokens bound to a scope and to the resource (`aud`), refresh tokens
 * that rotate (a reused one ends the grant), revocation (RFC 7009). Framework-free: the HTTP
 * surface is adapters/http/routes/oauth.ts.
 *
 * Approved clients and grants live in `oauth.json` in DATA_DIR (refresh tokens stored as SHA-256
 * only). A registration stays in memory, capped and expiring, until the owner approves it: anyone
 * may register, so a registration writes nothing and can never push out an approved client.
 * Authorization codes live in memory for a minute and are single-use. A grant dies with the key
 * that approved it (checked on every use).
 */
import {
  checkAuthorize,
  exchangeCode,
  issueCode,
  refreshGrant,
  registerClient,
  revokeToken,
  verifyAccess,
} from './oauth-grants.ts';
import { OAuthStore } from './oauth-store.ts';
import type {
  AuthorizeRequest,
  GrantInfo,
  OAuthClient,
  OAuthDeps,
  OAuthGrant,
  TokenAnswer,
} from './oauth-types.ts';
import type { KeyScope } from './scope.ts';

export { boundedScope, parseScopeParam, redirectUriProblem } from './oauth-rules.ts';
export {
  ACCESS_PREFIX,
  type AuthorizeRequest,
  type GrantInfo,
  OAUTH_STATE_KEY,
  type OAuthClient,
  type OAuthDeps,
  OAuthError,
  type OAuthGrant,
  REFRESH_PREFIX,
  type TokenAnswer,
} from './oauth-types.ts';

/**
 * The OAuth authorization server: its state in an `OAuthStore`, its flows in oauth-grants.ts.
 * This object is the surface the HTTP routes and the composition use.
 */
export function createOAuthService(deps: OAuthDeps) {
  const store = new OAuthStore(deps);
  const client = (clientId: string | undefined): OAuthClient | null => store.client(clientId);
  return {
    /** Loads `oauth.json`, or starts a new state (a new signing secret), saved on first use. */
    init: (): Promise<void> => store.init(),
    /** Registers a public client (RFC 7591); `redirect_uris` are matched exactly later. */
    registerClient: (meta: { redirect_uris: string[]; client_name?: string }): Promise<OAuthClient> =>
      Promise.resolve(registerClient(store, meta)),
    /** An approved client, or a registration still waiting for its first approval. */
    client,
    /** Checks an authorization request (see oauth-grants.ts); errors are shown on the server's own page. */
    checkAuthorize: (p: Record<string, string | undefined>, resource: string): AuthorizeRequest =>
      checkAuthorize(client(p.client_id), p, resource),
    /** A single-use authorization code for an approved request. */
    issueCode: (req: AuthorizeRequest, keyId: string, scope: KeyScope): Promise<string> =>
      issueCode(store, req, keyId, scope),
    /** `grant_type=authorization_code`: the code, its redirect URI and the PKCE verifier. */
    exchangeCode: (p: Record<string, string | undefined>, issuer: string): Promise<TokenAnswer> =>
      exchangeCode(store, p, issuer),
    /** `grant_type=refresh_token`: a new pair; the old refresh token is spent (reused: the grant ends). */
    refresh: (p: Record<string, string | undefined>, issuer: string): Promise<TokenAnswer> =>
      refreshGrant(store, p, issuer),
    /** RFC 7009: an access or refresh token ends its whole grant; an unknown token is no error. */
    revoke: (token: string | undefined): Promise<void> => revokeToken(store, token),
    /** The principal of a valid access token for `resource`, or null. */
    verifyAccess: (token: string, resource: string) => verifyAccess(store, token, resource),
    /** The live grants. */
    grants: (): OAuthGrant[] => store.cur().grants.filter(store.alive),
    /** The live grants as the owner sees them: no token hash, the client's declared name. */
    listGrants(): GrantInfo[] {
      const st = store.cur();
      return st.grants.filter(store.alive).map((g) => ({
        id: g.id,
        clientId: g.clientId,
        clientName: st.clients.find((c) => c.clientId === g.clientId)?.clientName ?? null,
        keyId: g.keyId,
        scope: g.scope,
        resource: g.resource,
        createdAt: new Date(g.createdAt).toISOString(),
      }));
    },
    /** Ends a grant by the owner's decision; false when there is no such live grant. */
    async revokeGrant(id: string): Promise<boolean> {
      if (!store.cur().grants.some((g) => g.id === id && store.alive(g))) return false;
      await store.removeGrant(id, 'revoked by the owner');
      return true;
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
