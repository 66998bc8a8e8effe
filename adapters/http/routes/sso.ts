/**
 * Single sign-on with the server's OpenID Connect provider (core/people/sso.ts, adapters/sso/):
 *
 * - `POST /api/v1/session/sso` (sign in) and `POST /api/v1/invites/sso` (link the identity to the
 *   person an invite names, the token in the body) answer `{ url }`, the provider's page to send
 *   the browser to, and set a cookie naming this attempt (HttpOnly, SameSite=Lax: the provider's
 *   redirect back is a top-level navigation from another site, which a Strict cookie would miss);
 * - `GET /api/v1/session/sso/callback` is where the provider sends the browser back: the attempt
 *   named by the cookie, used once, must carry the state the provider returns; the session cookie
 *   is set and the browser goes on to `/sign-in?sso=1` (or `/sign-in#sso-error=...` with what went
 *   wrong).
 *
 * Attempts live in memory for ten minutes (at most 1,000). Direct only: the relay drops cookies,
 * and the provider knows one redirect address. Decision 0037.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { toBase64Url } from '../../../core/crypto.ts';
import { DomainError } from '../../../core/errors.ts';
import type { PeopleService } from '../../../core/people/service.ts';
import type { SsoAttempt, SsoProvider } from '../../../core/people/sso.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { deviceName } from '../device-name.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { AppDeps, AppEnv } from '../types.ts';
import { publicBase } from './oauth.ts';
import { InviteBody, limitedAttempt, sessionCookie } from './session.ts';

/** The cookie naming a sign-in attempt, and where it goes. */
export const SSO_COOKIE = 'quire_sso';
const CALLBACK = '/api/v1/session/sso/callback';
const ATTEMPT_TTL_MS = 10 * 60_000;
const MAX_ATTEMPTS = 1000;

interface Pending {
  attempt: SsoAttempt;
  /** The invite whose person the identity is linked to; absent: a sign-in. */
  invite?: string;
  expiresAt: number;
}

export function ssoRoutes(deps: AppDeps, people: PeopleService, sso: SsoProvider, limiter: RateLimiter) {
  const app = new Hono<AppEnv>();
  const attempt = limitedAttempt(deps, limiter);
  const pending = new Map<string, Pending>();
  const now = () => deps.clock.now();
  const redirectUri = (c: Context) => `${publicBase(c, deps)}${CALLBACK}`;
  const secure = (c: Context) => publicBase(c, deps).startsWith('https:');
  const attemptCookie = (c: Context, id: string, maxAge: number) =>
    [
      `${SSO_COOKIE}=${id}`,
      `Path=${CALLBACK}`,
      'HttpOnly',
      'SameSite=Lax',
      `Max-Age=${maxAge}`,
      ...(secure(c) ? ['Secure'] : []),
    ].join('; ');

  /** Asks the provider where to go, keeps the attempt and names it in a cookie. */
  const begin = async (c: Context<AppEnv>, invite?: string) => {
    const { url, attempt: a } = await sso.begin(redirectUri(c));
    for (const [k, p] of pending) if (p.expiresAt <= now()) pending.delete(k);
    if (pending.size >= MAX_ATTEMPTS) pending.delete(pending.keys().next().value!);
    const id = toBase64Url(crypto.getRandomValues(new Uint8Array(24)));
    pending.set(id, { attempt: a, ...(invite ? { invite } : {}), expiresAt: now() + ATTEMPT_TTL_MS });
    return ok(c, { url, provider: sso.label }, 200, {
      'set-cookie': attemptCookie(c, id, ATTEMPT_TTL_MS / 1000),
    });
  };

  /** The attempt the callback's cookie names, taken once; INVALID_TOKEN when none is fresh. */
  const take = (c: Context): Pending => {
    const id = c.req.header('cookie')?.match(new RegExp(`(?:^|;\\s*)${SSO_COOKIE}=([^;]+)`))?.[1];
    const p = id ? pending.get(id) : undefined;
    if (id) pending.delete(id);
    if (!p || p.expiresAt <= now())
      throw new DomainError(
        'INVALID_TOKEN',
        'This sign-in was started too long ago, in another browser, or already finished. Start again.',
      );
    return p;
  };

  // Public: the sign-in page asks whether to offer single sign-on, and with whom.
  app.get('/session/sso', (c) => ok(c, { provider: sso.label }));
  app.post('/session/sso', (c) => attempt(c, () => begin(c)));
  app.post('/invites/sso', async (c) => {
    const { token } = await readJson(c, InviteBody);
    return attempt(c, async () => {
      await people.inviteFor(token);
      return begin(c, token);
    });
  });
  app.get('/session/sso/callback', async (c) => {
    const gone = attemptCookie(c, '', 0);
    try {
      const s = await attempt(c, async () => {
        const p = take(c);
        const back = new URL(redirectUri(c));
        back.search = new URL(c.req.url).search;
        const id = await sso.finish(back, redirectUri(c), p.attempt);
        return p.invite ? people.enrolSso(p.invite, id) : people.signInSso(id);
      });
      const device = deviceName(c.req.header('user-agent'));
      if (device) await people.nameDevice(s.token, device);
      const maxAge = Math.max(0, Math.floor((Date.parse(s.expiresAt) - now()) / 1000));
      const headers = new Headers({ location: '/sign-in?sso=1', 'cache-control': 'no-store' });
      headers.append('set-cookie', gone);
      headers.append('set-cookie', sessionCookie(c, deps, s.token, maxAge));
      return new Response(null, { status: 303, headers });
    } catch (err) {
      const message = err instanceof DomainError ? err.message : 'The sign-in failed; try again.';
      if (!(err instanceof DomainError))
        deps.logger.warn('single sign-on callback failed', { err: String(err) });
      const headers = new Headers({
        location: `/sign-in#sso-error=${encodeURIComponent(message)}`,
        'cache-control': 'no-store',
      });
      headers.append('set-cookie', gone);
      return new Response(null, { status: 303, headers });
    }
  });
  return app;
}
