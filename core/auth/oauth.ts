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
import { jwtVerify, SignJWT } from 'jose';
import * as v from 'valibot';
import { constantTimeEqual, type RandomBytes, secureRandom, sha256Hex, toBase64Url } from '../crypto.ts';
import { createMutex } from '../mutex.ts';
import type { Clock, Logger, Principal, StateStore } from '../ports.ts';
import { CAPABILITIES, type Capability, inScope, type KeyScope, KeyScopeSchema } from './scope.ts';
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
const OAuthStateSchema = v.object({
  v: v.literal(1),
  secret: v.pipe(v.string(), v.minLength(32)),
  clients: v.array(ClientSchema),
  grants: v.array(GrantSchema),
});
type OAuthState = v.InferOutput<typeof OAuthStateSchema>;
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

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/**
 * A native app's private-use scheme (RFC 8252 7.1): a reverse domain name the app's vendor owns,
 * so at least one dot (`com.example.app:`). A single-word scheme is the browser's or the OS's own
 * (`javascript:`, `ms-msdt:`, `chrome:`, `view-source:`, `jar:`...) and is refused.
 */
const APP_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;
/** Single-word schemes of MCP clients that register them (Cursor's `cursor://anysphere.cursor-mcp/...`). */
const KNOWN_APP_SCHEMES = new Set(['cursor:']);
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Why a redirect URI cannot be registered, or null when it can: an absolute URI without a
 * fragment or credentials, with a scheme on the allow-list: https; http only to a loopback host
 * (RFC 8252 7.3); an app's private-use scheme named as a reverse domain (RFC 8252 7.1), or one of
 * the few single-word schemes known MCP clients use. Everything else is refused, so no scheme
 * that runs or reads something in the browser or the OS can be a redirect target.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'is longer than 2000 characters';
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (u.hash || uri.includes('#')) return 'has a fragment';
  if (u.username || u.password) return 'carries credentials';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:')
    return LOOPBACK.has(u.hostname) ? null : 'uses http to a host that is not loopback';
  if (APP_SCHEME.test(u.protocol) || KNOWN_APP_SCHEMES.has(u.protocol)) return null;
  return `uses the scheme ${u.protocol} (allowed: https, http to loopback, an app's reverse-domain scheme)`;
}

/** base64url(SHA-256(verifier)), the S256 code challenge (RFC 7636). */
async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return toBase64Url(new Uint8Array(digest));
}

/** The capabilities of a `scope` parameter that Quire knows (others are ignored). */
export function parseScopeParam(scope: string | undefined): Capability[] {
  const names = (scope ?? '').split(/\s+/).filter(Boolean);
  return CAPABILITIES.filter((c) => names.includes(c));
}

/**
 * The scope a grant gets: the capabilities and folders the owner picked, bounded by the scope of
 * the key that approves (a grant never exceeds its key). Throws `invalid_scope` when nothing is left.
 */
export function boundedScope(
  picked: { capabilities: readonly string[]; folders?: readonly string[] },
  keyScope: KeyScope | undefined,
): KeyScope {
  const caps = CAPABILITIES.filter(
    (c) => picked.capabilities.includes(c) && (!keyScope || keyScope.capabilities.includes(c)),
  );
  if (caps.length === 0) {
    throw new OAuthError('invalid_scope', 'Pick at least one capability the approving key holds.');
  }
  const parsed = v.safeParse(KeyScopeSchema, {
    capabilities: caps,
    ...(picked.folders && picked.folders.length > 0 ? { folders: [...picked.folders] } : {}),
  });
  if (!parsed.success) throw new OAuthError('invalid_scope', parsed.issues[0].message);
  const scope = parsed.output;
  if (keyScope?.folders && keyScope.folders.length > 0) {
    // Each picked folder must lie inside the key's folders; none picked: the key's own.
    if (!scope.folders || scope.folders.length === 0) scope.folders = [...keyScope.folders];
    else if (!scope.folders.every((f) => inScope({ capabilities: caps, folders: keyScope.folders }, f)))
      throw new OAuthError('invalid_scope', "A folder you picked is outside the approving key's folders.");
  }
  if (keyScope?.exclude && keyScope.exclude.length > 0) scope.exclude = [...keyScope.exclude];
  return scope;
}

