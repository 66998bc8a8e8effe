/**
 * Publishing over HTTP, directly and relayed (the in-process relay and a real connector, as in
 * people-matrix.test.ts): the pages an anonymous reader gets, what they never carry from outside
 * the publication, the headers of a static site, bad addresses, the password gate, expiry and
 * revocation on the next request, and who may publish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createPublicationService } from '../../core/publish/service.ts';
import { authApp } from '../helpers/auth-app.ts';
import { until } from '../helpers/wait.ts';
import { composedApp } from '../openapi/compose.ts';
import { throughRelay } from '../relay/harness.ts';

const SECRET = 'zzsecretzz';
const files = {
  'Blog/index.md':
    '# Welcome\n\nRead [[Second post]] and [[Hidden plan]] and [the guide](Guide.md) and [[Second post#Part|a part]].\n\n![[cat.png]]\n',
  'Blog/Second post.md':
    '# Second post\n\nBack to [[index]]. Markdown link to [private](../Private/plan.md). ![pic](img/dog.png)\n\n<script>alert(1)</script>\n',
  'Blog/Guide.md': '# Guide\n\nWords about gardening.\n',
  'Private/Hidden plan.md': `# ${SECRET} title\n\n${SECRET} body gardening\n`,
  'Private/plan.md': `# ${SECRET} plan\n\ntext\n`,
};

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;
let direct: Fetch;
let relayed: Fetch;
let owner: Record<string, string>;
let _serverId = '';
const stops: (() => Promise<unknown>)[] = [];

const api = async (method: string, path: string, body?: unknown, headers = owner) => {
  const r = await direct(path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, json: (await r.json()) as any };
};

beforeAll(async () => {
  const composed = await composedApp(files);
  const app = composed.app;
  direct = async (path, init) => app.request(`http://127.0.0.1:3000${path}`, init);
  owner = { 'x-service-key': composed.auth.firstKeyPlain()! };
  for (const [p, bytes] of [
    ['Blog/cat.png', [137, 80, 78, 71, 1]],
    ['Blog/img/dog.png', [137, 80, 78, 71, 2]],
    ['Private/secret.png', [137, 80, 78, 71, 3]],
  ] as const) {
    const r = await direct(`/api/v1/files/${p}`, {
      method: 'PUT',
      headers: { ...owner, 'content-type': 'image/png' },
      body: new Uint8Array(bytes),
    });
    expect(r.status, await r.text()).toBeLessThan(300);
  }
  const relay = await throughRelay(app);
  stops.push(relay.stop);
  _serverId = relay.serverId;
  relayed = async (path, init) => relay.request(path, init);
}, 60_000);

afterAll(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

const publish = async (body: Record<string, unknown>) => {
  const r = await api('POST', '/api/v1/publications', body);
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json.data as { id: string; url: string; relayUrl: string | null };
};

describe.each(['direct', 'relayed'] as const)('a published folder (%s)', (via) => {
  const get = (path: string, init?: RequestInit) => (via === 'direct' ? direct : relayed)(path, init);
  let id = '';
  beforeAll(async () => {
    id = (await publish({ path: 'Blog' })).id;
  });

  it('lists the published notes and nothing else, with a static site’s headers', async () => {
    const r = await get(`/p/${id}/`);
    const html = await r.text();
    expect(r.status, html).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(r.headers.get('cache-control')).toBe('public, no-cache');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).not.toContain('<script');
    for (const t of ['Welcome', 'Second post', 'Guide']) expect(html).toContain(t);
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain('Private');
    const etag = r.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await get(`/p/${id}/`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const lm = r.headers.get('last-modified')!;
    expect(lm).toBeTruthy();
    expect((await get(`/p/${id}/`, { headers: { 'if-modified-since': lm } })).status).toBe(304);
  });

  it('links published notes, shows the others as text without their titles', async () => {
    const r = await get(`/p/${id}/index.md`);
    const html = await r.text();
    expect(r.status, html).toBe(200);
    expect(html).toContain('<a href="./Second%20post.md">Second post</a>');
    expect(html).toContain('<a href="./Guide.md">the guide</a>');
    expect(html).toContain('<span class="unpublished">Hidden plan</span>');
    expect(html).not.toContain(SECRET);
    const img = /<img src="(\.\/_files\/[0-9a-f]{24}\/cat\.png)"/.exec(html);
    expect(img, html).not.toBeNull();
    const f = await get(`/p/${id}/${img![1]!.slice(2)}`);
    expect(f.status).toBe(200);
    expect(new Uint8Array(await f.arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71, 1]));
    const second = await (await get(`/p/${id}/Second%20post.md`)).text();
    expect(second).toContain('<a href="./index.md">index</a>');
    expect(second).toContain('<span class="unpublished">private</span>');
    expect(second).toMatch(/<img src="\.\/_files\/[0-9a-f]{24}\/dog\.png" alt="pic">/);
    expect(second).toContain('&lt;script&gt;');
    expect(second).not.toContain(SECRET);
  });

  it('searches within the publication only', async () => {
    const html = await (await get(`/p/${id}/_search?q=gardening`)).text();
    expect(html).toContain('Guide');
    expect(html).toContain('1 result');
    expect(html).not.toContain(SECRET);
    const none = await (await get(`/p/${id}/_search?q=${SECRET}`)).text();
    expect(none).toContain('No published note matches');
    expect(none.split(SECRET).length).toBe(2); // only echoed in the search box
  });

  it('answers bad addresses with an error page, never a 500, never outside', async () => {
    const cases: [string, number][] = [
      [`/p/pub_nope/`, 404],
      [`/p/${id}/..%2FPrivate%2Fplan.md`, 400],
      // URL parsing takes `%2e%2e` as `..`: the path leaves the publication's id behind.
      [`/p/${id}/%2e%2e/Private/plan.md`, 404],
      [`/p/${id}/a%5C..%5Cb.md`, 400],
      [`/p/${id}/Private/plan.md`, 404],
      [`/p/${id}/_files/${'0'.repeat(24)}/secret.png`, 404],
      [`/p/${id}/${'a/'.repeat(700)}x.md`, 414],
      [`/p/${id}/%00.md`, 400],
    ];
    for (const [path, status] of cases) {
      const r = await get(path);
      const text = await r.text();
      expect(r.status, path).toBe(status);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('Hidden plan');
    }
    const write = await get(`/p/${id}/index.md`, { method: 'POST', body: 'x' });
    expect(write.status).toBe(405);
  });

  it('opens nothing else to an anonymous caller', async () => {
    for (const path of ['/api/v1/notes', '/api/v1/publications', `/api/v1/notes/Private%2Fplan.md`])
      expect((await get(path)).status, path).toBe(401);
  });
});

describe('pages follow the vault', () => {
  it('a page served once shows an edit, and a link becomes one when its note appears', async () => {
    const write = async (method: 'POST' | 'PUT', path: string, content: string) => {
      const r =
        method === 'POST'
          ? await api('POST', '/api/v1/notes', { path, content })
          : await api('PUT', `/api/v1/notes/${encodeURIComponent(path)}`, { content });
      expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
    };
    await write('POST', 'Garden/Beds.md', '# Beds\n\nTomatoes, see [[Later]].\n');
    const { id } = await publish({ path: 'Garden' });
    const first = await (await direct(`/p/${id}/Beds.md`)).text();
    expect(first).toContain('Tomatoes');
    expect(first).toContain('<span class="unpublished">Later</span>');
    // Asked again, unchanged (the rendered page is kept): the same bytes.
    expect(await (await direct(`/p/${id}/Beds.md`)).text()).toBe(first);

    await write('PUT', 'Garden/Beds.md', '# Beds\n\nBeans now, see [[Later]].\n');
    const edited = await (await direct(`/p/${id}/Beds.md`)).text();
    expect(edited).toContain('Beans now');
    expect(edited).not.toContain('Tomatoes');

    await write('POST', 'Garden/Later.md', '# Later\n\nAfter the beans.\n');
    const linked = await (await direct(`/p/${id}/Beds.md`)).text();
    expect(linked).toContain('<a href="./Later.md">Later</a>');
    expect((await direct(`/p/${id}/Later.md`)).status).toBe(200);
  });
});

describe('a password-protected publication', () => {
  let id = '';
  beforeAll(async () => {
    id = (await publish({ path: 'Blog/Guide.md', password: 'correct horse battery', noindex: false })).id;
  });

  it('directly: a form, then a cookie scoped to the publication', async () => {
    const locked = await direct(`/p/${id}/`);
    expect(locked.status).toBe(401);
    const html = await locked.text();
    expect(html).toContain('action="./_unlock"');
    expect(html).not.toContain('gardening');
    expect(locked.headers.get('cache-control')).toBe('private, no-cache');
    const post = (password: string) =>
      direct(`/p/${id}/_unlock`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `password=${encodeURIComponent(password)}`,
      });
    expect((await post('wrong password!')).status).toBe(401);
    const ok = await post('correct horse battery');
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toContain(`Path=/p/${id}/`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).not.toContain('correct horse');
    const page = await direct(`/p/${id}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('gardening');
    expect(page.headers.get('x-robots-tag')).toBeNull();
    expect((await direct(`/p/${id}/`, { headers: { cookie: `${cookie.split('=')[0]}=1.x` } })).status).toBe(
      401,
    );
  });

  it('through the relay: HTTP Basic, since the relay passes no cookie', async () => {
    const locked = await relayed(`/p/${id}/`);
    expect(locked.status).toBe(401);
    expect(locked.headers.get('www-authenticate')).toMatch(/^Basic /);
    const basic = (pw: string) => ({ authorization: `Basic ${btoa(`reader:${pw}`)}` });
    expect((await relayed(`/p/${id}/`, { headers: basic('nope nope nope') })).status).toBe(401);
    const r = await relayed(`/p/${id}/`, { headers: basic('correct horse battery') });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('gardening');
  });
});

describe('HTTP Basic under the sign-in limits', () => {
  it('a reader paging with the right password is not limited; wrong ones are', async () => {
    const rateLimits = { authPerMinute: 2, failures: 3, failureWindowSeconds: 60 };
    const { call, firstKey, key } = await authApp({ publications: true, rateLimits });
    await call('POST', '/api/v1/notes', {
      body: { path: 'S/a.md', content: '# A\n\nsecret text\n' },
      headers: key(firstKey),
    });
    const pub = await call('POST', '/api/v1/publications', {
      body: { path: 'S', password: 'the right password' },
      headers: key(firstKey),
    });
    const id = pub.json.data.id as string;
    const basic = (pw: string) => ({ authorization: `Basic ${btoa(`r:${pw}`)}` });
    for (let i = 0; i < 6; i++)
      expect((await call('GET', `/p/${id}/a.md`, { headers: basic('the right password') })).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await call('GET', `/p/${id}/a.md`, { headers: basic('a wrong password') })).status).toBe(401);
    const limited = await call('GET', `/p/${id}/a.md`, { headers: basic('another wrong one') });
    expect(limited.status).toBe(429);
    expect(limited.text).not.toContain('secret text');
  });
});

describe('expiry and revocation', () => {
  it('an expired publication answers 410 on its next request', async () => {
    const p = await publish({ path: 'Blog/Guide.md', expiresAt: new Date(Date.now() + 800).toISOString() });
    expect((await direct(`/p/${p.id}/`)).status).toBe(200);
    await until('the publication to expire', async () => (await direct(`/p/${p.id}/`)).status === 410);
    expect((await relayed(`/p/${p.id}/`)).status).toBe(410);
  });

  it('a revoked publication is gone on the next request, directly and relayed', async () => {
    const p = await publish({ path: 'Blog' });
    expect(p.url).toBe(`http://127.0.0.1:3000/p/${p.id}/`);
    expect((await direct(`/p/${p.id}/Guide.md`)).status).toBe(200);
    expect((await relayed(`/p/${p.id}/Guide.md`)).status).toBe(200);
    const list = await api('GET', '/api/v1/publications');
    expect(list.json.data.map((x: { id: string }) => x.id)).toContain(p.id);
    expect(JSON.stringify(list.json)).not.toContain('scrypt$');
    expect((await api('DELETE', `/api/v1/publications/${p.id}`)).status).toBe(200);
    expect((await direct(`/p/${p.id}/Guide.md`)).status).toBe(404);
    expect((await relayed(`/p/${p.id}/Guide.md`)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/publications/${p.id}`)).status).toBe(404);
  });
});

describe('who may publish', () => {
  const person = async (name: string, share?: { folder: string; role: string }) => {
    const p = await api('POST', '/api/v1/people', { name });
    expect(p.status).toBe(201);
    if (share) expect((await api('POST', `/api/v1/people/${p.json.data.id}/shares`, share)).status).toBe(201);
    const inv = await api('POST', `/api/v1/people/${p.json.data.id}/invite`);
    const r = await direct('/api/v1/invites/password', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: inv.json.data.token, password: `${name} password long`, as: 'bearer' }),
    });
    const token = ((await r.json()) as any).data.token as string;
    return { id: p.json.data.id as string, auth: { authorization: `Bearer ${token}` } };
  };

  it('a manager publishes inside their folder only; an editor not at all; it ends with their right', async () => {
    const mia = await person('Mia', { folder: 'Blog', role: 'manager' });
    const ed = await person('Ed', { folder: 'Blog', role: 'editor' });
    const inside = await api('POST', '/api/v1/publications', { path: 'Blog/Guide.md' }, mia.auth);
    expect(inside.status, JSON.stringify(inside.json)).toBe(201);
    expect(inside.json.data.by).toBe(`person:${mia.id}`);
    const outside = await api('POST', '/api/v1/publications', { path: 'Private' }, mia.auth);
    expect([outside.status, outside.json.error.code]).toEqual([403, 'FORBIDDEN']);
    const hidden = await api('POST', '/api/v1/publications', { path: 'Private/plan.md' }, mia.auth);
    expect(hidden.status).toBe(403);
    expect((await api('POST', '/api/v1/publications', { path: 'Blog' }, ed.auth)).status).toBe(403);
    expect((await api('GET', '/api/v1/publications', undefined, ed.auth)).status).toBe(403);
    // A manager lists (and may revoke) only what lies in their folders.
    const mine = (await api('GET', '/api/v1/publications', undefined, mia.auth)).json.data as {
      path: string;
    }[];
    expect(mine.map((x) => x.path)).toContain('Blog/Guide.md');
    expect(mine.every((x) => x.path.startsWith('Blog/'))).toBe(true);
    const owners = (await api('GET', '/api/v1/publications')).json.data as { id: string; path: string }[];
    const elsewhere = await api('POST', '/api/v1/publications', { path: 'Private' });
    expect(
      (await api('GET', `/api/v1/publications/${elsewhere.json.data.id}`, undefined, mia.auth)).status,
    ).toBe(404);
    expect(
      (await api('DELETE', `/api/v1/publications/${elsewhere.json.data.id}`, undefined, mia.auth)).status,
    ).toBe(404);
    expect((await api('DELETE', `/api/v1/publications/${elsewhere.json.data.id}`)).status).toBe(200);
    expect(owners.length).toBeGreaterThanOrEqual(mine.length);
    const url = `/p/${inside.json.data.id}/`;
    expect((await direct(url)).status).toBe(200);
    expect((await api('PATCH', `/api/v1/people/${mia.id}`, { disabled: true })).status).toBe(200);
    expect((await direct(url)).status).toBe(404);
    expect((await relayed(url)).status).toBe(404);
  });
});

describe('the publications API', () => {
  it('refuses bad bodies and missing notes with the error envelope', async () => {
    const bad: [unknown, number, string][] = [
      [{ path: '../x' }, 400, 'INVALID_PATH'],
      [{ path: 'Blog/nope.md' }, 404, 'NOTE_NOT_FOUND'],
      [{ path: 'Blog', expiresAt: '2001-01-01T00:00:00Z' }, 400, 'VALIDATION_ERROR'],
      [{ path: 'Blog', password: 'short' }, 400, 'VALIDATION_ERROR'],
      [{ path: 'Blog', extra: 1 }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of bad) {
      const r = await api('POST', '/api/v1/publications', body);
      expect([r.status, r.json.error?.code], JSON.stringify(body)).toEqual([status, code]);
    }
    expect((await api('POST', '/api/v1/publications', { path: 'Blog' }, {})).status).toBe(401);
  });

  it('keeps publications across a restart (the state store)', async () => {
    const state = memoryStateStore();
    const clock = { now: () => Date.now() };
    const a = createPublicationService({ state, clock, scrypt: { N: 2 ** 4, r: 1, p: 1 } });
    await a.init();
    const p = await a.create({ path: 'Blog', password: 'long enough pw' }, 'owner');
    const b = createPublicationService({ state, clock });
    await b.init();
    expect(b.list()).toEqual([p]);
    const text = (await state.get('publications.json'))!;
    expect(text).not.toContain('long enough pw');
  });
});
