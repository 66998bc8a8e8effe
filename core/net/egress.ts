/**
 * The one egress policy for every outbound request the server makes on a user's configuration
 * (plugins, channels, the agent's provider, web search): http(s) only; loopback, private,
 * link-local, unique-local, IPv4-mapped/-compatible IPv6 and unspecified addresses refused unless
 * the operator named the destination (EGRESS_ALLOW, or the base URLs the operator configured);
 * a host name is resolved once, every address checked, and the connection made to the checked
 * address (no second lookup, so no DNS-rebinding window); redirects are never followed.
 */
import { DomainError } from '../errors.ts';
import { canonicalHost, isInternalName, isIpLiteral, isPrivateAddress } from './address.ts';

export { canonicalHost, isIpLiteral, isPrivateAddress } from './address.ts';

/** Every address `hostname` resolves to (A and AAAA). Provided by the runtime (Node: node:dns). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/**
 * A fetch that connects to exactly `address` (an IP) while the URL's host stays the Host header
 * and the TLS server name. Provided by the runtime (Node: http/https with a fixed `lookup`);
 * never follows redirects.
 */
export type PinnedFetch = (url: string, init: RequestInit, address: string) => Promise<Response>;

/** What the operator allows and how the runtime connects. */
export interface EgressOptions {
  fetch: typeof globalThis.fetch;
  /** Absent (e.g. on workerd): names are checked against literals and internal suffixes only. */
  resolveHost?: ResolveHost;
  /** Absent: the runtime's fetch connects by name (its own lookup); documented as weaker. */
  pinnedFetch?: PinnedFetch;
  /** Destinations the operator allows even on private addresses: `host` or `host:port`. */
  allowHosts?: readonly string[];
}

/** A destination that passed: where to connect (null: by name, no resolver). */
export interface CheckedDestination {
  url: URL;
  address: string | null;
}

/** Options of one call: `allowPrivate` is a plugin's own `allowPrivateNetwork` switch. */
export interface EgressCallOptions {
  allowPrivate?: boolean;
}

/** `host` or `host:port` entries, canonical and lower case. */
function normalizeAllow(entries: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const e of entries) {
    const t = e.trim().toLowerCase();
    if (!t) continue;
    const u = URL.canParse(`http://${t}/`) ? new URL(`http://${t}/`) : null;
    if (!u) continue;
    out.add(u.port ? `${u.hostname}:${u.port}` : u.hostname);
  }
  return out;
}

/** The egress policy; `check` only decides, `fetch` decides and connects to the checked address. */
export function createEgress(opts: EgressOptions) {
  const allow = normalizeAllow(opts.allowHosts ?? []);
  const allowed = (u: URL) => allow.has(u.hostname) || allow.has(`${u.hostname}:${u.port || defaultPort(u)}`);

  /** Where `url` may be reached, or a DomainError FORBIDDEN naming why not. */
  async function check(url: string, call: EgressCallOptions = {}): Promise<CheckedDestination> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw refuse('that URL', 'it is not a valid URL');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw refuse(u.origin, 'only http and https are allowed');
    const open = call.allowPrivate === true || allowed(u);
    const host = u.hostname;
    if (isIpLiteral(host)) {
      if (!open && isPrivateAddress(host)) throw refuse(u.origin, `${host} is a private or loopback address`);
      return { url: u, address: canonicalHost(host)!.replace(/^\[|\]$/g, '') };
    }
    if (!open && isInternalName(host)) throw refuse(u.origin, `${host} is a loopback or internal name`);
    if (!opts.resolveHost) return { url: u, address: null };
    let addrs: string[];
    try {
      addrs = await opts.resolveHost(host);
    } catch {
      throw refuse(u.origin, `${host} could not be resolved`);
    }
    if (addrs.length === 0) throw refuse(u.origin, `${host} could not be resolved`);
    const bad = open ? undefined : addrs.find(isPrivateAddress);
    if (bad) throw refuse(u.origin, `${host} resolves to ${bad}, a private or loopback address`);
    return { url: u, address: addrs[0]! };
  }

  /** A fetch under the policy: checks, then connects to the checked address; 3xx come back as they are. */
  async function egressFetch(
    input: string | URL | Request,
    init: RequestInit = {},
    call: EgressCallOptions = {},
  ): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (typeof input === 'object' && !(input instanceof URL)) {
      init = {
        method: input.method,
        headers: input.headers,
        body: input.body === null ? undefined : await input.arrayBuffer(),
        signal: input.signal,
        ...init,
      };
    }
    const dest = await check(url, call);
    const req: RequestInit = { ...init, redirect: 'manual' };
    if (dest.address !== null && opts.pinnedFetch && !isIpLiteral(dest.url.hostname))
      return opts.pinnedFetch(dest.url.href, req, dest.address);
    return opts.fetch(dest.url.href, req);
  }

  return {
    check,
    fetch: egressFetch,
    /** A plain fetch function under the policy (for clients that take a fetch). */
    fetchFn(call: EgressCallOptions = {}): typeof globalThis.fetch {
      return ((input: string | URL | Request, init?: RequestInit) =>
        egressFetch(input, init, call)) as typeof fetch;
    },
    /** True when the operator named this URL's destination. */
    isAllowed: (url: string) => URL.canParse(url) && allowed(new URL(url)),
  };
}

export type Egress = ReturnType<typeof createEgress>;

const defaultPort = (u: URL) => (u.protocol === 'https:' ? '443' : '80');

function refuse(where: string, why: string): DomainError {
  return new DomainError(
    'FORBIDDEN',
    `Refused to call ${where}: ${why}. An operator can allow a named destination with EGRESS_ALLOW.`,
  );
}
