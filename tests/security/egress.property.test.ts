/**
 * Finding 5 and the one egress policy (core/net/egress.ts): property tests over the spellings of
 * refused addresses, the single DNS lookup with the connection pinned to the checked address,
 * no redirects, and the Node adapter's pinned fetch over a real loopback socket.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodePinnedFetch } from '../../adapters/node/pinned-fetch.ts';
import { createEgress, isPrivateAddress } from '../../core/net/egress.ts';
import { SEED } from './arbitraries.ts';

/** [base, prefix bits] of the IPv4 ranges that must be refused. */
const BLOCKED_V4: [number, number][] = [
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0a80000, 16],
];
const inRange = (n: number, [base, bits]: [number, number]) => n >>> (32 - bits) === base >>> (32 - bits);
const blockedV4 = fc
  .tuple(fc.constantFrom(...BLOCKED_V4), fc.integer({ min: 0, max: 0xffffffff }))
  .map(([[base, bits], r]) => ((base & (~0 << (32 - bits))) | (r & (0xffffffff >>> bits))) >>> 0);
const ALL_BLOCKED = [...BLOCKED_V4, [0xc0000000, 24], [0xc6120000, 15], [0xe0000000, 3]] as [
  number,
  number,
][];
const publicV4 = fc
  .integer({ min: 0x01000000, max: 0xdfffffff })
  .filter(
    (n) =>
      !ALL_BLOCKED.some((r) => inRange(n, r)) &&
      !inRange(n, [0xc0000200, 24]) &&
      !inRange(n, [0xc6336400, 24]) &&
      !inRange(n, [0xcb007100, 24]),
  );

const octets = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const hex = (x: number) => x.toString(16);
const hex4 = (n: number) => `${hex(n >>> 16)}:${hex(n & 0xffff)}`;

/** Every way a URL can spell IPv4 address `n`. */
function v4Spellings(n: number): string[] {
  const [a, b, c, d] = octets(n) as [number, number, number, number];
  return [
    `${a}.${b}.${c}.${d}`,
    String(n),
    `0x${hex(n)}`,
    `0${n.toString(8)}`,
    `0${a.toString(8)}.0${b.toString(8)}.0${c.toString(8)}.0${d.toString(8)}`,
    `0x${hex(a)}.0x${hex(b)}.0x${hex(c)}.0x${hex(d)}`,
    `${a}.${b}.${(c << 8) | d}`,
    `${a}.${(b << 16) | (c << 8) | d}`,
  ];
}
/** The IPv6 forms that embed IPv4 address `n` (all refused whatever they embed). */
function v6Embeddings(n: number): string[] {
  const dotted = octets(n).join('.');
  return [
    `[::ffff:${dotted}]`,
    `[::ffff:${hex4(n)}]`,
    `[::${dotted}]`,
    `[::${hex4(n)}]`,
    `[0:0:0:0:0:ffff:${dotted}]`,
  ];
}

const refusedByCheck = async (egress: ReturnType<typeof createEgress>, host: string) =>
  egress.check(`http://${host}:8080/x`).then(
    () => false,
    (e: { code?: string }) => e.code === 'FORBIDDEN',
  );
const noDns = createEgress({
  fetch: globalThis.fetch,
  resolveHost: async () => {
    throw new Error('an IP literal must never be looked up');
  },
});

