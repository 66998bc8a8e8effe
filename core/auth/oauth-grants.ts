/**
 * The OAuth flows over the state in oauth-store.ts: registering a client, checking an
 * authorization request, issuing and redeeming a code, rotating a refresh token, and revoking.
 */
import { constantTimeEqual, sha256Hex, toBase64Url } from '../crypto.ts';
import type { Principal } from '../ports.ts';
import { CHALLENGE, parseScopeParam, redirectUriProblem, s256, VERIFIER } from './oauth-rules.ts';
import type { OAuthStore, PendingCode } from './oauth-store.ts';
import {
  ACCESS_PREFIX,
  type AuthorizeRequest,
  type OAuthClient,
  OAuthError,
  type OAuthGrant,
  REFRESH_PREFIX,
  type TokenAnswer,
} from './oauth-types.ts';
import type { KeyScope } from './scope.ts';

type Params = Record<string, string | undefined>;

const TOO_MANY_GRANTS = 'This server holds the most grants it keeps; revoke one in the settings first.';

/** Registers a public client (RFC 7591); `redirect_uris` are matched exactly later. */
export function registerClient(
  store: OAuthStore,
  meta: { redirect_uris: string[]; client_name?: string },
): OAuthClient {
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
  store.sweep();
  // Full: the oldest registration nobody approved makes room (approved ones live elsewhere).
  while (store.pending.size >= store.maxPending) store.pending.delete(store.pending.keys().next().value!);
  const client: OAuthClient = {
    clientId: `qc_${toBase64Url(store.random(16))}`,
    redirectUris: [...uris],
    createdAt: store.now(),
    ...(meta.client_name ? { clientName: String(meta.client_name).slice(0, 100) } : {}),
  };
  store.pending.set(client.clientId, client);
  return client;
}

/**
 * Checks an authorization request. Every error is an `OAuthError` the server shows on its own
 * page, never a redirect: the client and its redirect URI are checked first, and even a
 * registered redirect URI is only a registration's claim (anyone may register), so nothing
 * goes back to it before the owner decides on the consent page (RFC 9700 4.11.2).
 */
export function checkAuthorize(client: OAuthClient | null, p: Params, resource: string): AuthorizeRequest {
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
    throw new OAuthError('invalid_request', 'PKCE is required: a code_challenge of 43 base64url characters.');
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
}

/** A single-use authorization code for an approved request. */
export async function issueCode(
  store: OAuthStore,
  req: AuthorizeRequest,
  keyId: string,
  scope: KeyScope,
): Promise<string> {
  store.sweep();
  if (store.codes.size > 10_000)
    throw new OAuthError('temporarily_unavailable', 'Too many pending codes.', 503);
  // Said on the consent page, before the owner's approval is spent on a code it cannot redeem.
  if (store.cur().grants.filter(store.alive).length >= store.maxGrants)
    throw new OAuthError('invalid_request', TOO_MANY_GRANTS);
  const code = toBase64Url(store.random(32));
  store.codes.set(await sha256Hex(code), { ...req, keyId, scope, expiresAt: store.now() + store.codeTtlMs });
  return code;
}

/** Why a code cannot be redeemed with these parameters, as the error to throw; null when it can. */
function codeMismatch(code: PendingCode | undefined, p: Params, verified: string | null, now: number) {
  if (!code || code.expiresAt <= now)
    return new OAuthError('invalid_grant', 'The authorization code is not valid or has expired.');
  if (p.client_id !== code.client.clientId)
    return new OAuthError('invalid_grant', 'The code was issued to another client.');
  if (p.redirect_uri !== code.redirectUri)
    return new OAuthError('invalid_grant', 'redirect_uri must be the one of the authorization request.');
  if (p.resource !== undefined && p.resource !== code.resource)
    return new OAuthError('invalid_target', 'resource differs from the authorization request.');
  if (!verified)
    return new OAuthError('invalid_grant', 'code_verifier is required (PKCE, 43 to 128 characters).');
  if (!constantTimeEqual(verified, code.codeChallenge))
    return new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
  return null;
}

