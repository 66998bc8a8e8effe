/** Step 4 of the link flow: a server address a person or a link gave, made canonical. */

export class UrlProblem extends Error {
  override name = 'UrlProblem';
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** True for loopback, private-network (RFC 1918, link-local, unique-local) and `.local` hosts. */
export function isLocalHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local')) return true;
  const v4 = h.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 127 ||
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254)
    );
  }
  if (h.includes(':')) {
    return h === '::1' || /^f[cd][0-9a-f]{2}:/.test(h) || /^fe[89ab][0-9a-f]:/.test(h);
  }
  return false;
}

/**
 * The canonical form of a server address: `https://` added when no scheme is given; `http:`
 * only for loopback, private-network and `.local` hosts; no credentials, query or fragment; no
 * trailing slash; a path such as `/r/<serverId>` kept, a trailing `/api/v1` dropped.
 * Throws UrlProblem with a sentence a person can act on.
 */
export function normalizeServerUrl(raw: string): string {
  const text = raw.trim();
  if (!text) throw new UrlProblem('The server address is empty.');
  if (/\s/.test(text)) throw new UrlProblem('The server address must not contain spaces.');
  let url: URL;
  try {
    url = new URL(SCHEME.test(text) ? text : `https://${text}`);
  } catch {
    throw new UrlProblem('The server address is not a valid URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UrlProblem(`The server address must start with https:// (not ${url.protocol}//).`);
  if (!url.hostname) throw new UrlProblem('The server address has no host name.');
  if (url.username || url.password)
    throw new UrlProblem('The server address must not contain a user name or password.');
  if (url.protocol === 'http:' && !isLocalHost(url.hostname))
    throw new UrlProblem(
      `Plain http:// is only allowed for this machine or your local network; use https://${url.host}.`,
    );
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.protocol}//${url.host}${path}`;
}