describe('the egress policy over address spellings (property)', () => {
  it('refuses every spelling of loopback, private, link-local, CGNAT and "this network" IPv4', async () => {
    await fc.assert(
      fc.asyncProperty(blockedV4, async (n) => {
        for (const s of [...v4Spellings(n), ...v6Embeddings(n)]) {
          expect([s, isPrivateAddress(s)]).toEqual([s, true]);
          expect([s, await refusedByCheck(noDns, s)]).toEqual([s, true]);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('lets public IPv4 through in every IPv4 spelling, never in an IPv4-mapped or -compatible IPv6 form', async () => {
    await fc.assert(
      fc.asyncProperty(publicV4, async (n) => {
        for (const s of v4Spellings(n)) {
          expect([s, isPrivateAddress(s)]).toEqual([s, false]);
          expect([s, await refusedByCheck(noDns, s)]).toEqual([s, false]);
        }
        for (const s of v6Embeddings(n)) expect([s, isPrivateAddress(s)]).toEqual([s, true]);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('refuses unique-local fc00::/7, link-local fe80::/10, multicast and the unspecified addresses', async () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    const v6 = fc
      .tuple(
        fc.constantFrom(0xfc00, 0xfd00, 0xfe80, 0xfebf, 0xff00, 0xff02),
        fc.integer({ min: 0, max: 0xff }),
        fc.array(group, { minLength: 7, maxLength: 7 }),
      )
      .map(([top, low, rest]) =>
        [top | (top === 0xfe80 || top === 0xfebf ? low & 0x3f : low), ...rest].map(hex).join(':'),
      );
    await fc.assert(
      fc.asyncProperty(v6, async (ip) => {
        expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
        expect([ip, await refusedByCheck(noDns, `[${ip}]`)]).toEqual([ip, true]);
      }),
      { seed: SEED, numRuns: 300 },
    );
    for (const s of ['0.0.0.0', '0', '[::]', '[::1]', '[0:0:0:0:0:0:0:1]', '[::0.0.0.0]', '[fe80::1%25eth0]'])
      expect([s, await refusedByCheck(noDns, s)]).toEqual([s, true]);
    expect(isPrivateAddress('2606:4700:4700::1111')).toBe(false);
  });

  it('refuses names that resolve to any refused address, and internal names without asking DNS', async () => {
    await fc.assert(
      fc.asyncProperty(blockedV4, publicV4, async (bad, good) => {
        const egress = createEgress({
          fetch: globalThis.fetch,
          resolveHost: async () => [octets(good).join('.'), octets(bad).join('.')],
        });
        expect(await refusedByCheck(egress, 'api.example.com')).toBe(true);
      }),
      { seed: SEED, numRuns: 100 },
    );
    for (const name of ['localhost', 'LOCALHOST.', 'db.localhost', 'metadata.google.internal'])
      expect([name, await refusedByCheck(noDns, name)]).toEqual([name, true]);
  });

  it('lets the operator allow a named destination (host, or host and port)', async () => {
    const egress = createEgress({
      fetch: globalThis.fetch,
      allowHosts: ['127.0.0.1:9000', 'ollama.internal'],
    });
    await expect(egress.check('http://127.0.0.1:9000/v1')).resolves.toBeTruthy();
    expect(await refusedByCheck(egress, '127.0.0.1')).toBe(true);
    await expect(egress.check('http://ollama.internal:11434/')).resolves.toBeTruthy();
  });
});

describe('resolve once, connect to the checked address', () => {
  it('looks a name up once and connects to exactly the address it checked (no rebinding window)', async () => {
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    let lookups = 0;
    const pinned: string[] = [];
    const egress = createEgress({
      fetch: async () => {
        throw new Error('an unpinned fetch must not be used when a pinned one exists');
      },
      resolveHost: async () => answers[lookups++]!,
      pinnedFetch: async (url, init, address) => {
        pinned.push(`${address} ${new URL(url).host} ${init.redirect}`);
        return new Response('ok');
      },
    });
    const res = await egress.fetch('https://api.example.com/bot/send', { method: 'POST', body: 'x' });
    expect(await res.text()).toBe('ok');
    expect(lookups).toBe(1);
    expect(pinned).toEqual(['93.184.216.34 api.example.com manual']);
    // The next call looks up again and now sees the rebound address: refused before connecting.
    await expect(egress.fetch('https://api.example.com/bot/send')).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(pinned).toHaveLength(1);
  });

  it('never follows a redirect: a 3xx towards loopback comes back as it is', async () => {
    const calls: string[] = [];
    const egress = createEgress({
      fetch: async (url) => {
        calls.push(String(url));
        return new Response(null, { status: 302, headers: { location: 'http://127.0.0.1:6379/' } });
      },
    });
    const res = await egress.fetch('http://93.184.216.34/');
    expect(res.status).toBe(302);
    expect(calls).toEqual(['http://93.184.216.34/']);
  });

  it('the Node pinned fetch connects to the given address and keeps the URL host as Host', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.headers.host} ${req.url}`);
      res.writeHead(302, { location: 'http://127.0.0.1:1/', 'set-cookie': ['a=1', 'b=2'] });
      res.end('moved');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await nodePinnedFetch(
        `http://pinned.example:${port}/path?q=1`,
        { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } },
        '127.0.0.1',
      );
      expect(res.status).toBe(302);
      expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(await res.text()).toBe('moved');
      expect(seen).toEqual([`POST pinned.example:${port} /path?q=1`]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
