/**
 * The OAuth authorization server's records and errors: a leaf (schemas and types only), so the
 * service's modules (oauth-rules, oauth-store, oauth-grants) share them without importing each other.
 */
import * as v from 'valibot';
import type { RandomBytes } from '../crypto.ts';
import type { Clock, Logger, StateStore } from '../ports.ts';
import { type Capability, type KeyScope, KeyScopeSchema } from './scope.ts';
import type { AuthService } from './service.ts';

/** Name of the state file in DATA_DIR. */
export const OAUTH_STATE_KEY = 'oauth.json';
/** Every access token starts with this (so it is never mistaken for an API key or a JWT_SECRET token). */
export const ACCESS_PREFIX = 'quire_at_';
/** Every refresh token starts with this. */
export const REFRESH_PREFIX = 'quire_rt_';

const ClientSchema = v.object({
  clientId: v.string(),
  clientName: v.optional(v.string()),
  redirectUris: v.array(v.string()),
  createdAt: v.number(),
});
const GrantSchema = v.object({
  id: v.string(),
  clientId: v.string(),
  /** The API key that approved it; the grant ends when that key is revoked. */
  keyId: v.string(),
  scope: KeyScopeSchema,
  /** The resource (`<base>/mcp`) its access tokens are bound to. */
  resource: v.string(),
  createdAt: v.number(),
  refreshHash: v.string(),
  refreshExpiresAt: v.number(),
  /** Hashes of refresh tokens already rotated away: presenting one again ends the grant. */
  usedRefreshHashes: v.array(v.string()),
});
export const OAuthStateSchema = v.object({
  v: v.literal(1),
  secret: v.pipe(v.string(), v.minLength(32)),
  clients: v.array(ClientSchema),
  grants: v.array(GrantSchema),
});
export type OAuthState = v.InferOutput<typeof OAuthStateSchema>;
export type OAuthClient = v.InferOutput<typeof ClientSchema>;
export type OAuthGrant = v.InferOutput<typeof GrantSchema>;

/** An OAuth error as RFC 6749 names it; `status` is the HTTP status of the token endpoint's answer. */
export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export interface OAuthDeps {
  state: StateStore;
  clock: Clock;
  auth: Pick<AuthService, 'hasKey'>;
  random?: RandomBytes;
  logger?: Logger;
  /** Lifetime of an access token (default 900 s). */
  accessTtlSeconds?: number;
  /** Lifetime of an authorization code (default 60 s). */
  codeTtlSeconds?: number;
  /** Lifetime of a refresh token, renewed by each rotation (default 30 days). */
  refreshTtlSeconds?: number;
  /** Approved clients kept at most (default 100; the oldest without a live grant makes room). */
  maxClients?: number;
  /** Live grants kept at most (default 200; beyond it a new approval is refused). */
  maxGrants?: number;
  /** Registrations not yet approved, kept in memory at most (default 200; the oldest makes room). */
  maxPending?: number;
  /** How long a registration waits for its first approval (default 24 hours). */
  pendingTtlSeconds?: number;
}

/** What the consent page asks for, checked before it is shown and again when it is posted. */
export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  /** Capabilities the client asked for (the `scope` parameter), known ones only. */
  requested: Capability[];
}

/** A grant as `GET /api/v1/auth/oauth/grants` lists it. */
export interface GrantInfo {
  id: string;
  clientId: string;
  /** The name the client gave itself at registration (its own claim), or null. */
  clientName: string | null;
  /** The key that approved it. */
  keyId: string;
  scope: KeyScope;
  resource: string;
  createdAt: string;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}
