import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LinkFlowDeps,
  type LinkOutcome,
  runLinkFlow,
  runManualLink,
  STEPS,
} from '../../../client-link/src/flow/link-flow.ts';
import { profileStore } from '../../../client-link/src/flow/profiles.ts';
import { type LiveServer, liveServer } from '../../helpers/live-server.ts';
import { closedPortUrl } from '../../helpers/ports.ts';
import { memoryStorage } from '../storage.ts';

let relayed: LiveServer;
let direct: LiveServer;
const extraServers: Server[] = [];

/** A loopback HTTP server answering every request with `handler` (a relay or server gone wrong). */
async function oddServer(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  extraServers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  [relayed, direct] = await Promise.all([liveServer(), liveServer({ PAIRING_MODE: 'open-port' })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([relayed?.stop(), direct?.stop()]);
  for (const s of extraServers) s.closeAllConnections();
  await Promise.all(extraServers.map((s) => new Promise((r) => s.close(r))));
});

/** Runs the flow for `href` with real fetch, recording every event in order. */
function harness(href: string, opts: { failWrites?: boolean; timeoutMs?: number } = {}) {
  const events: string[] = [];
  const storage = memoryStorage({}, opts.failWrites);
  const deps: LinkFlowDeps = {
    href,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      events.push(`fetch ${init?.method ?? 'GET'} ${url.pathname}`);
      return fetch(input, init);
    },
    profiles: profileStore(storage),
    replaceUrl: (path) => events.push(`replace ${path}`),
    redirect: (path) => events.push(`redirect ${path}`),
    onStep: (step, state) => events.push(`${step} ${state}`),
    timeoutMs: opts.timeoutMs,
    now: () => new Date('2026-11-23T10:00:00.000Z'),
  };
  return { deps, events, storage, profiles: deps.profiles };
}

const failure = (out: LinkOutcome) => {
  if (out.ok) throw new Error('expected a failure');
  return out.failure;
};

