/**
 * Which IP addresses the server may call on a user's configuration: public unicast only. Every
 * spelling is first brought to its canonical form by the WHATWG URL parser (decimal, octal, hex
 * and short IPv4 forms; bracketed and compressed IPv6), so a check never depends on how a user
 * wrote the address.
 */

const V4_BLOCKED: [number, number][] = [
  [0x00000000, 8], // "this" network, 0.0.0.0
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

/** The canonical host of `host` as a URL would connect to it (IPv4 forms normalized), or null. */
export function canonicalHost(host: string): string | null {
  const h = host.trim();
  if (h === '') return null;
  const bracketed = h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
  try {
    return new URL(`http://${bracketed}/`).hostname;
  } catch {
    return null;
  }
}

/** A dotted-decimal IPv4 address as a 32-bit number, or null. */
export function parseV4(ip: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

function v4Blocked(n: number): boolean {
  return V4_BLOCKED.some(([base, bits]) => n >>> (32 - bits) === base >>> (32 - bits));
}

/** The 8 groups of an IPv6 address (embedded IPv4 and a zone accepted), or null. */
export function parseV6(ip: string): number[] | null {
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

function v6Blocked(g: number[]): boolean {
  const embedded = (hi: number, lo: number) => v4Blocked(((hi << 16) | lo) >>> 0);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::, ::1 and every IPv4-compatible address (::a.b.c.d, deprecated): the first 96 bits are zero.
  if (zeros(0, 6)) return true;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d): never a user's API.
  if (zeros(0, 5) && g[5] === 0xffff) return true;
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return true;
  // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embedded(g[6]!, g[7]!);
  const first = g[0]!;
  if (first === 0x2002) return embedded(g[1]!, g[2]!); // 6to4 carries an IPv4 address
  if (first === 0x2001 && g[1] === 0) return true; // Teredo
  if (first === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (first === 0x0100 && zeros(1, 4)) return true; // discard-only
  if ((first & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return true; // link-local
  if ((first & 0xffc0) === 0xfec0) return true; // site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/**
 * True when `ip` is not a public unicast address: loopback, private, link-local, unique-local,
 * unspecified, IPv4-mapped or -compatible IPv6, multicast, documentation ranges; true for
 * anything that is not an IP address at all. Any spelling the URL parser accepts is understood.
 */
export function isPrivateAddress(ip: string): boolean {
  const host = canonicalHost(ip.replace(/%.*$/, ''));
  if (host === null) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  const n4 = parseV4(bare);
  if (n4 !== null) return v4Blocked(n4);
  const g = parseV6(bare);
  return g ? v6Blocked(g) : true;
}

/** True when `host` (any spelling) is an IP address rather than a name. */
export function isIpLiteral(host: string): boolean {
  const c = canonicalHost(host);
  if (c === null) return false;
  const bare = c.replace(/^\[|\]$/g, '');
  return parseV4(bare) !== null || parseV6(bare) !== null;
}

/** True for names that always mean this machine or an internal network, whatever DNS says. */
export function isInternalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.internal') || h.endsWith('.local');
}
