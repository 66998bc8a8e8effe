/**
 * `/p/<id>/...`: the pages of a publication, for anyone holding its link, directly and through the
 * relay (which forwards `/r/<serverId>/p/...` like any path; the key check never runs here, and
 * nothing else of the server opens to a caller without a key). What a page may show is decided in
 * core/publish/pages.ts; this file adds what a static site sends: validators with 304, caching,
 * robots, a strict CSP, and the password gate (a form and a cookie scoped to the publication
 * directly; HTTP Basic through the relay, which passes no cookie and runs no form).
 */
import { type Context, Hono } from 'hono';
import { isDomainError } from '../../../core/errors.ts';
import { bareMessage, pageSegments, publishedSite } from '../../../core/publish/pages.ts';
import type { PublicationService } from '../../../core/publish/service.ts';
import type { Publication } from '../../../core/publish/types.ts';
import { clientAddress } from '../client.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { AppDeps, AppEnv } from '../types.ts';
import { publicBase } from './oauth.ts';
import { answer, basicGate, cookieName, cookieOf, relayed, serveFile } from './published-answer.ts';

export function publishedRoutes(deps: AppDeps, pubs: PublicationService, limiter: RateLimiter) {
  const app = new Hono<AppEnv>();
  const basic = basicGate(deps, pubs, limiter);

  /** Whether the request may read `pub`: no password, a valid cookie (directly), or Basic. */
  const unlocked = async (c: Context<AppEnv>, pub: Publication): Promise<boolean> => {
    if (!pub.password) return true;
    if (!relayed(c) && (await pubs.unlocked(pub, cookieOf(c, cookieName(pub.id))))) return true;
    return basic(c, pub);
  };

  /** A password check, rate limited and counted per client like every sign-in. */
  const attempt = async (c: Context<AppEnv>, run: () => Promise<boolean>): Promise<boolean> => {
    const client = clientAddress(c, deps);
    await limiter.auth(client);
    await limiter.beforeAuth(client);
    const ok = await run();
    if (!ok) await limiter.failed(client);
    return ok;
  };

  const lockPage = (c: Context<AppEnv>, pub: Publication, wrong: boolean) => {
    const site = publishedSite(pub, deps.notes);
    const root = rootOf(c);
    const note = wrong ? '<p role="alert">That password is not right.</p>' : '';
    if (relayed(c))
      return answer(
        c,
        site.message(
          401,
          'Password needed',
          `<h1>Password needed</h1>${note}<p>This page asks for its password in the browser's sign-in box (any user name).</p>`,
          null,
        ),
        pub,
        { 'www-authenticate': 'Basic realm="Quire publication", charset="UTF-8"' },
      );
    const form = `<h1>Password needed</h1>${note}<form method="post" action="${root}_unlock"><label>Password <input type="password" name="password" autocomplete="current-password" required autofocus></label> <button type="submit">Open</button></form>`;
    return answer(c, site.message(401, 'Password needed', form, null), pub);
  };

  /** `./` or `../..` back to the publication's root from the request's path. */
  const rootOf = (c: Context) => {
    const rest = restOf(c);
    const depth = rest === null ? 0 : rest.split('/').length - 1;
    return depth === 0 ? './' : '../'.repeat(depth);
  };
  /** The raw (still encoded) path below `/p/<id>/`, or null for `/p/<id>`. */
  const restOf = (c: Context): string | null => {
    const path = new URL(c.req.url).pathname;
    const m = /^\/p\/[^/]+\/(.*)$/s.exec(path);
    return m ? m[1]! : null;
  };

  const handle = async (c: Context<AppEnv>) => {
    const id = c.req.param('id') ?? '';
    const method = c.req.method;
    const rest = restOf(c);
    const opened = /^pub_[A-Za-z0-9_-]{1,64}$/.test(id) ? pubs.open(id) : ({ state: 'missing' } as const);
    if (opened.state === 'missing')
      return answer(
        c,
        bareMessage(
          404,
          'Not published',
          'Nothing is published at this address (it may have been withdrawn).',
        ),
        null,
      );
    if (opened.state === 'expired')
      return answer(c, bareMessage(410, 'No longer published', 'This publication has expired.'), null);
    const pub = opened.pub;
    if (rest === null) return c.redirect(`${encodeURIComponent(id)}/`, 301);
    if (rest === '_unlock' && method === 'POST') return unlock(c, pub);
    if (method !== 'GET' && method !== 'HEAD')
      return answer(c, bareMessage(405, 'Read-only', 'Published pages can only be read.'), pub, {
        allow: 'GET, HEAD',
      });
    if (!(await unlocked(c, pub))) return lockPage(c, pub, false);
    const site = publishedSite(pub, deps.notes);
    try {
      const segments = pageSegments(rest);
      if (segments.length === 1 && segments[0] === '_search')
        return answer(c, await site.search(c.req.query('q') ?? ''), pub);
      if (segments.length === 3 && segments[0] === '_files')
        return serveFile(c, deps, site, segments[1]!, pub);
      const page = await site.page(segments);
      if (page) return answer(c, page, pub);
      return answer(
        c,
        site.message(
          404,
          'Not found',
          '<h1>Not found</h1><p>No published note has this address.</p>',
          rootOf(c),
        ),
        pub,
      );
    } catch (err) {
      if (!isDomainError(err)) throw err;
      const status = {
        INVALID_PATH: 400,
        URI_TOO_LONG: 414,
        NOT_READY: 503,
        NOTE_NOT_FOUND: 404,
        FILE_NOT_FOUND: 404,
      }[err.code as string];
      if (status === undefined) throw err;
      const extra: Record<string, string> = status === 503 ? { 'retry-after': '5' } : {};
      return answer(
        c,
        bareMessage(status, status === 503 ? 'Starting' : 'Not found', err.message),
        pub,
        extra,
      );
    }
  };

  /** The password form's post: a cookie for this publication's path, then back to its root. */
  const unlock = async (c: Context<AppEnv>, pub: Publication) => {
    if (!pub.password || relayed(c)) return c.redirect('./', 303);
    let password = '';
    try {
      const form = await c.req.parseBody();
      password = typeof form.password === 'string' ? form.password : '';
    } catch {
      // An unreadable body is a wrong password.
    }
    if (!(await attempt(c, () => pubs.checkPassword(pub, password)))) return lockPage(c, pub, true);
    const t = await pubs.unlockToken(pub);
    const secure = publicBase(c, deps).startsWith('https:') ? '; Secure' : '';
    c.header(
      'set-cookie',
      `${cookieName(pub.id)}=${t.value}; Path=/p/${pub.id}/; HttpOnly; SameSite=Lax; Max-Age=${t.maxAge}${secure}`,
    );
    c.header('cache-control', 'no-store');
    return c.redirect('./', 303);
  };

  app.all('/:id', handle);
  app.all('/:id/*', handle);
  return app;
}
