import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeResolveHost } from '../../../adapters/node/resolve-host.ts';
import { createDeliveryQueue, type DeliveryJob } from '../../../core/plugins/builtins/delivery-queue.ts';
import { isWebhookSecret, signWebhook } from '../../../core/plugins/builtins/webhook-sign.ts';
import { egressProblem, isPrivateAddress } from '../../../core/plugins/egress.ts';
import { tempDir } from '../../helpers/app.ts';
import { pluginApp, SECRET, startSearx, startServer, verifySignature } from '../../helpers/plugins.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: Parameters<typeof pluginApp>[1] = {}) {
  const tmp = await tempDir();
  cleanups.push(tmp.cleanup);
  const made = await pluginApp(tmp.dir, opts);
  cleanups.push(() => made.plugins.stop());
  return made;
}

describe('daily-notes', () => {
  const NOW = Date.UTC(2026, 11, 31, 23, 15); // New Year's Eve in UTC, New Year's Day in Tokyo
  it("answers and creates today's note through its routes, in the configured zone", async () => {
    const t = await setup({ clock: { now: () => NOW }, files: { 'other.md': '# Other\n' } });
    await t.call('POST', '/install', {
      id: 'daily-notes',
      config: {
        pathPattern: 'journal/{{YYYY-MM}}/{{DD}} {{weekday}}.md',
        timeZone: 'Asia/Tokyo',
        template: 'Day {{date}}\n',
      },
      enabled: true,
    });
    const path = 'journal/2027-01/01 Friday.md';
    expect((await t.call('GET', '/daily-notes/today')).json.data).toEqual({
      date: '2027-01-01',
      path,
      exists: false,
    });
    const made = await t.call('POST', '/daily-notes/today');
    expect(made.json.data).toMatchObject({ path, created: true, note: { content: 'Day 2027-01-01\n' } });
    expect((await t.call('POST', '/daily-notes/today', {})).json.data.created).toBe(false);
    expect((await t.call('GET', '/daily-notes/today')).json.data.exists).toBe(true);
    await t.call('PUT', '/daily-notes/config', { timeZone: 'UTC' });
    expect((await t.call('GET', '/daily-notes/today')).json.data).toEqual({
      date: '2026-12-31',
      path: 'daily/2026/2026-12-31.md',
      exists: false,
    });
    expect((await t.call('GET', '/daily-notes/yesterday')).json.error.code).toBe('NOT_FOUND');
    expect((await t.call('DELETE', '/daily-notes/today')).status).toBe(404);
    await t.call('POST', '/daily-notes/toggle', { enabled: false });
    const off = await t.call('GET', '/daily-notes/today');
    expect(off.status).toBe(409);
    expect(off.json.error.message).toContain('toggle');
  });

  it('refuses patterns that do not make a safe note path', async () => {
    const t = await setup();
    await t.call('POST', '/install', { id: 'daily-notes' });
    for (const pathPattern of [
      '../{{YYYY}}.md',
      '/abs/{{date}}.md',
      'daily/{{HH}}.md',
      'daily/{{date}}.txt',
      '.hidden/{{date}}.md',
    ]) {
      const r = await t.call('PUT', '/daily-notes/config', { pathPattern });
      expect(r.status, pathPattern).toBe(400);
      expect(r.json.error.details.issues[0].field).toBe('pathPattern');
    }
  });
});

