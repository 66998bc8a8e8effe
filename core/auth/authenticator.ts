import { DomainError } from '../errors.ts';
import type { PeopleService } from '../people/service.ts';
import { SESSION_PREFIX } from '../people/sign-in.ts';
import type { Authenticator, Principal } from '../ports.ts';
import type { Jwt } from './jwt.ts';
import type { KeyScope } from './scope.ts';
import type { AuthService } from './service.ts';

const VERIFIED_TTL_MS = 30_000;

/** The three modes of SERVICE_AUTH_MODE. */
export type AuthMode = 'api-key' | 'jwt' | 'none';

/** The Authenticator port for the configured mode. */
export function createAuthenticator(opts: {
  mode: AuthMode;
  auth: AuthService;
  jwt?: Jwt | null;
  /** The people: their sessions (cookie or bearer) and their own keys; absent: keys only. */
  people?: PeopleService;
  /** Milliseconds since the epoch, for the verified-key cache (default Date.now). */
  now?: () => number;
}): Authenticator {
  const { mode, auth, jwt, people } = opts;
  if (mode === 'jwt' && !jwt) throw new Error('jwt mode needs a JWT verifier');
  const now = opts.now ?? Date.now;
  // Keys verified recently, so a request does not hash its key again: only valid keys enter,
  // at most 256, each for 30 s (then verifyKey runs again and records lastUsedAt), and any
  // change of the credentials (revoke, mint, rotate) empties it at once.
  const verified = new Map<string, { id: string; at: number; generation: number; scope?: KeyScope }>();
  const principalOf = (seen: { id: string; scope?: KeyScope }): Principal =>
    seen.scope ? { id: seen.id, method: 'api-key', scope: seen.scope } : { id: seen.id, method: 'api-key' };
  const fresh = (apiKey: string) => {
    const seen = verified.get(apiKey);
    return seen && seen.generation === auth.generation && now() - seen.at < VERIFIED_TTL_MS ? seen : null;
  };
  return {
    known(creds) {
      if (mode === 'none') return { id: 'anonymous', method: 'none' };
      if (mode !== 'api-key') return null;
      const apiKey = creds.apiKey ?? creds.bearer;
      const seen = apiKey ? fresh(apiKey) : null;
      return seen ? principalOf(seen) : null;
    },
    async authenticate(creds): Promise<Principal> {
      if (mode === 'none') return { id: 'anonymous', method: 'none' };
      // A person's session: a bearer (through the relay, which carries no cookie) or the cookie.
      // The key header may carry the token too: the workspace sends its one credential there,
      // a key or, for a person reaching the server through the relay, their session.
      const bearerSession = [creds.bearer, creds.apiKey].find((t) => t?.startsWith(SESSION_PREFIX));
      if (people && (bearerSession || (creds.session && !creds.apiKey && !creds.bearer))) {
        const live = await people.session(bearerSession ?? creds.session);
        if (!live) {
          throw new DomainError(
            'UNAUTHORIZED',
            'Your session has ended (signed out, expired or revoked); sign in again.',
          );
        }
        return {
          id: live.session.id,
          method: 'session',
          personId: live.person.id,
          ...(live.session.device ? { device: live.session.device } : {}),
          ...(live.scope ? { scope: live.scope } : {}),
          ...(bearerSession ? {} : { cookie: true as const }),
        };
      }
      if (mode === 'jwt') {
        if (!creds.bearer) {
          throw new DomainError(
            'UNAUTHORIZED',
            'Send "Authorization: Bearer <token>"; trade your key for one at POST /api/v1/auth/token.',
          );
        }
        const token = await jwt!.verify(creds.bearer);
        // A token dies with the key it was traded for (revoked or rotated away).
        if (token.keyId !== null && !auth.hasKey(token.keyId)) {
          throw new DomainError(
            'INVALID_TOKEN',
            'Unauthorized: the key this token was issued for has been revoked; get a new one from POST /api/v1/auth/token.',
          );
        }
        // A token traded from a scoped key carries that key's scope (looked up now, by key id).
        const scope = token.keyId !== null ? auth.scopeOf(token.keyId) : undefined;
        return scope ? { id: token.subject, method: 'jwt', scope } : { id: token.subject, method: 'jwt' };
      }
      // MCP clients (and many HTTP tools) send the key as a bearer token; it counts the same.
      const apiKey = creds.apiKey ?? creds.bearer;
      if (!apiKey) {
        throw new DomainError('UNAUTHORIZED', 'Send your API key in the X-Service-Key header.');
      }
      const seen = fresh(apiKey);
      if (seen) return principalOf(seen);
      const key = await auth.verifyKey(apiKey);
      if (!key) {
        // A key a person minted: checked against the person on every request (never cached), so
        // disabling them or shrinking their shares takes effect on the next one.
        const own = people ? await people.personKey(apiKey) : null;
        if (own)
          return {
            id: own.keyId,
            method: 'api-key',
            personId: own.personId,
            ...(own.scope ? { scope: own.scope } : {}),
          };
        throw new DomainError('INVALID_API_KEY', 'The API key in X-Service-Key is not valid.');
      }
      if (verified.size >= 256) verified.clear();
      const entry = {
        id: key.id,
        at: now(),
        generation: auth.generation,
        ...(key.scope ? { scope: key.scope } : {}),
      };
      verified.set(apiKey, entry);
      return principalOf(entry);
    },
  };
}
