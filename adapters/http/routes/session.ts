/**
 * A person's sign-in: `/api/v1/invites/*` (enrol through an invite: a password or a passkey) and
 * `/api/v1/session` (sign in, who am I, sign out, their own keys and passkeys). Sign-in and invite
 * routes are public and rate limited per client like the key checks; a session is a cookie
 * (HttpOnly, SameSite=Strict, Secure over TLS) directly, or a bearer token through the relay (the
 * relay drops Set-Cookie: one origin serves many servers). Decision 0030.
 */
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import { KeyScopeSchema } from '../../../core/auth/scope.ts';
import { DomainError } from '../../../core/errors.ts';
import { SESSION_PREFIX } from '../../../core/people/holdings.ts';
import type { RelyingParty } from '../../../core/people/passkeys.ts';
import type { PeopleService } from '../../../core/people/service.ts';
import { PasswordSchema, type SessionStart } from '../../../core/people/sign-in.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { clientAddress } from '../client.ts';
import { deviceName } from '../device-name.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { AppDeps, AppEnv } from '../types.ts';
import { publicBase } from './oauth.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'quire_session';

export const Token = v.pipe(v.string(), v.maxLength(200));
const As = v.optional(v.picklist(['cookie', 'bearer']));
export const SignInBody = v.object({
  name: v.pipe(v.string(), v.maxLength(100)),
  password: v.pipe(v.string(), v.maxLength(256)),
  as: As,
});
export const InviteBody = v.object({ token: Token });
export const InvitePasswordBody = v.object({ token: Token, password: PasswordSchema, as: As });
const WebAuthnResponse = v.looseObject({
  id: v.pipe(v.string(), v.maxLength(1024)),
  response: v.looseObject({}),
});
export const InvitePasskeyBody = v.object({ token: Token, response: WebAuthnResponse, as: As });
export const PasskeyBody = v.object({ response: WebAuthnResponse, as: As });
export const PasswordBody = v.object({ password: PasswordSchema });
export const KeyBody = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  scope: v.optional(KeyScopeSchema),
});

const relayed = (c: Context) => (c.env as { relayed?: boolean } | undefined)?.relayed === true;

/** True when the browser reached this server over TLS (directly, or a proxy that says so). */
function secure(c: Context, deps: AppDeps): boolean {
  return publicBase(c, deps).startsWith('https:');
}

/** The session cookie's attributes (decision 0030). */
export function sessionCookie(c: Context, deps: AppDeps, value: string, maxAgeS: number): string {
  const attrs = [`${SESSION_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeS}`];
  if (secure(c, deps)) attrs.push('Secure');
  return attrs.join('; ');
}

/**
 * The relying party of a passkey: this server as the browser reaches it. Through the relay the
 * page is the workspace served from a client origin this server allows (its own, CLIENT_URL,
 * CORS_ORIGINS), never the relay's address, which many servers share: that origin is the party.
 */
function rpOf(c: Context, deps: AppDeps): RelyingParty {
  const origin = c.req.header('origin');
  const client = relayed(c) && origin && deps.corsOrigins?.includes(origin) ? origin : null;
  const url = new URL(client ?? publicBase(c, deps));
  return { id: url.hostname, origin: url.origin, name: 'Quire' };
}

/** Runs a public sign-in step: rate limited, a failure counted against the client. */
export function limitedAttempt(deps: AppDeps, limiter: RateLimiter) {
  return async <T>(c: Context<AppEnv>, run: () => Promise<T>): Promise<T> => {
    const client = clientAddress(c, deps);
    await limiter.auth(client);
    await limiter.beforeAuth(client);
    try {
      return await run();
    } catch (err) {
      if (err instanceof DomainError && ['UNAUTHORIZED', 'INVALID_TOKEN'].includes(err.code))
        await limiter.failed(client);
      throw err;
    }
  };
}

