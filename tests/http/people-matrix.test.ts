/**
 * People and shares over HTTP, as a matrix: roles (viewer, editor, manager, none) x route families
 * (notes, tree, tags, search, feed, history, trash, files, MCP, agent, admin, sharing, publishing) x how the
 * request arrives (directly, and relayed through the in-process relay and a real connector, with
 * the session as a bearer). Revocation and the cookie's CSRF rule are checked directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requester } from '../helpers/app.ts';
import { composedApp } from '../openapi/compose.ts';
import { throughRelay } from '../relay/harness.ts';

type Role = 'viewer' | 'editor' | 'manager' | 'none';
const ROLES: Role[] = ['viewer', 'editor', 'manager', 'none'];
const SECRET = 'zzprivatezz';

type Call = ReturnType<typeof requester>;
let direct: Call;
let relayed: Call;
let owner: Record<string, string>;
const ids: Record<Role, string> = { viewer: '', editor: '', manager: '', none: '' };
const tokens: Record<'direct' | 'relayed', Record<Role, string>> = {
  direct: {} as never,
  relayed: {} as never,
};
const stops: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  const files = {
    'Team/a.md': '# Team A\n\n#teamtag shared words [[p]]\n',
    'Team/old.md': '# Old team\n',
    'Private/p.md': `# ${SECRET} title\n\n#${SECRET}tag ${SECRET} body words [[a]]\n`,
    'Private/old.md': `# ${SECRET} old\n`,
  };
  const composed = await composedApp(files);
  const app = composed.app;
  direct = requester(app);
  owner = { 'x-service-key': composed.auth.firstKeyPlain()! };
  for (const p of ['Team/old.md', 'Private/old.md'])
    expect((await direct('DELETE', `/api/v1/notes/${p}`, { headers: owner })).status).toBe(200);
  for (const p of ['Team/t.png', 'Private/p.png']) {
    const r = await app.request(`http://127.0.0.1:3000/api/v1/files/${p}`, {
      method: 'PUT',
      headers: { ...owner, 'content-type': 'image/png' },
      body: new Uint8Array([137, 80, 78, 71]),
    });
    expect(r.status, await r.text()).toBeLessThan(300);
  }
  for (const role of ROLES) {
    const r = await direct('POST', '/api/v1/people', { body: { name: role }, headers: owner });
    expect(r.status, r.text).toBe(201);
    ids[role] = r.json.data.id;
    if (role !== 'none') {
      const s = await direct('POST', `/api/v1/people/${ids[role]}/shares`, {
        body: { folder: 'Team', role },
        headers: owner,
      });
      expect(s.status, s.text).toBe(201);
    }
  }

  // The relay: in-process, a real connector handing each request to the app as relayed.
  const relay = await throughRelay(app);
  stops.push(relay.stop);
  relayed = requester({
    request: (url, init) => relay.request(url.replace('http://127.0.0.1:3000', ''), init),
  });

  // Each person enrols through an invite (directly) and signs in both ways.
  for (const role of ROLES) {
    const inv = await direct('POST', `/api/v1/people/${ids[role]}/invite`, { headers: owner });
    expect(inv.json.data.link).toMatch(/\/invite#quire_inv_/);
    const e = await direct('POST', '/api/v1/invites/password', {
      body: { token: inv.json.data.token, password: `${role} password long`, as: 'bearer' },
    });
    expect(e.status, e.text).toBe(200);
    tokens.direct[role] = e.json.data.token;
    const s = await relayed('POST', '/api/v1/session', {
      body: { name: role, password: `${role} password long` },
    });
    expect(s.status, s.text).toBe(200);
    expect(s.json.data.token).toMatch(/^quire_ss_/); // relayed: a bearer, never a cookie
    tokens.relayed[role] = s.json.data.token;
  }
}, 60_000);

afterAll(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

const can = {
  read: (r: Role) => r !== 'none',
  write: (r: Role) => r === 'editor' || r === 'manager',
  share: (r: Role) => r === 'manager',
};

const mcp = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe.each(['direct', 'relayed'] as const)('people matrix (%s)', (via) => {
  const call = (
    method: string,
    path: string,
    role: Role,
    body?: unknown,
    extra: Record<string, string> = {},
  ) =>
    (via === 'direct' ? direct : relayed)(method, path, {
      body,
      headers: { authorization: `Bearer ${tokens[via][role]}`, ...extra },
    });

  it.each(ROLES)('%s: reads what is shared, nothing else, in every family', async (role) => {
    const reads: [string, string][] = [
      ['GET', '/api/v1/notes'],
      ['GET', '/api/v1/folders/tree'],
      ['GET', '/api/v1/tags'],
      ['GET', `/api/v1/search?q=${SECRET}`],
      ['GET', '/api/v1/search?q=words'],
      ['GET', '/api/v1/trash'],
      ['GET', '/api/v1/notes/Team/a.md/versions'],
      ['GET', '/api/v1/notes/Team/a.md/related'],
    ];
    for (const [m, url] of reads) {
      const r = await call(m, url, role);
      expect(r.status, `${m} ${url}`).toBeLessThan(500);
      expect(r.text, `${m} ${url}`).not.toContain(SECRET);
      expect(r.text, `${m} ${url}`).not.toContain('Private');
    }
    const feed = await call('GET', '/api/v1/events?after=0', role, undefined, { accept: 'application/json' });
    expect(feed.text).not.toContain('Private');
    const list = await call('GET', '/api/v1/notes', role);
    expect(list.text.includes('Team/a.md')).toBe(can.read(role));
    const team = await call('GET', '/api/v1/notes/Team/a.md', role);
    expect(team.status).toBe(can.read(role) ? 200 : 404);
    if (can.read(role)) expect(team.json.data.links[0].path).toBeNull(); // [[p]] resolves to nothing seen
    expect((await call('GET', '/api/v1/notes/Private/p.md', role)).status).toBe(404);
    expect((await call('GET', '/api/v1/files/Team/t.png', role)).status).toBe(can.read(role) ? 200 : 404);
    expect((await call('GET', '/api/v1/files/Private/p.png', role)).status).toBe(404);
    const m = await call('POST', '/mcp', role, mcp('search_notes', { query: SECRET }), {
      accept: 'application/json, text/event-stream',
    });
    expect(m.status).toBeLessThan(500);
    expect(m.text).not.toContain(SECRET);
    const mr = await call('POST', '/mcp', role, mcp('read_note', { path: 'Private/p.md' }), {
      accept: 'application/json, text/event-stream',
    });
    expect(mr.text).not.toContain(SECRET);
  });

  it.each(ROLES)('%s: writes only where editor or manager', async (role) => {
    const path = `Team/${via}-${role}.md`;
    const w = await call('POST', '/api/v1/notes', role, { path, content: 'hello' });
    expect(w.status, w.text).toBe(can.write(role) ? 201 : 403);
    const out = await call('PUT', '/api/v1/notes/Private/p.md', role, { content: 'overwritten' });
    expect(out.status).toBe(403);
    const file = await call('PUT', `/api/v1/files/Team/${via}-${role}.txt`, role, 'x');
    expect(file.status < 300).toBe(can.write(role));
    const agent = await call('POST', '/api/v1/agent/chat', role, { message: `what about ${SECRET}?` });
    expect(agent.status).toBeLessThan(500);
    expect(agent.text.replace(`what about ${SECRET}?`, '')).not.toContain(`${SECRET} body`);
  });

  it.each(ROLES)('%s: no admin; shares only as a manager, only inside the folder', async (role) => {
    expect((await call('GET', '/api/v1/auth/keys', role)).status).toBe(403);
    expect((await call('GET', '/api/v1/security/audit', role)).status).toBe(403);
    expect((await call('POST', '/api/v1/people', role, { name: `x-${via}-${role}` })).status).toBe(403);
    const inside = await call('POST', `/api/v1/people/${ids.none}/shares`, role, {
      folder: 'Team/Sub',
      role: 'viewer',
    });
    expect(inside.status, inside.text).toBe(can.share(role) ? 201 : 403);
    const outside = await call('POST', `/api/v1/people/${ids.none}/shares`, role, {
      folder: 'Private',
      role: 'viewer',
    });
    expect(outside.status).toBe(403);
    const me = await call('GET', '/api/v1/session', role);
    expect(me.json.data.person.name).toBe(role);
  });

  it.each(ROLES)('%s: publishes only as a manager, only inside the folder', async (role) => {
    const pub = await call('POST', '/api/v1/publications', role, { path: 'Team' });
    expect(pub.status, pub.text).toBe(can.share(role) ? 201 : 403);
    expect((await call('POST', '/api/v1/publications', role, { path: 'Private' })).status).toBe(403);
    expect((await call('POST', '/api/v1/publications', role, { path: 'Private/p.md' })).status).toBe(403);
    if (!can.share(role)) return;
    const id = pub.json.data.id as string;
    // An anonymous reader, the same way in: the shared folder, the private link as text.
    const page = await (via === 'direct' ? direct : relayed)('GET', `/p/${id}/a.md`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('<span class="unpublished">p</span>');
    expect(page.text).not.toContain(SECRET);
    expect((await call('DELETE', `/api/v1/publications/${id}`, role)).status).toBe(200);
    expect((await (via === 'direct' ? direct : relayed)('GET', `/p/${id}/a.md`)).status).toBe(404);
  });
});

describe('revocation and the cookie', () => {
  it('a disabled person is refused on the next request, sessions and keys alike', async () => {
    const add = await direct('POST', '/api/v1/people', { body: { name: 'leaver' }, headers: owner });
    const id = add.json.data.id;
    await direct('POST', `/api/v1/people/${id}/shares`, {
      body: { folder: 'Team', role: 'editor' },
      headers: owner,
    });
    const inv = await direct('POST', `/api/v1/people/${id}/invite`, { headers: owner });
    const s = await direct('POST', '/api/v1/invites/password', {
      body: { token: inv.json.data.token, password: 'leaver password', as: 'bearer' },
    });
    const bearer = { authorization: `Bearer ${s.json.data.token}` };
    const key = await direct('POST', '/api/v1/session/keys', { body: { name: 'laptop' }, headers: bearer });
    expect(key.status, key.text).toBe(201);
    const asKey = { 'x-service-key': key.json.data.apiKey };
    expect((await direct('GET', '/api/v1/notes/Team/a.md', { headers: asKey })).status).toBe(200);
    expect((await direct('GET', '/api/v1/notes/Private/p.md', { headers: asKey })).status).toBe(404);
    // The workspace links with a person's key (verify, then link once setup is complete), directly
    // and through the relay; a token is never traded for one (it would outlive the person).
    expect((await direct('POST', '/api/v1/auth/verify', { headers: asKey })).status).toBe(200);
    expect((await relayed('POST', '/api/v1/auth/verify', { headers: asKey })).status).toBe(200);
    expect((await direct('POST', '/api/v1/auth/token', { headers: asKey })).status).toBe(401);
    expect(
      (await direct('PATCH', `/api/v1/people/${id}`, { body: { disabled: true }, headers: owner })).status,
    ).toBe(200);
    expect((await relayed('POST', '/api/v1/auth/verify', { headers: asKey })).status).toBe(401);
    expect((await direct('GET', '/api/v1/notes', { headers: bearer })).status).toBe(401);
    expect((await direct('GET', '/api/v1/notes', { headers: asKey })).status).toBe(401);
    expect((await relayed('GET', '/api/v1/notes', { headers: bearer })).status).toBe(401);
  });

  it('who did what: history, trash and the feed name the person and the device', async () => {
    const add = await direct('POST', '/api/v1/people', { body: { name: 'Wren' }, headers: owner });
    const id = add.json.data.id;
    await direct('POST', `/api/v1/people/${id}/shares`, {
      body: { folder: 'Team', role: 'editor' },
      headers: owner,
    });
    const inv = await direct('POST', `/api/v1/people/${id}/invite`, { headers: owner });
    const chrome =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const s = await direct('POST', '/api/v1/invites/password', {
      body: { token: inv.json.data.token, password: 'wren password long', as: 'bearer' },
      headers: { 'user-agent': chrome },
    });
    const session = { authorization: `Bearer ${s.json.data.token}` };
    const key = await direct('POST', '/api/v1/session/keys', { body: { name: 'laptop' }, headers: session });
    const asKey = { 'x-service-key': key.json.data.apiKey };

    const poll = { ...owner, accept: 'application/json' };
    const start = (await direct('GET', '/api/v1/events', { headers: poll })).json.data.next;
    await direct('POST', '/api/v1/notes', {
      body: { path: 'Team/wren.md', content: 'one\n' },
      headers: session,
    });
    await direct('PUT', '/api/v1/notes/Team/wren.md', { body: { content: 'two\n' }, headers: asKey });
    await relayed('PUT', '/api/v1/notes/Team/wren.md', { body: { content: 'three\n' }, headers: session });
    await direct('DELETE', '/api/v1/notes/Team/wren.md', { headers: asKey });

    const versions = (await direct('GET', '/api/v1/notes/Team/wren.md/versions', { headers: owner })).json
      .data;
    expect(versions.map((v: { author: string }) => v.author)).toEqual(
      expect.arrayContaining(['Wren (Chrome on Linux)', 'Wren (laptop)']),
    );
    const trash = (await direct('GET', '/api/v1/trash', { headers: owner })).json.data;
    expect(trash.find((t: { path: string }) => t.path === 'Team/wren.md')?.author).toBe('Wren (laptop)');
    const feed = (await direct('GET', `/api/v1/events?after=${start}`, { headers: poll })).json.data;
    type Event = { data: { path: string; author: string } };
    const authors = feed.events
      .filter((e: Event) => e.data.path === 'Team/wren.md')
      .map((e: Event) => e.data.author);
    expect(authors).toEqual([
      'Wren (Chrome on Linux)',
      'Wren (laptop)',
      'Wren (Chrome on Linux)',
      'Wren (laptop)',
    ]);
    // The activity: every change of the note, newest first, with the person and the device; a
    // person sees the activity of what is shared with them only.
    const activity = (await direct('GET', '/api/v1/activity?limit=500', { headers: owner })).json.data;
    const wren = activity.filter((a: { path: string }) => a.path === 'Team/wren.md');
    expect(wren[0]).toMatchObject({ change: 'delete', author: 'Wren (laptop)' });
    expect(wren.map((a: { author: string }) => a.author)).toContain('Wren (Chrome on Linux)');
    const seen = (await direct('GET', '/api/v1/activity?limit=500', { headers: session })).json.data;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((a: { path: string }) => a.path.startsWith('Team/'))).toBe(true);
    expect(activity.some((a: { path: string }) => a.path.startsWith('Private/'))).toBe(true);
    expect((await direct('GET', '/api/v1/activity?limit=0', { headers: owner })).status).toBe(400);
    expect((await direct('GET', '/api/v1/activity?limit=x', { headers: owner })).status).toBe(400);

    // Signed out, the session's changes still name its device; a revoked key's name is gone, the
    // person's stays.
    await direct('DELETE', '/api/v1/session', { headers: session });
    const keys = await direct('GET', '/api/v1/session/keys', { headers: asKey });
    const keyId = keys.json.data.find((k: { name: string }) => k.name === 'laptop').id;
    await direct('DELETE', `/api/v1/session/keys/${keyId}`, { headers: asKey });
    const after = (await direct('GET', '/api/v1/notes/Team/wren.md/versions', { headers: owner })).json.data;
    const named = after.map((v: { author: string }) => v.author);
    expect(named).toContain('Wren (Chrome on Linux)');
    expect(named).toContain('Wren');
    expect(named).not.toContain('Wren (laptop)');
  });

  it('a session token in the key header (the workspace through the relay) opens and signs out the same', async () => {
    const add = await direct('POST', '/api/v1/people', { body: { name: 'keyed' }, headers: owner });
    const id = add.json.data.id;
    await direct('POST', `/api/v1/people/${id}/shares`, {
      body: { folder: 'Team', role: 'viewer' },
      headers: owner,
    });
    const inv = await direct('POST', `/api/v1/people/${id}/invite`, { headers: owner });
    const s = await relayed('POST', '/api/v1/invites/password', {
      body: { token: inv.json.data.token, password: 'keyed password long' },
    });
    const keyed = { 'x-service-key': s.json.data.token as string };
    expect((await relayed('GET', '/api/v1/notes/Team/a.md', { headers: keyed })).status).toBe(200);
    expect((await relayed('GET', '/api/v1/notes/Private/p.md', { headers: keyed })).status).toBe(404);
    expect((await relayed('GET', '/api/v1/session', { headers: keyed })).json.data.person.name).toBe('keyed');
    expect((await relayed('DELETE', '/api/v1/session', { headers: keyed })).status).toBe(200);
    expect((await relayed('GET', '/api/v1/notes', { headers: keyed })).status).toBe(401);
    expect((await direct('GET', '/api/v1/notes', { headers: keyed })).status).toBe(401);
  });

  it('a cookie session: HttpOnly, SameSite=Strict; a change needs this server as Origin', async () => {
    const add = await direct('POST', '/api/v1/people', { body: { name: 'cookie' }, headers: owner });
    const id = add.json.data.id;
    await direct('POST', `/api/v1/people/${id}/shares`, {
      body: { folder: 'Team', role: 'editor' },
      headers: owner,
    });
    const inv = await direct('POST', `/api/v1/people/${id}/invite`, { headers: owner });
    const s = await direct('POST', '/api/v1/invites/password', {
      body: { token: inv.json.data.token, password: 'cookie password' },
    });
    const set = s.headers.get('set-cookie') ?? '';
    expect(set).toMatch(/^quire_session=quire_ss_[\w-]+; Path=\/; HttpOnly; SameSite=Strict/);
    expect(set).not.toContain('Secure'); // plain http here; https adds it
    expect(s.json.data.token).toBeUndefined(); // never readable by script
    const cookie = { cookie: set.split(';')[0]! };
    expect((await direct('GET', '/api/v1/notes/Team/a.md', { headers: cookie })).status).toBe(200);
    const forged = await direct('PUT', '/api/v1/notes/Team/a.md', {
      body: { content: 'csrf' },
      headers: { ...cookie, origin: 'https://evil.example' },
    });
    expect([forged.status, forged.json.error.code]).toEqual([403, 'FORBIDDEN']);
    const none = await direct('PUT', '/api/v1/notes/Team/a.md', {
      body: { content: 'csrf' },
      headers: cookie,
    });
    expect(none.status).toBe(403);
    const own = await direct('PUT', '/api/v1/notes/Team/a.md', {
      body: { content: '# Team A\n\nedited\n' },
      headers: { ...cookie, origin: 'http://127.0.0.1:3000' },
    });
    expect(own.status, own.text).toBe(200);
    const out = await direct('DELETE', '/api/v1/session', {
      headers: { ...cookie, origin: 'http://127.0.0.1:3000' },
    });
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await direct('GET', '/api/v1/notes', { headers: cookie })).status).toBe(401);
  });

  it('behind TLS the cookie is Secure and the Origin must be the https one', async () => {
    const tls = await composedApp({ 'Team/a.md': '# A\n' }, { PUBLIC_URL: 'https://notes.example' });
    const call = requester(tls.app);
    const own = { 'x-service-key': tls.auth.firstKeyPlain()! };
    const id = (await call('POST', '/api/v1/people', { body: { name: 'tls' }, headers: own })).json.data.id;
    await call('POST', `/api/v1/people/${id}/shares`, {
      body: { folder: 'Team', role: 'editor' },
      headers: own,
    });
    const inv = await call('POST', `/api/v1/people/${id}/invite`, { headers: own });
    expect(inv.json.data.link).toMatch(/^https:\/\/notes\.example\/invite#/);
    const s = await call('POST', '/api/v1/invites/password', {
      body: { token: inv.json.data.token, password: 'tls password!' },
    });
    const set = s.headers.get('set-cookie') ?? '';
    expect(set).toMatch(/; Secure/);
    const cookie = { cookie: set.split(';')[0]! };
    const body = { content: '# A\n\nedited\n' };
    const plain = await call('PUT', '/api/v1/notes/Team/a.md', {
      body,
      headers: { ...cookie, origin: 'http://notes.example' },
    });
    expect(plain.status).toBe(403);
    const ok = await call('PUT', '/api/v1/notes/Team/a.md', {
      body,
      headers: { ...cookie, origin: 'https://notes.example' },
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('sign-in refuses a wrong password with 401 and bad bodies with 400, never a 500', async () => {
    const wrong = await direct('POST', '/api/v1/session', {
      body: { name: 'viewer', password: 'nope nope nope' },
    });
    expect([wrong.status, wrong.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
    for (const body of ['{', '[]', '{"name":1}', JSON.stringify({ name: 'x', password: 'y', extra: 1 })]) {
      const r = await direct('POST', '/api/v1/session', { body });
      expect(r.status, body).toBe(400);
    }
    const inv = await direct('POST', '/api/v1/invites/lookup', { body: { token: 'quire_inv_nope' } });
    expect([inv.status, inv.json.error.code]).toEqual([401, 'INVALID_TOKEN']);
  });
});
