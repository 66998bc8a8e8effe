/**
 * Egress guard for plugins that call out: refuses loopback, private, link-local and other
 * non-public addresses unless the plugin's config allows them. IP literals are checked as they
 * are; host names through the injected resolver (every address must be public).
 */
import { DomainError } from '../errors.ts';
import type { ResolveHost } from './types.ts';

const V4_BLOCKED: [number, number][] = [
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // private
  [0x64400000, 10], // carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local (cloud metadata)
  [0xac100000, 12], // private
  [0xc0000000, 24], // IETF protocol assignments
  [0xc0000200, 24], // TEST-NET-1
  [0xc0a80000, 16], // private
  [0xc6120000, 15], // benchmarking
  [0xc6336400, 24], // TEST-NET-2
  [0xcb007100, 24], // TEST-NET-3
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, broadcast
];

function parseV4(ip: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

function v4Blocked(n: number): boolean {
  return V4_BLOCKED.some(([base, bits]) => n >>> (32 - bits) === base >>> (32 - bits));
}

/** The 8 groups of an IPv6 address (embedded IPv4 accepted), or null. */
function parseV6(ip: string): number[] | null {
  let s = ip.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (v4) {
    const n = parseV4(v4[1]!);
    if (n === null) return null;
    s = `${s.slice(0, -v4[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0 || (halves.length === 1 && head.length !== 8)) return null;
  const all = [...head, ...Array<string>(fill).fill('0'), ...tail];
  if (all.length !== 8 || all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => Number.parseInt(g, 16));
}

/** True when `ip` (v4 or v6) is not a public unicast address; true for anything unparseable. */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '');
  const n4 = parseV4(bare);
  if (n4 !== null) return v4Blocked(n4);
  const g = parseV6(bare);
  if (!g) return true;
  const embedded = (hi: number, lo: number) => v4Blocked(((hi << 16) | lo) >>> 0);
  if (g.every((x, i) => (i < 7 ? x === 0 : x <= 1))) return true; // :: and ::1
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return embedded(g[6]!, g[7]!); // v4-mapped
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embedded(g[6]!, g[7]!);
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return true; // unique local
  if ((first & 0xffc0) === 0xfe80) return true; // link-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  if (first === 0x2001 && g[1] === 0x0db8) return true; // documentation
  return false;
}

/** True when `host` is an IP literal (URL hostname form, IPv6 in brackets). */
export function isIpLiteral(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return parseV4(bare) !== null || parseV6(bare) !== null;
}

/** Why `url` may not be called, or null. Only http and https are ever allowed. */
export async function egressProblem(
  url: string,
  opts: { allowPrivate: boolean; resolveHost?: ResolveHost },
): Promise<string | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'it is not a valid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'only http and https URLs are allowed';
  if (opts.allowPrivate) return null;
  const host = u.hostname;
  const hint = 'set allowPrivateNetwork to true to allow it';
  if (isIpLiteral(host))
    return isPrivateAddress(host) ? `${host} is a private or loopback address; ${hint}` : null;
  if (opts.resolveHost) {
    let addrs: string[];
    try {
      addrs = await opts.resolveHost(host);
    } catch {
      return `${host} could not be resolved`;
    }
    if (addrs.length === 0) return `${host} could not be resolved`;
    const bad = addrs.find(isPrivateAddress);
    return bad ? `${host} resolves to ${bad}, a private or loopback address; ${hint}` : null;
  }
  const lower = host.toLowerCase().replace(/\.$/, '');
  if (lower === 'localhost' || lower.endsWith('.localhost') || lower.endsWith('.internal')) {
    return `${host} is a loopback or internal name; ${hint}`;
  }
  return null;
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