export function sessionRoutes(deps: AppDeps, people: PeopleService, limiter: RateLimiter) {
  const app = new Hono<AppEnv>();
  const attempt = limitedAttempt(deps, limiter);
  /** The answer of a sign-in: a cookie (directly), or the token for a bearer (relay, API). */
  const started = async (c: Context<AppEnv>, s: SessionStart, as?: 'cookie' | 'bearer') => {
    const device = deviceName(c.req.header('user-agent'));
    if (device) await people.nameDevice(s.token, device);
    const body = { person: s.person, expiresAt: s.expiresAt };
    if (as === 'bearer' || (as === undefined && relayed(c))) return ok(c, { ...body, token: s.token });
    const maxAge = Math.max(0, Math.floor((Date.parse(s.expiresAt) - deps.clock.now()) / 1000));
    return ok(c, body, 200, { 'set-cookie': sessionCookie(c, deps, s.token, maxAge) });
  };
  const me = (c: Context<AppEnv>): string => {
    const id = c.get('principal')?.personId;
    if (!id)
      throw new DomainError('FORBIDDEN', 'This is for a person signed in (a session or a key of theirs).');
    return id;
  };

  // Invites (public: the token is the credential, sent in the body so no log holds it).
  app.post('/invites/lookup', async (c) => {
    const { token } = await readJson(c, InviteBody);
    return ok(c, await attempt(c, () => people.inviteFor(token)));
  });
  app.post('/invites/password', async (c) => {
    const b = await readJson(c, InvitePasswordBody);
    return started(c, await attempt(c, () => people.enrolPassword(b.token, b.password)), b.as);
  });
  app.post('/invites/passkey/options', async (c) => {
    const { token } = await readJson(c, InviteBody);
    return ok(c, await attempt(c, () => people.passkeyEnrolOptions({ invite: token }, rpOf(c, deps))));
  });
  app.post('/invites/passkey', async (c) => {
    const b = await readJson(c, InvitePasskeyBody);
    const s = await attempt(c, () =>
      people.passkeyEnrol({ invite: b.token }, b.response as never, rpOf(c, deps)),
    );
    return started(c, s as SessionStart, b.as);
  });

  // Sign in (public).
  app.post('/session', async (c) => {
    const b = await readJson(c, SignInBody);
    return started(c, await attempt(c, () => people.signInPassword(b.name, b.password)), b.as);
  });
  app.post('/session/passkey/options', async (c) =>
    ok(c, await attempt(c, () => people.passkeySignInOptions(rpOf(c, deps)))),
  );
  app.post('/session/passkey', async (c) => {
    const b = await readJson(c, PasskeyBody);
    return started(c, await attempt(c, () => people.passkeySignIn(b.response as never, rpOf(c, deps))), b.as);
  });

  // Signed in.
  app.get('/session', (c) => {
    const p = c.get('principal');
    if (!p?.personId) return ok(c, { person: null });
    const info = people.get(p.personId);
    return ok(c, {
      person: { id: info.id, name: info.name, role: info.role },
      shares: info.shares,
      signIn: info.signIn,
    });
  });
  app.delete('/session', async (c) => {
    const p = c.get('principal');
    if (p?.method === 'session') {
      // The token as it came: a bearer, in the key header (the workspace through the relay), or the cookie.
      const bearer = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
      const keyed = c.req.header('x-service-key');
      const cookie = c.req.header('cookie')?.match(/(?:^|;\s*)quire_session=([^;]+)/)?.[1];
      await people.signOut([bearer, keyed].find((t) => t?.startsWith(SESSION_PREFIX)) ?? cookie);
    }
    return ok(c, { signedOut: true }, 200, { 'set-cookie': sessionCookie(c, deps, '', 0) });
  });
  app.post('/session/password', async (c) => {
    const b = await readJson(c, PasswordBody);
    return ok(c, await people.setPassword(me(c), b.password));
  });
  app.post('/session/passkeys/options', async (c) =>
    ok(c, await people.passkeyEnrolOptions({ personId: me(c) }, rpOf(c, deps))),
  );
  app.post('/session/passkeys', async (c) => {
    const b = await readJson(c, PasskeyBody);
    return ok(c, await people.passkeyEnrol({ personId: me(c) }, b.response as never, rpOf(c, deps)));
  });
  app.get('/session/keys', (c) => ok(c, people.listKeys(me(c))));
  app.post('/session/keys', async (c) => {
    const b = await readJson(c, KeyBody);
    return ok(c, await people.mintKey(me(c), b.name, b.scope), 201);
  });
  app.delete('/session/keys/:id', async (c) => ok(c, await people.revokeKey(me(c), c.req.param('id'))));
  return app;
}