describe('the link flow against a real server and relay', () => {
  it('completes a relay link from the setup payload (steps in order, address cleaned first, linked once); the spent code is refused after', async () => {
    const setup = await relayed.setup();
    const h = harness(setup.links.connect.hostedClient);
    const out = await runLinkFlow(h.deps);
    expect(out.ok).toBe(true);
    // The address bar is cleaned before the first network call.
    expect(h.events.indexOf('replace /link')).toBeLessThan(h.events.findIndex((e) => e.startsWith('fetch')));
    expect(
      h.events.filter((e) => e.endsWith(' done') || e.endsWith(' skipped')).map((e) => e.split(' ')[0]),
    ).toEqual(STEPS.map((s) => s.id));
    expect(h.events.filter((e) => e.startsWith('fetch'))).toEqual([
      'fetch POST /api/v1/pair/exchange',
      `fetch POST /r/${setup.serverId}/api/v1/auth/verify`,
      `fetch POST /r/${setup.serverId}/api/v1/auth/link`,
    ]);
    expect(h.events.at(-2)).toBe('redirect /workspace');
    const profile = h.profiles.active()!;
    expect(profile).toMatchObject({
      serverId: setup.serverId,
      serverUrl: `${relayed.relayUrl}/r/${setup.serverId}`,
      mode: 'relay',
      relayUrl: relayed.relayUrl,
    });
    expect(profile.apiKey).toMatch(/^quire_sk_/);
    expect((await relayed.setup()).setupComplete).toBe(true);

    // The same link again: the code is spent.
    const code = new URL(setup.links.connect.hostedClient).searchParams.get('relayCode')!;
    const again = harness(setup.links.connect.hostedClient);
    const f = failure(await runLinkFlow(again.deps));
    expect(f).toMatchObject({ step: 'exchange', code: 'CODE_REJECTED', prefill: { serverUrl: '' } });
    expect(f.message).toMatch(/expired or already used/);
    expect(f.message).not.toContain(code);
    expect(again.storage.data.size).toBe(0);
  });

  it('completes a direct link, then a second link skips auth/link', async () => {
    const setup = await direct.setup();
    const link = setup.links.connect.hostedClient as string;
    expect(link).toContain('apiKey=');
    const h = harness(link);
    const out = await runLinkFlow(h.deps);
    expect(out.ok).toBe(true);
    expect(h.events).toContain('exchange skipped');
    expect(h.events.filter((e) => e.startsWith('fetch'))).toEqual([
      'fetch POST /api/v1/auth/verify',
      'fetch POST /api/v1/auth/link',
    ]);
    expect(h.profiles.active()).toMatchObject({
      serverUrl: direct.url,
      mode: 'direct',
      apiKey: direct.firstKey,
    });
    expect((await direct.setup()).setupComplete).toBe(true);

    const again = harness(
      `http://client.test/link?serverUrl=${encodeURIComponent(direct.url)}&apiKey=${direct.firstKey}`,
    );
    expect((await runLinkFlow(again.deps)).ok).toBe(true);
    expect(again.events).toContain('link skipped');
    expect(again.events.filter((e) => e.startsWith('fetch'))).toEqual(['fetch POST /api/v1/auth/verify']);
  });

  it('refuses a wrong key at verify, prefilling only the address', async () => {
    const wrong = `quire_sk_${'x'.repeat(43)}`;
    const h = harness(
      `http://client.test/link?serverUrl=${encodeURIComponent(`${direct.url}/`)}&apiKey=${wrong}`,
    );
    const f = failure(await runLinkFlow(h.deps));
    expect(f).toMatchObject({ step: 'verify', code: 'KEY_REJECTED', prefill: { serverUrl: direct.url } });
    expect(JSON.stringify(f)).not.toContain(wrong);
    expect(h.storage.data.size).toBe(0);
  });

  it('reports an unreachable server and an unreachable relay', async () => {
    const gone = await closedPortUrl();
    const s = failure(
      await runLinkFlow(harness(`http://c.test/link?serverUrl=${gone}&apiKey=${direct.firstKey}`).deps),
    );
    expect(s).toMatchObject({ step: 'verify', code: 'SERVER_UNREACHABLE', prefill: { serverUrl: gone } });
    expect(s.message).toMatch(/Could not reach 127\.0\.0\.1/);
    const r = failure(
      await runLinkFlow(harness(`http://c.test/link?relayCode=7KQ2M-XW9PA&relayUrl=${gone}`).deps),
    );
    expect(r).toMatchObject({ step: 'exchange', code: 'RELAY_UNREACHABLE' });
  });

  it('bounds a server that never answers with a time-out', async () => {
    const silent = await oddServer(() => {});
    const h = harness(`http://c.test/link?serverUrl=${silent}&apiKey=${direct.firstKey}`, { timeoutMs: 300 });
    const f = failure(await runLinkFlow(h.deps));
    expect(f).toMatchObject({ step: 'verify', code: 'TIMEOUT' });
    expect(f.message).toMatch(/did not answer within/);
  });

  it('tells a server that is not Quire, a rate limit and an offline server apart', async () => {
    const html = await oddServer((_q, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hi</h1>'),
    );
    const f = failure(
      await runLinkFlow(harness(`http://c.test/link?serverUrl=${html}&apiKey=${direct.firstKey}`).deps),
    );
    expect(f).toMatchObject({ step: 'verify', code: 'NOT_QUIRE' });
    const envelope = (status: number, code: string) =>
      oddServer((_q, res) =>
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: false, error: { code, message: 'x' } })),
      );
    const limited = await envelope(429, 'RATE_LIMITED');
    expect(
      failure(await runLinkFlow(harness(`http://c.test/link?relayCode=7KQ2M-XW9PA&relayUrl=${limited}`).deps))
        .code,
    ).toBe('RATE_LIMITED');
    const offline = await envelope(503, 'SERVER_OFFLINE');
    expect(
      failure(await runLinkFlow(harness(`http://c.test/link?relayCode=7KQ2M-XW9PA&relayUrl=${offline}`).deps))
        .code,
    ).toBe('SERVER_OFFLINE');
  });

  it('stops malformed input before any network call', async () => {
    for (const [query, step, code] of [
      ['', 'parse', 'MISSING_PARAMS'],
      ['?relayCode=%3C%3E', 'parse', 'MALFORMED_PARAMS'],
      ['?relayCode=7KQ2M-XW9PA', 'exchange', 'MISSING_PARAMS'],
      ['?relayCode=7KQ2M-XW9PA&relayUrl=http%3A%2F%2Frelay.example.com', 'exchange', 'MALFORMED_PARAMS'],
      [`?serverUrl=https%3A%2F%2Fa.example&apiKey=quire_sk_short`, 'validate', 'MALFORMED_PARAMS'],
      [`?serverUrl=http%3A%2F%2Fnotes.example.com&apiKey=${direct.firstKey}`, 'normalize', 'BAD_URL'],
      [`?serverUrl=ftp%3A%2F%2Fa&apiKey=${direct.firstKey}`, 'normalize', 'BAD_URL'],
    ] as const) {
      const h = harness(`http://c.test/link${query}`);
      const f = failure(await runLinkFlow(h.deps));
      expect([f.step, f.code], query).toEqual([step, code]);
      expect(
        h.events.some((e) => e.startsWith('fetch')),
        query,
      ).toBe(false);
      expect(h.events[1], query).toBe('replace /link');
      expect(JSON.stringify(f)).not.toContain(direct.firstKey);
    }
  });

  it('uses the default relay when a relay link names none', async () => {
    const gone = await closedPortUrl();
    const h = harness('http://c.test/link?relayCode=7KQ2M-XW9PA');
    h.deps.defaultRelayUrl = gone;
    expect(failure(await runLinkFlow(h.deps)).code).toBe('RELAY_UNREACHABLE');
    expect(h.events).toContain('fetch POST /api/v1/pair/exchange');
  });

  it('reports a browser that refuses to store the profile', async () => {
    const h = harness(`http://c.test/link?serverUrl=${direct.url}&apiKey=${direct.firstKey}`, {
      failWrites: true,
    });
    expect(failure(await runLinkFlow(h.deps))).toMatchObject({ step: 'persist', code: 'STORAGE_FAILED' });
    expect(h.events).not.toContain('redirect /workspace');
  });

  it('links by manual entry (steps 3 to 8), relay addresses included', async () => {
    const h = harness('http://c.test/link');
    const out = await runManualLink(h.deps, {
      serverUrl: ` ${direct.url}/ `,
      apiKey: ` ${direct.firstKey} `,
    });
    expect(out.ok).toBe(true);
    expect(h.events[0]).toBe('validate running');
    expect(h.events).toContain('redirect /workspace');

    const setup = await relayed.setup();
    const viaRelay = `${relayed.relayUrl}/r/${setup.serverId}`;
    const minted = await fetch(`${relayed.url}/api/v1/auth/keys`, {
      method: 'POST',
      headers: { 'x-service-key': relayed.firstKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'manual' }),
    });
    // After link the first key's plain text is gone, but it still works as a key.
    const key = ((await minted.json()) as any).data.apiKey as string;
    const m = await runManualLink(h.deps, { serverUrl: viaRelay, apiKey: key });
    expect(m.ok && m.profile).toMatchObject({ mode: 'relay', serverUrl: viaRelay });
    expect(h.profiles.list()).toHaveLength(2);
  });
});
