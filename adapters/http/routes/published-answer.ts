/**
 * The answers of published pages (routes/published.ts): the headers a static site sends
 * (validators with 304, caching revalidated on every use, robots, a strict CSP) and embedded
 * attachments; the request's cookie and HTTP Basic password.
 */
import type { Context } from 'hono';
import { fromBase64, sha256Hex } from '../../../core/crypto.ts';
import { etagMatches } from '../../../core/files/service.ts';
import { pageCsp } from '../../../core/publish/layout.ts';
import { bareMessage, type Page, type publishedSite } from '../../../core/publish/pages.ts';
import type { PublicationService } from '../../../core/publish/service.ts';
import type { Publication } from '../../../core/publish/types.ts';
import { clientAddress } from '../client.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { AppDeps, AppEnv } from '../types.ts';
import { fileHeaders } from './files.ts';

export const relayed = (c: Context) => (c.env as { relayed?: boolean } | undefined)?.relayed === true;
export const cookieName = (id: string) => `quire_pub_${id.replace(/[^A-Za-z0-9_-]/g, '')}`;

/** The value of cookie `name` in the request, if any. */
export function cookieOf(c: Context, name: string): string | undefined {
  for (const part of (c.req.header('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** The password of an `Authorization: Basic` header (any user name), if any. */
export function basicPassword(c: Context): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]{1,1400})$/i.exec(c.req.header('authorization') ?? '');
  if (!m) return undefined;
  try {
    const text = new TextDecoder().decode(fromBase64(m[1]!));
    const i = text.indexOf(':');
    return i < 0 ? undefined : text.slice(i + 1);
  } catch {
    return undefined;
  }
}

/** An HTML answer with the headers of a static site; 304 when the reader's copy is current. */
export async function answer(
  c: Context<AppEnv>,
  page: Page,
  pub: Publication | null,
  extra: Record<string, string> = {},
): Promise<Response> {
  const etag = `"${(await sha256Hex(page.html)).slice(0, 32)}"`;
  const headers: Record<string, string> = {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': await pageCsp(),
    // Revalidated on every use: a revocation is the next request, even through a shared cache.
    'cache-control': pub && !pub.password && page.status === 200 ? 'public, no-cache' : 'private, no-cache',
    etag,
    ...extra,
  };
  if (!pub || pub.noindex) headers['x-robots-tag'] = 'noindex, nofollow';
  if (page.updatedAt) headers['last-modified'] = new Date(page.updatedAt).toUTCString();
  if (page.status === 200) {
    const inm = c.req.header('if-none-match');
    const ims = c.req.header('if-modified-since');
    const fresh = inm
      ? etagMatches(inm, etag)
      : ims !== undefined &&
        page.updatedAt !== undefined &&
        Math.floor(Date.parse(page.updatedAt) / 1000) <= Math.floor(Date.parse(ims) / 1000);
    if (fresh) return c.body(null, 304, headers);
  }
  if (c.req.method === 'HEAD') return c.body(null, page.status as 200, headers);
  return c.body(page.html, page.status as 200, headers);
}

/** An attachment a published note embeds (by its token), with the publication's caching. */
export async function serveFile(
  c: Context<AppEnv>,
  deps: AppDeps,
  site: ReturnType<typeof publishedSite>,
  token: string,
  pub: Publication,
): Promise<Response> {
  const path = deps.files ? await site.file(token) : null;
  if (!path || !deps.files)
    return answer(c, bareMessage(404, 'Not found', 'No published note embeds this file.'), pub);
  const read = await deps.files.read(path);
  const headers = fileHeaders(read.meta);
  headers['cache-control'] = pub.password ? 'private, no-cache' : 'public, no-cache';
  delete headers['accept-ranges'];
  if (pub.noindex) headers['x-robots-tag'] = 'noindex, nofollow';
  const inm = c.req.header('if-none-match');
  if (inm && etagMatches(inm, read.meta.etag)) {
    if (read.kind !== 'unsatisfiable') await read.body.cancel();
    return c.body(null, 304, headers);
  }
  if (read.kind === 'unsatisfiable') return c.body(null, 416, headers);
  headers['content-length'] = String(read.meta.size);
  if (c.req.method === 'HEAD') {
    await read.body.cancel();
    return c.body(null, 200, headers);
  }
  return c.body(read.body, 200, headers);
}

/** How long a Basic password that opened a publication is taken without scrypt again. */
const BASIC_MEMO_MS = 10 * 60_000;

/**
 * The HTTP Basic gate of a publication behind a password (through the relay, which passes no
 * cookie). A browser sends Basic with every page: a password that opened this publication lately
 * is not hashed with scrypt again, nor counted as a sign-in (relayed readers share one address);
 * wrong ones count against the failure limit per address.
 */
export function basicGate(deps: AppDeps, pubs: PublicationService, limiter: RateLimiter) {
  /** SHA-256 of (publication, its hash, a password that opened it) -> until when; memory only. */
  const seen = new Map<string, number>();
  return async (c: Context<AppEnv>, pub: Publication): Promise<boolean> => {
    const pw = basicPassword(c);
    if (pw === undefined) return false;
    const memo = await sha256Hex(`${pub.id}\n${pub.password}\n${pw}`);
    if ((seen.get(memo) ?? 0) > deps.clock.now()) return true;
    const client = clientAddress(c, deps);
    await limiter.beforeAuth(client);
    if (!(await pubs.checkPassword(pub, pw))) {
      await limiter.failed(client);
      return false;
    }
    if (seen.size >= 1024) seen.clear();
    seen.set(memo, deps.clock.now() + BASIC_MEMO_MS);
    return true;
  };
}