/** `grant_type=authorization_code`: the code, its redirect URI and the PKCE verifier. */
export async function exchangeCode(store: OAuthStore, p: Params, issuer: string): Promise<TokenAnswer> {
  store.sweep();
  if (!p.code) throw new OAuthError('invalid_request', 'code is required.');
  const h = await sha256Hex(p.code);
  // The verifier's hash first: from the lookup to the code's removal nothing awaits, so two
  // requests with one code cannot both redeem it.
  const verified = p.code_verifier && VERIFIER.test(p.code_verifier) ? await s256(p.code_verifier) : null;
  const replay = store.spent.get(h);
  if (replay) {
    // RFC 6749 4.1.2: a code used twice revokes what it gave.
    replay.revoked = true;
    await store.removeGrant(replay.grantId, 'authorization code replayed');
    throw new OAuthError('invalid_grant', 'This authorization code was already used; its grant is revoked.');
  }
  const code = store.codes.get(h);
  const mismatch = codeMismatch(code, p, verified, store.now());
  if (mismatch || !code) throw mismatch;
  store.codes.delete(h);
  const grant: OAuthGrant = {
    id: `grt_${toBase64Url(store.random(12))}`,
    clientId: code.client.clientId,
    keyId: code.keyId,
    scope: code.scope,
    resource: code.resource,
    createdAt: store.now(),
    refreshHash: '',
    refreshExpiresAt: store.now() + store.refreshTtlMs,
    usedRefreshHashes: [],
  };
  const mark = { grantId: grant.id, expiresAt: code.expiresAt, revoked: false };
  store.spent.set(h, mark);
  if (!store.deps.auth.hasKey(code.keyId))
    throw new OAuthError('invalid_grant', 'The approving key was revoked.');
  const { answer, refreshHash } = await store.issueTokens(grant, issuer);
  grant.refreshHash = refreshHash;
  await store.mutex.run(async () => {
    const st = store.cur();
    const grants = st.grants.filter(store.alive);
    if (grants.length >= store.maxGrants) throw new OAuthError('invalid_grant', TOO_MANY_GRANTS);
    await store.save({ ...st, clients: store.withClient(st, code.client), grants: [...grants, grant] });
    store.pending.delete(code.client.clientId);
  });
  // Replayed while this grant was being saved: it ends now.
  if (mark.revoked) {
    await store.removeGrant(grant.id, 'authorization code replayed');
    throw new OAuthError('invalid_grant', 'This authorization code was used twice; its grant is revoked.');
  }
  store.deps.logger?.info('oauth grant made', {
    grantId: grant.id,
    clientId: grant.clientId,
    keyId: grant.keyId,
  });
  return answer;
}

/** `grant_type=refresh_token`: a new pair; the old refresh token is spent (reused: the grant ends). */
export async function refreshGrant(store: OAuthStore, p: Params, issuer: string): Promise<TokenAnswer> {
  const token = p.refresh_token ?? '';
  const grantId = token.startsWith(REFRESH_PREFIX) ? token.slice(REFRESH_PREFIX.length).split('.')[0] : '';
  const h = await sha256Hex(token);
  const grant = store.cur().grants.find((g) => g.id === grantId);
  if (!grant) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
  if (grant.usedRefreshHashes.some((u) => constantTimeEqual(u, h))) {
    await store.removeGrant(grant.id, 'refresh token reused');
    throw new OAuthError('invalid_grant', 'This refresh token was already used; the grant is revoked.');
  }
  if (!constantTimeEqual(grant.refreshHash, h))
    throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
  if (!store.alive(grant)) {
    await store.removeGrant(grant.id, 'expired or key revoked');
    throw new OAuthError('invalid_grant', 'The grant has ended (expired, or its approving key was revoked).');
  }
  if (p.client_id !== undefined && p.client_id !== grant.clientId)
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
  return store.mutex.run(async () => {
    const st = store.cur();
    const live = st.grants.find((g) => g.id === grant.id);
    if (!live || live.refreshHash !== h)
      throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
    const { answer, refreshHash } = await store.issueTokens(live, issuer);
    const next: OAuthGrant = {
      ...live,
      refreshHash,
      refreshExpiresAt: store.now() + store.refreshTtlMs,
      usedRefreshHashes: [...live.usedRefreshHashes, h].slice(-20),
    };
    await store.save({ ...st, grants: st.grants.map((g) => (g.id === live.id ? next : g)) });
    return answer;
  });
}

/** RFC 7009: an access or refresh token ends its whole grant; an unknown token is no error. */
export async function revokeToken(store: OAuthStore, token: string | undefined): Promise<void> {
  if (!token) return;
  let grantId: string | undefined;
  if (token.startsWith(REFRESH_PREFIX)) {
    const id = token.slice(REFRESH_PREFIX.length).split('.')[0];
    const h = await sha256Hex(token);
    const g = store.cur().grants.find((x) => x.id === id);
    if (g && (constantTimeEqual(g.refreshHash, h) || g.usedRefreshHashes.includes(h))) grantId = g.id;
  } else if (token.startsWith(ACCESS_PREFIX)) {
    grantId = await store.accessSubject(token);
  }
  if (grantId) await store.removeGrant(grantId, 'revoked by the client');
}

/**
 * The principal of a valid access token for `resource`, or null: signature, `exp`, `aud`
 * equal to `resource`, and a live grant whose key still exists. Its scope is the grant's.
 */
export async function verifyAccess(
  store: OAuthStore,
  token: string,
  resource: string,
): Promise<Principal | null> {
  if (!token.startsWith(ACCESS_PREFIX) || token.length > 4096) return null;
  const sub = await store.accessSubject(token, { audience: resource, requiredClaims: ['exp', 'sub'] });
  if (sub === undefined) return null;
  const grant = store.cur().grants.find((g) => g.id === sub);
  if (!grant) return null;
  if (!store.deps.auth.hasKey(grant.keyId)) {
    await store.removeGrant(grant.id, 'approving key revoked');
    return null;
  }
  return { id: grant.id, method: 'jwt', scope: grant.scope };
}
