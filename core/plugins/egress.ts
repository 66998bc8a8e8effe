/**
 * Egress guard for plugins that call out: the one policy of core/net/egress.ts, with the plugin's
 * own `allowPrivateNetwork` switch. The host's fetch (the plugin context's) connects to the
 * checked address, so this early check is for a clear message, not the only guard.
 */
import { DomainError } from '../errors.ts';
import { createEgress, isIpLiteral, isPrivateAddress } from '../net/egress.ts';
import type { ResolveHost } from './types.ts';

export { isIpLiteral, isPrivateAddress };

/** Why `url` may not be called, or null (the one policy of core/net/egress.ts). */
export async function egressProblem(
  url: string,
  opts: { allowPrivate: boolean; resolveHost?: ResolveHost },
): Promise<string | null> {
  const egress = createEgress({ fetch: globalThis.fetch, resolveHost: opts.resolveHost });
  try {
    await egress.check(url, { allowPrivate: opts.allowPrivate });
    return null;
  } catch (err) {
    const msg = err instanceof DomainError ? err.message : String(err);
    const why = /: (.*?)\. An operator/.exec(msg)?.[1] ?? 'it is refused';
    return `${why}; set allowPrivateNetwork to true to allow it`;
  }
}

/**
 * A fetch that checks every destination first and never follows redirects (a redirect could
 * point anywhere): a 3xx comes back as it is.
 */
export function guardedFetch(
  fetchImpl: typeof globalThis.fetch,
  opts: { allowPrivate: boolean; resolveHost?: ResolveHost },
) {
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    const problem = await egressProblem(url, opts);
    if (problem) {
      const where = URL.canParse(url) ? new URL(url).origin : 'that URL';
      throw new DomainError('FORBIDDEN', `Refused to call ${where}: ${problem}.`);
    }
    return fetchImpl(url, { ...init, redirect: 'manual' });
  };
}

/** True for an absolute http or https URL. */
export function isHttpUrl(url: string): boolean {
  return URL.canParse(url) && /^https?:$/.test(new URL(url).protocol);
}

/** True when `url` names a private or loopback IP literal (checked at config time; names at call time). */
export function isPrivateLiteralUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return isIpLiteral(host) && isPrivateAddress(host);
}