/** The OAuth authorization server's state and rules. */
export function createOAuthService(deps: OAuthDeps) {
  const { clock, logger } = deps;
  const random = deps.random ?? secureRandom;
  const accessTtl = deps.accessTtlSeconds ?? 900;
  const codeTtlMs = (deps.codeTtlSeconds ?? 60) * 1000;
  const refreshTtlMs = (deps.refreshTtlSeconds ?? 30 * 86_400) * 1000;
  const maxClients = deps.maxClients ?? 100;
  const maxGrants = deps.maxGrants ?? 200;
  const maxPending = deps.maxPending ?? 200;
  const pendingTtlMs = (deps.pendingTtlSeconds ?? 86_400) * 1000;
  const mutex = createMutex();
  let s: OAuthState | null = null;
  let key: Uint8Array | null = null;
  /** Codes not yet used, by their hash. */
  const codes = new Map<string, AuthorizeRequest & { keyId: string; scope: KeyScope; expiresAt: number }>();
  /** Codes already used, by their hash, with the grant they made (a replay ends it). */
  const spent = new Map<string, { grantId: string; expiresAt: number; revoked: boolean }>();
  /** Registrations not yet approved, oldest first (never written: anyone may register). */
  const pending = new Map<string, OAuthClient>();

  const cur = () => {
    if (!s) throw new Error('oauth service used before init()');
    return s;
  };
  const save = async (next: OAuthState) => {
    await deps.state.put(OAUTH_STATE_KEY, JSON.stringify(next));
    s = next;
  };
  const sweep = () => {
    const now = clock.now();
    for (const [h, c] of codes) if (c.expiresAt <= now) codes.delete(h);
    for (const [h, c] of spent) if (c.expiresAt <= now) spent.delete(h);
    for (const [id, c] of pending) if (c.createdAt + pendingTtlMs <= now) pending.delete(id);
  };
  /**
   * The approved clients with `client` among them: a registration becomes a stored client with
   * its first grant. Full: the oldest approved client without a live grant makes room.
   */
  const withClient = (st: OAuthState, client: OAuthClient): OAuthClient[] => {
    if (st.clients.some((c) => c.clientId === client.clientId)) return st.clients;
    let clients = st.clients;
    if (clients.length >= maxClients) {
      const used = new Set(st.grants.filter(alive).map((g) => g.clientId));
      const idle = clients.find((c) => !used.has(c.clientId));
      if (!idle)
        throw new OAuthError(
          'invalid_grant',
          'This server holds the most approved clients it keeps; revoke a grant first.',
        );
      clients = clients.filter((c) => c !== idle);
    }
    return [...clients, client];
  };
  /** Live grants: not expired, and their approving key still exists. */
  const alive = (g: OAuthGrant) => g.refreshExpiresAt > clock.now() && deps.auth.hasKey(g.keyId);
  const removeGrant = (id: string, why: string) =>
    mutex.run(async () => {
      const st = cur();
      if (!st.grants.some((g) => g.id === id)) return;
      await save({ ...st, grants: st.grants.filter((g) => g.id !== id) });
      logger?.info('oauth grant ended', { grantId: id, reason: why });
    });

  const issueTokens = async (
    grant: OAuthGrant,
    issuer: string,
  ): Promise<{ answer: TokenAnswer; refreshHash: string }> => {
    const now = Math.floor(clock.now() / 1000);
    const scope = grant.scope.capabilities.join(' ');
    const jwt = await new SignJWT({ scope, client_id: grant.clientId })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(grant.id)
      .setIssuer(issuer)
      .setAudience(grant.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + accessTtl)
      .sign(key!);
    const refresh = `${REFRESH_PREFIX}${grant.id}.${toBase64Url(random(32))}`;
    return {
      answer: {
        access_token: ACCESS_PREFIX + jwt,
        token_type: 'Bearer',
        expires_in: accessTtl,
        refresh_token: refresh,
        scope,
      },
      refreshHash: await sha256Hex(refresh),
    };
  };

  return {
    /** Loads `oauth.json`, or starts a new state (a new signing secret), saved on first use. */
    init(): Promise<void> {
      return mutex.run(async () => {
        const text = await deps.state.get(OAUTH_STATE_KEY);
        let parsed: OAuthState | null = null;
        if (text !== null) {
          const r = v.safeParse(
            OAuthStateSchema,
            (() => {
              try {
                return JSON.parse(text);
              } catch {
                return null;
              }
            })(),
          );
          if (r.success) parsed = r.output;
          // A damaged file only costs the MCP clients a new consent: start over, and say so.
          else
            logger?.warn(`${OAUTH_STATE_KEY} in DATA_DIR is damaged; OAuth clients must connect again`, {});
        }
        // Written with the first registration, not at start (no cost for servers no client uses).
        if (!parsed) parsed = { v: 1, secret: toBase64Url(random(32)), clients: [], grants: [] };
        s = parsed;
        key = new TextEncoder().encode(parsed.secret);
      });
    },

    /** Registers a public client (RFC 7591); `redirect_uris` are matched exactly later. */
    registerClient(meta: { redirect_uris: string[]; client_name?: string }): Promise<OAuthClient> {
      const uris = meta.redirect_uris;
      if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10) {
        throw new OAuthError('invalid_redirect_uri', 'Send 1 to 10 redirect_uris.');
      }
      for (const uri of uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new OAuthError('invalid_redirect_uri', `The redirect URI ${problem}.`);
      }
      if (uris.reduce((n, u) => n + u.length, 0) > 4000)
        throw new OAuthError('invalid_redirect_uri', 'The redirect_uris together exceed 4000 characters.');
      sweep();
      // Full: the oldest registration nobody approved makes room (approved ones live elsewhere).
      while (pending.size >= maxPending) pending.delete(pending.keys().next().value!);
      const client: OAuthClient = {
        clientId: `qc_${toBase64Url(random(16))}`,
        redirectUris: [...uris],
        createdAt: clock.now(),
        ...(meta.client_name ? { clientName: String(meta.client_name).slice(0, 100) } : {}),
      };
      pending.set(client.clientId, client);
      return Promise.resolve(client);
    },

    /** An approved client, or a registration still waiting for its first approval. */
    client(clientId: string | undefined): OAuthClient | null {
      if (clientId === undefined) return null;
      const waiting = pending.get(clientId);
      if (waiting && waiting.createdAt + pendingTtlMs > clock.now()) return waiting;
      return cur().clients.find((c) => c.clientId === clientId) ?? null;
    },

    /**
     * Checks an authorization request. Every error is an `OAuthError` the server shows on its own
     * page, never a redirect: the client and its redirect URI are checked first, and even a
     * registered redirect URI is only a registration's claim (anyone may register), so nothing
     * goes back to it before the owner decides on the consent page (RFC 9700 4.11.2).
     */
    checkAuthorize(p: Record<string, string | undefined>, resource: string): AuthorizeRequest {
      const client = this.client(p.client_id);
      if (!client) throw new OAuthError('invalid_client', 'Unknown client_id; register the client first.');
      const redirectUri =
        p.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
      if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
        throw new OAuthError(
          'invalid_request',
          'The redirect_uri is not one this client registered (exact match).',
        );
      }
      if (p.response_type !== 'code')
        throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.');
      if (p.code_challenge_method !== 'S256')
        throw new OAuthError('invalid_request', 'PKCE is required: code_challenge_method=S256.');
      if (!p.code_challenge || !CHALLENGE.test(p.code_challenge))
        throw new OAuthError(
          'invalid_request',
          'PKCE is required: a code_challenge of 43 base64url characters.',
        );
      if (p.resource !== undefined && p.resource !== resource)
        throw new OAuthError('invalid_target', `This server's resource is ${resource}.`);
      return {
        client,
        redirectUri,
        state: p.state,
        codeChallenge: p.code_challenge,
        resource,
        requested: parseScopeParam(p.scope),
      };
    },

    /** A single-use authorization code for an approved request. */
    async issueCode(req: AuthorizeRequest, keyId: string, scope: KeyScope): Promise<string> {
      sweep();
      if (codes.size > 10_000)
        throw new OAuthError('temporarily_unavailable', 'Too many pending codes.', 503);
      // Said on the consent page, before the owner's approval is spent on a code it cannot redeem.
      if (cur().grants.filter(alive).length >= maxGrants)
        throw new OAuthError(
          'invalid_request',
          'This server holds the most grants it keeps; revoke one in the settings first.',
        );
      const code = toBase64Url(random(32));
      codes.set(await sha256Hex(code), { ...req, keyId, scope, expiresAt: clock.now() + codeTtlMs });
      return code;
    },

    /** `grant_type=authorization_code`: the code, its redirect URI and the PKCE verifier. */
    async exchangeCode(p: Record<string, string | undefined>, issuer: string): Promise<TokenAnswer> {
      sweep();
      if (!p.code) throw new OAuthError('invalid_request', 'code is required.');
      const h = await sha256Hex(p.code);
      // The verifier's hash first: from the lookup to the code's removal nothing awaits, so two
      // requests with one code cannot both redeem it.
      const verified = p.code_verifier && VERIFIER.test(p.code_verifier) ? await s256(p.code_verifier) : null;
      const replay = spent.get(h);
      if (replay) {
        // RFC 6749 4.1.2: a code used twice revokes what it gave.
        replay.revoked = true;
        await removeGrant(replay.grantId, 'authorization code replayed');
        throw new OAuthError(
          'invalid_grant',
          'This authorization code was already used; its grant is revoked.',
        );
      }
      const code = codes.get(h);
      if (!code || code.expiresAt <= clock.now())
        throw new OAuthError('invalid_grant', 'The authorization code is not valid or has expired.');
      if (p.client_id !== code.client.clientId)
        throw new OAuthError('invalid_grant', 'The code was issued to another client.');
      if (p.redirect_uri !== code.redirectUri)
        throw new OAuthError('invalid_grant', 'redirect_uri must be the one of the authorization request.');
      if (p.resource !== undefined && p.resource !== code.resource)
        throw new OAuthError('invalid_target', 'resource differs from the authorization request.');
      if (!verified)
        throw new OAuthError('invalid_grant', 'code_verifier is required (PKCE, 43 to 128 characters).');
      if (!constantTimeEqual(verified, code.codeChallenge))
        throw new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
      codes.delete(h);
      const grant: OAuthGrant = {
        id: `grt_${toBase64Url(random(12))}`,
        clientId: code.client.clientId,
        keyId: code.keyId,
        scope: code.scope,
        resource: code.resource,
        createdAt: clock.now(),
        refreshHash: '',
        refreshExpiresAt: clock.now() + refreshTtlMs,
        usedRefreshHashes: [],
      };
      const mark = { grantId: grant.id, expiresAt: code.expiresAt, revoked: false };
      spent.set(h, mark);
      if (!deps.auth.hasKey(code.keyId))
        throw new OAuthError('invalid_grant', 'The approving key was revoked.');
      const { answer, refreshHash } = await issueTokens(grant, issuer);
      grant.refreshHash = refreshHash;
      await mutex.run(async () => {
        const st = cur();
        const grants = st.grants.filter(alive);
        if (grants.length >= maxGrants)
          throw new OAuthError(
            'invalid_grant',
            'This server holds the most grants it keeps; revoke one in the settings first.',
          );
        await save({ ...st, clients: withClient(st, code.client), grants: [...grants, grant] });
        pending.delete(code.client.clientId);
      });
      // Replayed while this grant was being saved: it ends now.
      if (mark.revoked) {
        await removeGrant(grant.id, 'authorization code replayed');
        throw new OAuthError(
          'invalid_grant',
          'This authorization code was used twice; its grant is revoked.',
        );
      }
      logger?.info('oauth grant made', { grantId: grant.id, clientId: grant.clientId, keyId: grant.keyId });
      return answer;
    },

    /** `grant_type=refresh_token`: a new pair; the old refresh token is spent (reused: the grant ends). */
    async refresh(p: Record<string, string | undefined>, issuer: string): Promise<TokenAnswer> {
      const token = p.refresh_token ?? '';
      const grantId = token.startsWith(REFRESH_PREFIX)
        ? token.slice(REFRESH_PREFIX.length).split('.')[0]
        : '';
      const h = await sha256Hex(token);
      const grant = cur().grants.find((g) => g.id === grantId);
      if (!grant) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
      if (grant.usedRefreshHashes.some((u) => constantTimeEqual(u, h))) {
        await removeGrant(grant.id, 'refresh token reused');
        throw new OAuthError('invalid_grant', 'This refresh token was already used; the grant is revoked.');
      }
      if (!constantTimeEqual(grant.refreshHash, h))
        throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
      if (!alive(grant)) {
        await removeGrant(grant.id, 'expired or key revoked');
        throw new OAuthError(
          'invalid_grant',
          'The grant has ended (expired, or its approving key was revoked).',
        );
      }
      if (p.client_id !== undefined && p.client_id !== grant.clientId)
        throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
      return mutex.run(async () => {
        const st = cur();
        const live = st.grants.find((g) => g.id === grant.id);
        if (!live || live.refreshHash !== h)
          throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
        const { answer, refreshHash } = await issueTokens(live, issuer);
        const next: OAuthGrant = {
          ...live,
          refreshHash,
          refreshExpiresAt: clock.now() + refreshTtlMs,
          usedRefreshHashes: [...live.usedRefreshHashes, h].slice(-20),
        };
        await save({ ...st, grants: st.grants.map((g) => (g.id === live.id ? next : g)) });
        return answer;
      });
    },

    /** RFC 7009: an access or refresh token ends its whole grant; an unknown token is no error. */
    async revoke(token: string | undefined): Promise<void> {
      if (!token) return;
      let grantId: string | undefined;
      if (token.startsWith(REFRESH_PREFIX)) {
        const id = token.slice(REFRESH_PREFIX.length).split('.')[0];
        const h = await sha256Hex(token);
        const g = cur().grants.find((x) => x.id === id);
        if (g && (constantTimeEqual(g.refreshHash, h) || g.usedRefreshHashes.includes(h))) grantId = g.id;
      } else if (token.startsWith(ACCESS_PREFIX)) {
        try {
          const { payload } = await jwtVerify(token.slice(ACCESS_PREFIX.length), key!, {
            algorithms: ['HS256'],
            currentDate: new Date(clock.now()),
          });
          grantId = payload.sub;
        } catch {
          // Expired or forged: nothing to revoke.
        }
      }
      if (grantId) await removeGrant(grantId, 'revoked by the client');
    },

    /**
     * The principal of a valid access token for `resource`, or null: signature, `exp`, `aud`
     * equal to `resource`, and a live grant whose key still exists. Its scope is the grant's.
     */
    async verifyAccess(token: string, resource: string): Promise<Principal | null> {
      if (!token.startsWith(ACCESS_PREFIX) || token.length > 4096) return null;
      let sub: string | undefined;
      try {
        const { payload } = await jwtVerify(token.slice(ACCESS_PREFIX.length), key!, {
          algorithms: ['HS256'],
          audience: resource,
          currentDate: new Date(clock.now()),
          requiredClaims: ['exp', 'sub'],
        });
        sub = payload.sub;
      } catch {
        return null;
      }
      const grant = cur().grants.find((g) => g.id === sub);
      if (!grant) return null;
      if (!deps.auth.hasKey(grant.keyId)) {
        await removeGrant(grant.id, 'approving key revoked');
        return null;
      }
      return { id: grant.id, method: 'jwt', scope: grant.scope };
    },

    /** The live grants. */
    grants(): OAuthGrant[] {
      return cur().grants.filter(alive);
    },

    /** The live grants as the owner sees them: no token hash, the client's declared name. */
    listGrants(): GrantInfo[] {
      const st = cur();
      return st.grants.filter(alive).map((g) => ({
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
      if (!cur().grants.some((g) => g.id === id && alive(g))) return false;
      await removeGrant(id, 'revoked by the owner');
      return true;
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
