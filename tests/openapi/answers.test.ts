import { describe, expect, it } from 'vitest';
import { decodeFrames } from '../../core/live/poll-wire.ts';
import { createQuireClient, QuireApiError } from '../../sdk/index.ts';
import { composedApp } from './compose.ts';
import { answerChecker, documentedRoutes, matchTemplate } from './routes.ts';

const BASE = 'http://127.0.0.1:3000';
type Exchange = { method: string; path: string; status: number; body: unknown; headers: Headers };

/** A composed app, and a fetch into it that records every exchange. */
async function recorded(env: Record<string, string> = {}) {
  const composed = await composedApp(
    { 'garden/compost.md': '# Compost\nSee [[plan]]. #garden', 'plan.md': '# Plan' },
    env,
  );
  const log: Exchange[] = [];
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await composed.app.request(String(input), init);
    const url = new URL(String(input));
    const text = await res.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    log.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      status: res.status,
      body,
      headers: res.headers,
    });
    return res;
  };
  return { ...composed, log, fetchFn };
}

/** Runs `fn` and returns the QuireApiError it throws. */
async function failure(fn: () => Promise<unknown>): Promise<QuireApiError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof QuireApiError) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

describe('real answers against the document', () => {
  it('every operation, called through the typed client, answers what the document says', async () => {
    const { app, auth, log, fetchFn } = await recorded();
    const anon = createQuireClient({ baseUrl: BASE, fetch: fetchFn });
    const firstKey = auth.firstKeyPlain()!;
    const api = createQuireClient({ baseUrl: BASE, apiKey: firstKey, fetch: fetchFn });

    await anon.health();
    expect((await anon.setup()).apiKey).toBe(firstKey);
    expect((await anon.auth.verify(firstKey)).valid).toBe(true);
    expect((await failure(() => anon.notes.list())).code).toBe('UNAUTHORIZED');
    expect((await failure(() => anon.auth.verify('quire_sk_wrong'))).status).toBe(401);
    await api.systemInfo();
    await api.auth.rotatePairCode();
    const minted = await api.auth.mintKey('phone');
    expect(minted.apiKey).toMatch(/^quire_sk_/);
    expect((await api.auth.listKeys()).map((k) => k.name)).toContain('phone');
    await api.auth.revokeKey(minted.id);
    expect(await api.auth.listOAuthGrants()).toEqual([]);
    // People: the owner adds, shares, invites; the person enrols, signs in, mints, signs out.
    const ann = await api.people.add('Ann');
    const share = await api.people.share(ann.id, 'Team', 'manager');
    expect((await api.people.get(ann.id)).shares).toEqual([share]);
    const inv = await api.people.invite(ann.id);
    expect((await anon.session.lookupInvite(inv.token)).name).toBe('Ann');
    expect((await anon.session.enrolPasskeyOptions(inv.token)).challenge).toBeTruthy();
    const started = await anon.session.enrolPassword(inv.token, 'ann password long');
    const ann1 = createQuireClient({ baseUrl: BASE, token: started.token!, fetch: fetchFn });
    expect((await ann1.session.get()).person?.name).toBe('Ann');
    await ann1.session.setPassword('ann password longer');
    expect((await ann1.session.addPasskeyOptions()).challenge).toBeTruthy();
    const own = await ann1.session.mintKey('laptop');
    expect((await ann1.session.listKeys()).map((k) => k.id)).toEqual([own.id]);
    await ann1.session.revokeKey(own.id);
    expect((await ann1.people.list()).map((p) => p.name)).toEqual(['Ann']);
    expect((await anon.session.passkeyOptions()).challenge).toBeTruthy();
    const again = await anon.session.signIn('Ann', 'ann password longer');
    const ann2 = createQuireClient({ baseUrl: BASE, token: again.token!, fetch: fetchFn });
    await ann2.session.signOut();
    expect((await failure(() => ann2.session.get())).status).toBe(401);
    await api.people.unshare(ann.id, share.id);
    await api.people.update(ann.id, { disabled: true });
    await api.people.remove(ann.id);
    // Publishing: a folder read-only at a link, listed, looked at, revoked.
    const pub = await api.publications.publish('Team', { password: 'long enough pw' });
    expect((await api.publications.list()).map((p) => p.id)).toEqual([pub.id]);
    expect((await api.publications.get(pub.id)).password).toBe(true);
    expect((await api.publications.revoke(pub.id)).revoked).toBe(true);
    // One OAuth grant, made by the flow an MCP client runs (registration, consent, PKCE, token).
    const reg = await app.request(`${BASE}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], client_name: 'doc test' }),
    });
    const { client_id } = (await reg.json()) as { client_id: string };
    const verifier = 'v'.repeat(43);
    const challenge = Buffer.from(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)),
    ).toString('base64url');
    const consent = await app.request(`${BASE}/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams({
        response_type: 'code',
        client_id,
        redirect_uri: 'http://127.0.0.1:9/cb',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        capability: 'notes:read',
        key: firstKey,
        action: 'approve',
      }),
    });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const token = await app.request(`${BASE}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id,
        redirect_uri: 'http://127.0.0.1:9/cb',
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    const [grant] = await api.auth.listOAuthGrants();
    expect(grant).toMatchObject({ clientName: 'doc test', scope: { capabilities: ['notes:read'] } });
    expect(await api.auth.revokeOAuthGrant(grant!.id)).toEqual({ revoked: grant!.id });
    expect((await failure(() => api.auth.revokeOAuthGrant(grant!.id))).status).toBe(404);
    expect((await failure(() => api.auth.revokeKey('nope'))).status).toBe(404);
    await api.auth.link();
    expect((await failure(() => api.auth.token())).code).toBe('FORBIDDEN');

    // Notes, folders, search.
    expect((await api.notes.list()).map((n) => n.path)).toEqual(['garden/compost.md', 'plan.md']);
    const created = await api.notes.create({
      path: 'projects/q.md',
      content: '# Q\nLinks [[plan]].',
      frontmatter: { tags: ['x'] },
    });
    expect((await failure(() => api.notes.create({ path: 'plan.md', content: '' }))).code).toBe(
      'NOTE_ALREADY_EXISTS',
    );
    expect((await failure(() => api.notes.create({ path: '../x.md', content: '' }))).code).toBe(
      'INVALID_PATH',
    );
    expect((await failure(() => api.notes.create({ path: 1 } as never))).code).toBe('VALIDATION_ERROR');
    const got = await api.notes.get('projects/q.md');
    expect(got.checksum).toBe(created.checksum);
    expect(
      (await failure(() => api.notes.update('projects/q.md', { content: 'x' }, 'f'.repeat(64)))).status,
    ).toBe(412);
    const updated = await api.notes.update('projects/q.md', { content: '# Q2' }, got.checksum);
    const moved = await api.notes.move(
      'projects/q.md',
      { path: 'projects/r.md', updateLinks: true },
      updated.checksum,
    );
    expect(moved.path).toBe('projects/r.md');
    const patched = await api.notes.patch(
      'projects/r.md',
      { operation: 'append', target: { type: 'heading', path: ['Q2'] }, content: 'more' },
      moved.checksum,
    );
    expect(patched.content).toBe('# Q2\nmore\n');
    expect(
      (
        await failure(() =>
          api.notes.patch('projects/r.md', {
            operation: 'append',
            target: { type: 'heading', path: ['Nope'] },
            content: 'x',
          }),
        )
      ).code,
    ).toBe('TARGET_NOT_FOUND');
    expect(await api.tags()).toContainEqual({ tag: 'x', count: 1 });
    const feed = await api.events();
    expect(feed.events).toEqual([]);
    expect((await api.events(feed.next - 1)).events).toHaveLength(1);
    expect((await api.live.ticket('projects/r.md')).url).toBe('/api/v1/live');
    // Live over requests: a session, an empty run sent, one poll (the hello and sync step), leave.
    const { session } = await api.live.session((await api.live.ticket('projects/r.md')).ticket);
    const live = `${BASE}/api/v1/live/sessions/${session}`;
    const k = { 'x-service-key': firstKey };
    const sent = await fetchFn(`${live}/messages`, {
      method: 'POST',
      headers: { ...k, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(),
    });
    expect(sent.status).toBe(204);
    const polled = await fetchFn(`${live}/messages?after=0`, { headers: k });
    expect(decodeFrames(new Uint8Array(await polled.arrayBuffer()))!.length).toBeGreaterThan(1);
    expect((await fetchFn(live, { method: 'DELETE', headers: k })).status).toBe(204);
    expect((await api.folders.tree()).noteCount).toBe(3);
    expect((await api.folders.tree('garden')).children).toHaveLength(1);
    expect((await failure(() => api.folders.tree('nope'))).code).toBe('FOLDER_NOT_FOUND');
    expect((await api.search('compost', 5))[0]?.path).toBe('garden/compost.md');
    expect((await api.search('compost', 5, 'lexical'))[0]?.path).toBe('garden/compost.md');
    expect(
      (await api.notes.related('garden/compost.md', 3)).every((h) => h.path !== 'garden/compost.md'),
    ).toBe(true);
    await api.notes.remove('projects/r.md');

    // Attachments.
    expect((await api.folders.tree()).children).toContainEqual({
      name: 'seed.png',
      path: 'seed.png',
      type: 'file',
      size: 4,
      contentType: 'image/png',
    });
    const seed = await api.files.get('seed.png');
    expect(new Uint8Array(await seed.arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71]));
    expect((await api.files.get('seed.png', { range: 'bytes=1-2' })).status).toBe(206);
    const file = await api.files.put('pics/a.png', new Uint8Array([1, 2, 3]), { ifNoneMatch: '*' });
    expect(file).toMatchObject({ path: 'pics/a.png', size: 3, contentType: 'image/png' });
    expect(
      (await failure(() => api.files.put('pics/a.png', new Uint8Array(1), { ifNoneMatch: '*' }))).status,
    ).toBe(412);
    const movedFile = await api.files.move('pics/a.png', 'pics/b.png', file.etag);
    expect(movedFile.path).toBe('pics/b.png');
    expect((await api.files.attachmentPath('b.png', 'plan.md')).path).toBe('b.png');
    await api.notes.create({ path: 'embeds.md', content: 'An image: ![[pics/b.png]]\n' });
    expect((await api.notes.get('embeds.md')).links[0]).toMatchObject({ path: 'pics/b.png', type: 'file' });
    const relinked = await api.files.move('pics/b.png', 'pics/c.png', undefined, { updateLinks: true });
    expect(relinked).toMatchObject({ path: 'pics/c.png', rewritten: ['embeds.md'] });
    expect((await api.notes.get('embeds.md')).content).toBe('An image: ![[pics/c.png]]\n');
    expect(await api.files.remove('pics/c.png')).toEqual({ path: 'pics/c.png', deleted: true });
    expect((await api.notes.get('embeds.md')).links[0]).toMatchObject({ path: null, type: 'file' });
    expect((await failure(() => api.files.get('pics/c.png'))).code).toBe('FILE_NOT_FOUND');
    expect((await failure(() => api.notes.get('projects/r.md'))).code).toBe('NOTE_NOT_FOUND');
    // History and trash.
    const versions = await api.history.list('embeds.md');
    expect(versions[0]?.change).toBe('links');
    expect((await api.history.get('embeds.md', versions[1]!.id)).content).toBe('An image: ![[pics/b.png]]\n');
    expect((await api.history.diff('embeds.md', versions[0]!.id, versions[1]!.id)).diff).toContain(
      '+An image',
    );
    await api.history.restore('embeds.md', versions[1]!.id);
    const trashed = await api.trash.list();
    expect(trashed.map((t) => t.path)).toContain('projects/r.md');
    const restoredNote = trashed.find((t) => t.path === 'projects/r.md')!;
    expect(await api.trash.restore(restoredNote.id)).toEqual({ path: 'projects/r.md' });
    const activity = await api.activity(5);
    expect(activity.length).toBe(5);
    expect(activity[0]).toMatchObject({ path: 'projects/r.md', change: 'restore' });
    expect((await failure(() => api.activity(501))).code).toBe('VALIDATION_ERROR');
    const fileItem = (await api.trash.list()).find((t) => t.kind === 'file')!;
    expect(await api.trash.remove(fileItem.id)).toEqual({ deleted: fileItem.id });
    expect((await failure(() => api.trash.remove(fileItem.id))).status).toBe(404);

    // The agent (the local provider).
    expect((await api.agent.status()).provider).toBe('local');
    expect((await api.agent.chat({ message: 'What about compost?', channel: 'web' })).reply).toContain(
      'Compost',
    );

    // Channels: a web conversation, a Telegram delivery, the WhatsApp handshake.
    expect((await api.channels.providers()).map((p) => p.id)).toEqual(['telegram', 'whatsapp', 'web']);
    const web = await api.channels.create({ provider: 'web', name: 'Browser' });
    expect(
      (await api.channels.send(web.channel.id, { message: 'find notes tagged #garden' })).channelId,
    ).toBe(web.channel.id);
    expect(await api.channels.messages(web.channel.id)).toHaveLength(2);
    expect((await api.channels.toggle(web.channel.id)).enabled).toBe(false);
    await api.channels.get(web.channel.id);
    const tg = await api.channels.create({
      provider: 'telegram',
      name: 'Bot',
      credentials: { botToken: '123456789:AAHabcdefghijklmnopqrstuvwxyz' },
    });
    const delivery = {
      update_id: 7,
      message: { message_id: 1, date: 0, chat: { id: 5, type: 'private' }, sticker: {} },
    };
    const hook = await fetchFn(`${BASE}/api/v1/channels/webhook/telegram?secret=${tg.webhookSecret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(delivery),
    });
    expect(hook.status).toBe(200);
    expect(
      (await fetchFn(`${BASE}/api/v1/channels/webhook/telegram?secret=wrong`, { method: 'POST', body: '{}' }))
        .status,
    ).toBe(401);
    const wa = await api.channels.create({
      provider: 'whatsapp',
      name: 'Number',
      credentials: { accessToken: 'EAAGtoken', phoneNumberId: '1065', verifyToken: 'verify-me' },
    });
    const shake = await fetchFn(
      `${BASE}/api/v1/channels/webhook/whatsapp?secret=${wa.webhookSecret}&hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=42`,
    );
    expect(await shake.text()).toBe('42');
    expect((await api.channels.list()).length).toBe(3);
    await api.channels.remove(tg.channel.id);

    // Plugins, and the routes a plugin contributes.
    expect((await api.plugins.catalog()).map((p) => p.id)).toContain('daily-notes');
    const installed = await api.plugins.install({
      id: 'daily-notes',
      config: { timeZone: 'UTC' },
      enabled: true,
    });
    expect(installed.enabled).toBe(true);
    expect((await failure(() => api.plugins.install({ id: '..%2F..' }))).code).toBe('PLUGIN_NOT_FOUND');
    await api.plugins.get('daily-notes');
    await api.plugins.list();
    await api.plugins.runtime();
    expect(await api.plugins.route<{ exists: boolean }>('daily-notes', 'GET', 'today')).toMatchObject({
      exists: false,
    });
    expect(await api.plugins.route<{ created: boolean }>('daily-notes', 'POST', 'today')).toMatchObject({
      created: true,
    });
    expect((await failure(() => api.plugins.route('daily-notes', 'PUT', 'today', {}))).status).toBe(404);
    expect((await failure(() => api.plugins.route('daily-notes', 'DELETE', 'today'))).status).toBe(404);
    await api.plugins.configure('daily-notes', { timeZone: 'Europe/Berlin' });
    expect((await api.plugins.toggle('daily-notes', false)).enabled).toBe(false);
    await api.plugins.remove('daily-notes');

    // The security audit, its configuration and recommendations.
    const audit = await api.security.audit();
    expect(audit.score).toBeGreaterThanOrEqual(0);
    expect((await api.security.recommendations()).recommendations.length).toBe(audit.findings.length);
    expect((await api.security.config()).auth.header).toBe('X-Service-Key');

    // Pages, the document, retired routes, unknown methods.
    for (const p of ['/api/v1/docs', '/api/v1/openapi.json', '/api/v1/agent/tools'])
      await fetchFn(`${BASE}${p}`);
    const keyed = { headers: { 'x-service-key': firstKey } };
    expect((await fetchFn(`${BASE}/api/v1/agent/tools`, keyed)).status).toBe(410);
    expect((await fetchFn(`${BASE}/api/v1/folders`, { method: 'POST', ...keyed })).status).toBe(410);
    await fetchFn(`${BASE}/api/v1/docs/api-reference.js`);

    const doc = (await (await app.request(`${BASE}/api/v1/openapi.json`)).json()) as any;
    const check = answerChecker(doc);
    const problems: string[] = [];
    const covered = new Set<string>();
    for (const x of log) {
      const template = matchTemplate(doc, x.method, x.path);
      if (!template) {
        problems.push(`${x.method} ${x.path} matches no documented path`);
        continue;
      }
      const problem = check(x.method, template, x.status, x.body);
      if (problem) problems.push(problem);
      if (x.status < 300 || x.status === 410 || x.status === 503) covered.add(`${x.method} ${template}`);
    }
    expect(problems).toEqual([]);
    // Every documented operation was exercised (plugin PUT/DELETE routes: no built-in plugin has one;
    // the OAuth endpoints, outside /api/v1 and the typed client, in tests/http/oauth.test.ts).
    const oauth = (r: string) => !r.split(' ')[1]!.startsWith('/api/v1/');
    expect(documentedRoutes(doc).filter((r) => !covered.has(r) && !oauth(r))).toEqual([
      'DELETE /api/v1/plugins/{id}/{route}',
      'POST /api/v1/auth/token',
      // A passkey is verified only with an authenticator: tests/browser/people.test.ts.
      'POST /api/v1/invites/passkey',
      'POST /api/v1/session/passkey',
      'POST /api/v1/session/passkeys',
      'PUT /api/v1/plugins/{id}/{route}',
    ]);
  });

  it('the checker refuses an answer the document does not allow', async () => {
    const { app } = await composedApp();
    const doc = (await (await app.request(`${BASE}/api/v1/openapi.json`)).json()) as any;
    const check = answerChecker(doc);
    const good = { success: true, data: { deleted: 'a.md' } };
    expect(check('DELETE', '/api/v1/notes/{path}', 200, good)).toBeNull();
    expect(
      check('DELETE', '/api/v1/notes/{path}', 200, { success: true, data: { removed: 'a.md' } }),
    ).toMatch(/deleted/);
    expect(check('DELETE', '/api/v1/notes/{path}', 409, good)).toMatch(/does not document/);
    expect(check('GET', '/api/v1/health', 200, { success: true, data: { status: 'great' } })).not.toBeNull();
  });

  it("health's index state is one of the states the document lists: starting, indexing, ready", async () => {
    const { app } = await composedApp();
    const doc = (await (await app.request(`${BASE}/api/v1/openapi.json`)).json()) as any;
    const check = answerChecker(doc);
    const health = (await (await app.request(`${BASE}/api/v1/health`)).json()) as any;
    expect(check('GET', '/api/v1/health', 200, health)).toBeNull();
    const as = (state: string) => ({
      ...health,
      data: { ...health.data, status: 'starting', index: { state, done: 0, total: 0 } },
    });
    for (const state of ['starting', 'indexing', 'ready'])
      expect(check('GET', '/api/v1/health', 200, as(state))).toBeNull();
    expect(check('GET', '/api/v1/health', 200, as('idle'))).not.toBeNull();
  });

  it('jwt mode: the token answer matches the document', async () => {
    const { auth, log, fetchFn, app } = await recorded({
      SERVICE_AUTH_MODE: 'jwt',
      JWT_SECRET: 'a-test-secret-that-is-long-enough-1234',
    });
    const api = createQuireClient({ baseUrl: BASE, apiKey: auth.firstKeyPlain()!, fetch: fetchFn });
    const issued = await api.auth.token();
    const withToken = createQuireClient({ baseUrl: BASE, token: issued.token, fetch: fetchFn });
    expect((await withToken.notes.list()).length).toBe(2);
    const doc = (await (await app.request(`${BASE}/api/v1/openapi.json`)).json()) as any;
    const check = answerChecker(doc);
    for (const x of log)
      expect(check(x.method, matchTemplate(doc, x.method, x.path)!, x.status, x.body)).toBeNull();
    expect(log.map((x) => `${x.method} ${x.path} ${x.status}`)).toEqual([
      'POST /api/v1/auth/token 200',
      'GET /api/v1/notes 200',
    ]);
  });
});