describe('unlinked-mentions', () => {
  it('answers both directions on its route, from the link graph', async () => {
    const t = await setup({
      files: {
        'Compost.md': '# Compost\n\nTurn it.\n',
        'garden plan.md': 'Plan with [compost](Compost.md) and `Tomatoes`.\n',
        'Tomatoes.md':
          '# Tomatoes\n\nThey like Compost, compost, and the Garden   plan.\n\n```\nGarden plan\n```\nSee https://x.org/compost.\n',
        'Tom.md': '# Tom\n',
      },
    });
    await t.call('POST', '/install', { id: 'unlinked-mentions', enabled: true });
    const r = await t.call('GET', `/unlinked-mentions/mentions?path=${encodeURIComponent('Tomatoes.md')}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toMatchObject({ path: 'Tomatoes.md', title: 'Tomatoes', incoming: [] });
    expect(r.json.data.outgoing).toEqual([
      {
        path: 'Compost.md',
        title: 'Compost',
        matched: 'Compost',
        count: 2,
        excerpt: expect.stringContaining('They like Compost'),
      },
      {
        path: 'garden plan.md',
        title: 'garden plan',
        matched: 'Garden   plan',
        count: 1,
        excerpt: expect.any(String),
      },
    ]);
    const compost = (await t.call('GET', '/unlinked-mentions/mentions?path=Compost')).json.data;
    expect(compost.incoming.map((m: { path: string }) => m.path)).toEqual(['Tomatoes.md']);
    expect((await t.call('GET', '/unlinked-mentions/mentions')).json.error.details.issues[0].field).toBe(
      'path',
    );
    expect((await t.call('GET', '/unlinked-mentions/mentions?path=nope.md')).json.error.code).toBe(
      'NOTE_NOT_FOUND',
    );
  });
});

describe('web-search', () => {
  it('reports a failing service, bad JSON and refused destinations as tool errors', async () => {
    let mode: 'fail' | 'html' = 'fail';
    const svc = await startServer(() =>
      mode === 'fail' ? { status: 500, body: {} } : { status: 200, body: '<html>' },
    );
    cleanups.push(svc.close);
    const t = await setup();
    const loopback = await t.call('POST', '/install', {
      id: 'web-search',
      config: { url: svc.url },
      enabled: true,
    });
    expect(loopback.status).toBe(400);
    expect(loopback.json.error.details.issues[0]).toMatchObject({ field: 'url' });
    await t.call('POST', '/install', {
      id: 'web-search',
      config: { url: svc.url, allowPrivateNetwork: true },
      enabled: true,
    });
    const tool = () => t.plugins.tools().find((x) => x.name === 'web_search')!;
    await expect(tool().run({ query: 'x' }, {})).rejects.toMatchObject({
      code: 'PLUGIN_ERROR',
      message: expect.stringContaining('500'),
    });
    mode = 'html';
    await expect(tool().run({ query: 'x' }, {})).rejects.toMatchObject({
      message: expect.stringContaining('SearXNG JSON'),
    });
    await t.call('PUT', '/web-search/config', { url: `http://localhost:${svc.port}` });
    await expect(tool().run({ query: 'x' }, {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(svc.got).toHaveLength(2);
    expect(t.plugins.egress()[0]).toMatchObject({
      id: 'web-search',
      egress: true,
      destinations: [`http://localhost:${svc.port}`],
    });
  });

  it('uses a base URL with a path', async () => {
    const searx = await startSearx(() => [{ title: 'T', url: 'https://a.example/', content: 'c' }]);
    cleanups.push(searx.close);
    const t = await setup();
    await t.call('POST', '/install', {
      id: 'web-search',
      config: { url: `${searx.url}/`, allowPrivateNetwork: true },
      enabled: true,
    });
    const out = await t.plugins.tools()[0]!.run({ query: 'q' }, {});
    expect(out.output).toEqual({
      query: 'q',
      results: [{ title: 'T', url: 'https://a.example/', snippet: 'c' }],
    });
  });
});

describe('the egress guard', () => {
  it('knows private, loopback and special addresses', () => {
    const priv = [
      '127.0.0.1',
      '10.0.0.5',
      '172.16.3.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      '[::1]',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1%eth0',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      // IPv4-mapped and -compatible IPv6 are refused whatever they embed (never a user's API).
      '::ffff:8.8.8.8',
      '::127.0.0.1',
      '::8.8.8.8',
      '64:ff9b::a00:1',
      '2001:db8::1',
      'not-an-ip',
    ];
    const pub = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '100.128.0.1'];
    for (const ip of priv) expect(isPrivateAddress(ip), ip).toBe(true);
    for (const ip of pub) expect(isPrivateAddress(ip), ip).toBe(false);
  });

  it('checks names through the resolver, and odd spellings of loopback', async () => {
    const opts = { allowPrivate: false, resolveHost: nodeResolveHost };
    expect(await egressProblem('http://localhost:1/x', opts)).toMatch(/localhost is a loopback/);
    expect(await egressProblem('http://[::127.0.0.1]/', opts)).toMatch(/private/);
    expect(await egressProblem('http://2130706433/', opts)).toMatch(/127\.0\.0\.1 is a private/);
    expect(await egressProblem('http://0x7f.1/', opts)).toMatch(/127\.0\.0\.1/);
    expect(await egressProblem('http://[::ffff:127.0.0.1]/', opts)).toMatch(/private/);
    expect(await egressProblem('file:///etc/passwd', opts)).toMatch(/only http and https/);
    expect(await egressProblem('http://8.8.8.8/', opts)).toBeNull();
    expect(await egressProblem('http://localhost/', { allowPrivate: false })).toMatch(
      /loopback or internal name/,
    );
    expect(await egressProblem('http://localhost/', { allowPrivate: true })).toBeNull();
  });
});

describe('webhook signing and the delivery queue', () => {
  it('signs as Standard Webhooks (checked by independent code)', async () => {
    expect(isWebhookSecret(SECRET)).toBe(true);
    expect(isWebhookSecret('whsec_c2hvcnQ=')).toBe(false);
    expect(isWebhookSecret('secret')).toBe(false);
    const body = '{"type":"note.created"}';
    const sig = await signWebhook(SECRET, 'msg_1', 1_700_000_000, body);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': sig };
    expect(verifySignature(SECRET, headers, body)).toBe(true);
    expect(verifySignature(SECRET, { ...headers, 'webhook-id': 'msg_2' }, body)).toBe(false);
  });

  it('stop() cancels waiting retries and aborts sends in flight', async () => {
    vi.useFakeTimers();
    const signals: AbortSignal[] = [];
    let calls = 0;
    const q = createDeliveryQueue({
      send: async (_job, signal) => {
        calls++;
        signals.push(signal);
        return { ok: false, retry: true, status: 500, error: 'answered 500' };
      },
      retryDelaysMs: [1000, 1000],
      maxQueue: 2,
      concurrency: 1,
      onAttempt: () => {},
    });
    const job = (id: string): DeliveryJob => ({
      id,
      url: 'http://x/',
      event: 'created',
      path: 'a.md',
      body: '{}',
      attempt: 1,
    });
    expect(q.push(job('1'))).toBe(true);
    expect(q.push(job('2'))).toBe(true);
    expect(q.push(job('3'))).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(4);
    q.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(4);
    expect(q.size()).toBe(0);
    expect(q.push(job('4'))).toBe(false);

    const hanging = createDeliveryQueue({
      send: (_job, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () =>
            resolve({ ok: false, retry: true, status: null, error: 'aborted' }),
          ),
        ),
      retryDelaysMs: [1],
      maxQueue: 5,
      concurrency: 2,
      onAttempt: () => {
        throw new Error('no attempt is reported after stop');
      },
    });
    hanging.push(job('5'));
    expect(hanging.inFlight()).toBe(1);
    hanging.stop();
    await vi.advanceTimersByTimeAsync(100);
    expect(hanging.size()).toBe(0);
  });
});
