import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import { requireCap, requireWholeVault } from '../../../core/auth/access.ts';
import { KeyScopeSchema } from '../../../core/auth/scope.ts';
import { scopeWithin } from '../../../core/auth/service.ts';
import { DomainError } from '../../../core/errors.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { clientAddress } from '../client.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { AppDeps, AppEnv, SetupDeps } from '../types.ts';

/**
 * Body of `POST /api/v1/auth/keys`: a name, and optionally a scope (capabilities, folders,
 * excluded folders; core/auth/scope.ts). No scope: a key with full access, as before scopes.
 */
export const KeyName = v.object({
  name: v.pipe(
    v.string('name must be a string.'),
    v.trim(),
    v.minLength(1, 'name must not be empty.'),
    v.maxLength(100),
  ),
  scope: v.optional(v.nullable(KeyScopeSchema)),
});

/** `/api/v1/auth` routes. verify, link and token check the key themselves (see app.ts). */
export function authRoutes(deps: AppDeps, setup: SetupDeps, limiter: RateLimiter) {
  const app = new Hono<AppEnv>();
  const { service } = setup;

  /**
   * The key in X-Service-Key, verified; counts failures for rate limiting. `personal`: a key a
   * person minted counts too (verify and link, so the workspace links with it, directly or through
   * the relay); never for a token, which would outlive the person's revocation.
   */
  const requireKey = async (c: Context<AppEnv>, personal = false) => {
    const client = clientAddress(c, deps);
    await limiter.auth(client);
    const key = c.req.header('x-service-key');
    const own = personal && key && deps.people ? await deps.people.personKey(key) : null;
    const found = own
      ? { id: own.keyId, ...(own.scope ? { scope: own.scope } : {}) }
      : await service.verifyKey(key);
    if (!found) {
      // Failures only: a valid key passes even from an address others have failed from (NAT).
      await limiter.beforeAuth(client);
      await limiter.failed(client);
      throw key
        ? new DomainError('INVALID_API_KEY', 'The API key in X-Service-Key is not valid.')
        : new DomainError('UNAUTHORIZED', 'Send your API key in the X-Service-Key header.');
    }
    return found;
  };

  app.post('/verify', async (c) => {
    await requireKey(c, true);
    return ok(c, { valid: true, serverId: service.serverId, setupComplete: service.setupComplete });
  });
  app.post('/link', async (c) => {
    const key = await requireKey(c, true);
    // Completing setup is admin work (core/auth/access.ts), checked here: this route checks its own key.
    const who = key.scope ? { id: key.id, method: 'api-key' as const, scope: key.scope } : undefined;
    // Once setup is complete, link changes nothing: any key may confirm it (the client's flow).
    if (!service.setupComplete) {
      requireCap(who, 'admin');
      requireWholeVault(who);
    }
    return ok(c, await service.link());
  });
  app.post('/token', async (c) => {
    const key = await requireKey(c);
    if (!setup.jwt)
      throw new DomainError('FORBIDDEN', 'Tokens are only issued when SERVICE_AUTH_MODE is jwt.');
    return ok(c, await setup.jwt.issue(key.id));
  });

  app.post('/pair-code/rotate', async (c) => {
    const pairing = await service.rotatePairCode();
    return ok(c, { relayCode: pairing.code, expiresAt: pairing.expiresAt });
  });
  app.get('/keys', (c) => ok(c, service.listKeys()));
  app.post('/keys', async (c) => {
    const body = await readJson(c, KeyName);
    const scope = body.scope ?? undefined;
    // Minting needs `admin` (checked with every route, core/auth/access.ts); a scoped admin key
    // still cannot hand out more than it holds.
    const own = c.get('principal')?.scope;
    if (!scopeWithin(scope, own)) {
      throw new DomainError(
        'FORBIDDEN',
        'A scoped key can only mint keys within its own scope (its capabilities and folders).',
      );
    }
    return ok(c, await service.mintKey(body.name, scope), 201);
  });
  app.delete('/keys/:id', async (c) => ok(c, await service.revokeKey(c.req.param('id'))));
  return app;
}
