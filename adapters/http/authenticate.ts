/**
 * The key check of every protected route: the credentials (a key, a bearer, an OAuth access token
 * for `/mcp`, a person's session cookie), failed attempts counted per client, the CSRF rule of a
 * cookie (decision 0030), then the capability of the route family (core/auth/access.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { requireRoute } from '../../core/auth/access.ts';
import { ACCESS_PREFIX } from '../../core/auth/oauth.ts';
import { DomainError } from '../../core/errors.ts';
import { clientAddress } from './client.ts';
import type { RateLimiter } from './rate-limit.ts';
import { publicBase } from './routes/oauth.ts';
import { SESSION_COOKIE } from './routes/session.ts';
import type { AppDeps, AppEnv } from './types.ts';

/** Routes that check the key themselves (rate limited, and usable in every auth mode). */
const SELF_AUTH_ROUTES = /^\/api\/v1\/auth\/(verify|link|token)$/;
const SESSION_COOKIE_RE = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`);
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The authentication middleware; `isPublic` names the routes that answer without credentials. */
export function authMiddleware(
  deps: AppDeps,
  limiter: RateLimiter,
  isPublic: (method: string, path: string) => boolean,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const authn = deps.authenticator;
    if (!authn || isPublic(c.req.method, c.req.path)) return next();
    if (c.req.method === 'POST' && SELF_AUTH_ROUTES.test(c.req.path)) return next();
    const bearer = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
    let principal: Awaited<ReturnType<typeof authn.authenticate>>;
    try {
      if (deps.oauth && bearer?.startsWith(ACCESS_PREFIX) && c.req.path === '/mcp') {
        // An OAuth access token: valid for the resource `/mcp` it was issued for only.
        const granted = await deps.oauth.verifyAccess(bearer, `${publicBase(c, deps)}/mcp`);
        if (!granted) {
          throw new DomainError(
            'INVALID_TOKEN',
            'Unauthorized: the access token is not valid (expired, revoked or for another resource); refresh it or authorize again.',
          );
        }
        principal = granted;
      } else {
        // Never a cookie through the relay: its origin is shared by many servers.
        const viaRelay = (c.env as { relayed?: boolean } | undefined)?.relayed === true;
        const session =
          deps.people && !viaRelay ? c.req.header('cookie')?.match(SESSION_COOKIE_RE)?.[1] : undefined;
        const creds = { apiKey: c.req.header('x-service-key'), bearer, session };
        principal = await authn.authenticate(creds);
        c.set('recheck', () => authn.authenticate(creds));
      }
    } catch (err) {
      // Failures only: a valid key passes even from an address others have failed from (NAT).
      const client = clientAddress(c, deps);
      await limiter.beforeAuth(client);
      await limiter.failed(client);
      throw err;
    }
    c.set('principal', principal);
    // A cookie goes with every request the browser makes, whoever made the page: a state change
    // carried by one must come from this server's own pages (decision 0030).
    if (
      principal.cookie &&
      UNSAFE.has(c.req.method) &&
      c.req.header('origin') !== new URL(publicBase(c, deps)).origin
    )
      throw new DomainError(
        'FORBIDDEN',
        "Forbidden: a signed-in change must come from this server's own pages (Origin).",
      );
    // The capability the route family needs (core/auth/access.ts); folders are the views' part.
    requireRoute(principal, c.req.method, c.req.path);
    return next();
  };
}
