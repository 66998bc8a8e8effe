/**
 * Scoped keys over the real Node server: a matrix over every route family, directly,
 * through the relay (`/r/<serverId>/...`) and through the read lane; MCP tools and resources.
 * Each capability missing gets 403 FORBIDDEN naming it on that family's writes; a folder-scoped
 * key sees nothing outside its folders (no path, title or tag of a hidden note in any answer).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES, type Capability, type KeyScope } from '../../core/auth/scope.ts';
import { createQuireClient } from '../../sdk/index.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';

/** The vault: Work/ is the scoped key's, Work/private/ and Home/ are hidden from it. */
const VAULT: Record<string, string> = {
  'Work/w.md': '# Work note\n\n#shared #worktag See [[hiddenhome]] and [[hiddenprivate]] and [[w2]].\n',
  'Work/w2.md': '# Second work\n\n#shared Links back to [[w]].\n',
  'Work/private/hiddenprivate.md': '# Secretprivate\n\n#shared #privatetag Points at [[w]] pineapple.\n',
  'Home/hiddenhome.md': '# Secrethome\n\n#shared #hometag Points at [[w]] pineapple.\n',
};
/** Strings no answer to the scoped key may contain. */
const SECRETS = [
  'Home/',
  'Work/private',
  'hiddenhome.md',
  'hiddenprivate.md',
  'Secret',
  'hometag',
  'privatetag',
];

let s: LiveServer;
let base: { direct: string; relay: string };
const keys: Record<string, string> = {};

type Via = 'direct' | 'relay';
async function call(
  via: Via,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const init: RequestInit = { method, headers: { 'x-service-key': key, ...headers } };
  if (body !== undefined) {
    init.body =
      typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body);
    if (!(body instanceof Uint8Array))
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${base[via]}${path}`, init);
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json };
}

async function mint(name: string, scope?: KeyScope): Promise<string> {
  const r = await call('direct', s.firstKey, 'POST', '/api/v1/auth/keys', scope ? { name, scope } : { name });
  expect(r.status, r.text).toBe(201);
  return r.json.data.apiKey;
}

beforeAll(async () => {
  s = await liveServer();
  for (const [p, text] of Object.entries(VAULT)) {
    await mkdir(join(s.vaultDir, p, '..'), { recursive: true });
    await writeFile(join(s.vaultDir, p), text);
  }
  await mkdir(join(s.vaultDir, 'Home'), { recursive: true });
  await writeFile(join(s.vaultDir, 'Home/secretpic.png'), new Uint8Array([137, 80, 78, 71]));
  await writeFile(join(s.vaultDir, 'Work/pic.png'), new Uint8Array([137, 80, 78, 71]));
  const setup = await s.setup();
  base = { direct: s.url, relay: `${s.relayUrl}/r/${setup.serverId}` };
  // The watcher picks the files up.
  await until(
    'the condition',
    async () => {
      const r = await call('direct', s.firstKey, 'GET', '/api/v1/notes');
      return r.json?.data?.length === 4;
    },
    10_000,
  );
  const all = [...CAPABILITIES];
  for (const cap of CAPABILITIES)
    keys[`no-${cap}`] = await mint(`no ${cap}`, { capabilities: all.filter((c) => c !== cap) });
  keys.full = await mint('full');
  keys.ro = await mint('ro', { capabilities: ['notes:read', 'files:read'] });
  keys.work = await mint('work', {
    capabilities: ['notes:read', 'notes:write', 'files:read', 'files:write', 'agent'],
    folders: ['Work/'],
    exclude: ['Work/private/'],
  });
}, 60_000);
afterAll(async () => {
  await s?.stop();
});

/** One write-like request per route family, and the capability it needs. */
const FAMILY_WRITES: [string, Capability, string, string, unknown?][] = [
  ['notes', 'notes:write', 'POST', '/api/v1/notes', { path: 'Work/made-by-matrix.md', content: 'x' }],
  [
    'notes (patch)',
    'notes:write',
    'PATCH',
    '/api/v1/notes/Work/w2.md',
    { operation: 'append', target: { type: 'document' }, content: 'y' },
  ],
  ['trash', 'notes:write', 'POST', '/api/v1/trash/none/restore'],
  ['files', 'files:write', 'PUT', '/api/v1/files/Work/up.png', new Uint8Array([1, 2, 3])],
  ['folders', 'notes:read', 'GET', '/api/v1/folders/tree'],
  ['search', 'notes:read', 'GET', '/api/v1/search?q=work'],
  ['tags', 'notes:read', 'GET', '/api/v1/tags'],
  ['events', 'notes:read', 'GET', '/api/v1/events?after=0'],
  ['files (read)', 'files:read', 'GET', '/api/v1/files/Work/pic.png'],
  ['agent', 'agent', 'POST', '/api/v1/agent/chat', { message: 'hello' }],
  ['plugins', 'admin', 'POST', '/api/v1/plugins/install', { id: 'nope' }],
  ['channels', 'admin', 'POST', '/api/v1/channels', { provider: 'web' }],
  ['keys', 'admin', 'POST', '/api/v1/auth/keys', { name: 'x' }],
  ['security', 'admin', 'GET', '/api/v1/security/audit'],
  ['setup (pair code)', 'admin', 'POST', '/api/v1/auth/pair-code/rotate'],
  ['system', 'admin', 'GET', '/api/v1/system/info'],
];

describe.each(['direct', 'relay'] as const)('capabilities (%s)', (via) => {
  it.each(FAMILY_WRITES)('%s: a key without %s gets 403 naming it', async (_f, cap, method, path, body) => {
    const headers = path.startsWith('/api/v1/events') ? { accept: 'application/json' } : undefined;
    const r = await call(via, keys[`no-${cap}`]!, method, path, body, headers);
    expect(r.status, r.text).toBe(403);
    expect(r.json.error.code).toBe('FORBIDDEN');
    expect(r.json.error.message).toContain(`missing capability ${cap}`);
    // Every other key with the capability passes the check (whatever the route answers then).
    const other = CAPABILITIES.find((c) => c !== cap)!;
    const ok = await call(via, keys[`no-${other}`]!, method, path, body, headers);
    expect(ok.json?.error?.message ?? '', ok.text).not.toContain('missing capability');
  });

  it('a read-only key reads, and every write is refused naming notes:write or files:write', async () => {
    expect((await call(via, keys.ro!, 'GET', '/api/v1/notes/Work/w.md')).status).toBe(200);
    const put = await call(via, keys.ro!, 'PUT', '/api/v1/notes/Work/w.md', { content: 'gone' });
    expect(put.status).toBe(403);
    expect(put.json.error.message).toContain('missing capability notes:write');
    const del = await call(via, keys.ro!, 'DELETE', '/api/v1/notes/Work/w.md');
    expect(del.status).toBe(403);
    const mv = await call(via, keys.ro!, 'POST', '/api/v1/notes/Work/w.md/move', { path: 'Work/x.md' });
    expect(mv.status).toBe(403);
    const file = await call(via, keys.ro!, 'DELETE', '/api/v1/files/Work/pic.png');
    expect(file.json.error.message).toContain('missing capability files:write');
    expect((await call(via, keys.full!, 'GET', '/api/v1/notes/Work/w.md')).json.data.content).toContain(
      'See',
    );
  });

  it('a key cannot mint a key broader than itself', async () => {
    const adminRo = await mint(`admin-ro-${via}`, { capabilities: ['admin', 'notes:read'] });
    const broader = await call(via, adminRo, 'POST', '/api/v1/auth/keys', { name: 'b' });
    expect(broader.status).toBe(403);
    const within = await call(via, adminRo, 'POST', '/api/v1/auth/keys', {
      name: 'w',
      scope: { capabilities: ['notes:read'] },
    });
    expect(within.status).toBe(201);
    expect(within.json.data.scope).toEqual({ capabilities: ['notes:read'] });
  });
});

describe('minting and listing scopes', () => {
  it('the typed client mints a scoped key and lists its scope', async () => {
    const api = createQuireClient({ baseUrl: s.url, apiKey: s.firstKey });
    const scope: KeyScope = { capabilities: ['notes:read'], folders: ['Work/'] };
    const k = await api.auth.mintKey('sdk reader', scope);
    expect(k.scope).toEqual(scope);
    expect((await api.auth.listKeys()).find((x) => x.id === k.id)?.scope).toEqual(scope);
    const reader = createQuireClient({ baseUrl: s.url, apiKey: k.apiKey });
    expect((await reader.notes.list()).map((n) => n.path).every((p) => p.startsWith('Work/'))).toBe(true);
    await expect(reader.notes.create({ path: 'Work/sdk.md', content: 'x' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('GET /auth/keys shows each key scope (null for full access); a bad scope is 400', async () => {
    const list = await call('direct', s.firstKey, 'GET', '/api/v1/auth/keys');
    const byName = Object.fromEntries(list.json.data.map((k: any) => [k.name, k.scope]));
    expect(byName['first key']).toBeNull();
    expect(byName.full).toBeNull();
    expect(byName.ro).toEqual({ capabilities: ['notes:read', 'files:read'] });
    expect(byName.work).toEqual({
      capabilities: ['notes:read', 'notes:write', 'files:read', 'files:write', 'agent'],
      folders: ['Work/'],
      exclude: ['Work/private/'],
    });
    for (const scope of [
      { capabilities: [] },
      { capabilities: ['notes:fly'] },
      { capabilities: ['notes:read'], folders: ['../x/'] },
      { capabilities: ['notes:read'], folders: ['/abs/'] },
      { capabilities: ['notes:read'], extra: 1 },
      'all',
    ]) {
      const r = await call('direct', s.firstKey, 'POST', '/api/v1/auth/keys', { name: 'bad', scope });
      expect([r.status, r.json.error.code], JSON.stringify(scope)).toEqual([400, 'VALIDATION_ERROR']);
    }
  });
});

/** Asserts nothing hidden is named in `text`. */
const clean = (what: string, text: string) => {
  for (const secret of SECRETS) expect(text, `${what} names ${secret}`).not.toContain(secret);
};

describe.each(['direct', 'relay'] as const)('folder scope (%s)', (via) => {
  const w = () => keys.work!;

  it('lists, tree, tags, search, related and the note itself hide everything outside', async () => {
    const list = await call(via, w(), 'GET', '/api/v1/notes');
    expect(list.json.data.map((n: any) => n.path)).toEqual(
      expect.arrayContaining(['Work/w.md', 'Work/w2.md']),
    );
    clean('list', list.text);
    const page = await call(via, w(), 'GET', '/api/v1/notes?limit=1&fields=path,backlinks');
    clean('list page', page.text);
    // The workspace's lean list: a full key's answer is encoded and kept for every key without
    // folder limits; a folder-limited key asking the same shape gets its own.
    const lean = '/api/v1/notes?fields=path,title,tags,aliases';
    const shared = await call(via, keys.full!, 'GET', lean);
    expect(shared.text).toContain('Home/');
    const own = await call(via, w(), 'GET', lean);
    expect(own.json.data.map((n: any) => n.path)).toEqual(expect.arrayContaining(['Work/w.md']));
    clean('lean list', own.text);
    const tree = await call(via, w(), 'GET', '/api/v1/folders/tree');
    expect(tree.status).toBe(200);
    expect(tree.text).toContain('Work/w.md');
    expect(tree.text).toContain('Work/pic.png');
    clean('tree', tree.text);
    expect((await call(via, w(), 'GET', '/api/v1/folders/tree/Home')).status).toBe(404);
    const tags = await call(via, w(), 'GET', '/api/v1/tags');
    expect(tags.json.data).toContainEqual({ tag: 'shared', count: expect.any(Number) });
    expect(tags.json.data.find((t: any) => t.tag === 'shared').count).toBeLessThanOrEqual(3);
    clean('tags', tags.text);
    const search = await call(via, w(), 'GET', '/api/v1/search?q=pineapple');
    expect(search.json.data).toEqual([]);
    const search2 = await call(via, w(), 'GET', '/api/v1/search?q=points+secret+work+shared');
    clean('search', search2.text);
    const related = await call(via, w(), 'GET', '/api/v1/notes/Work/w.md/related');
    clean('related', related.text);
    const note = await call(via, w(), 'GET', '/api/v1/notes/Work/w.md');
    expect(note.status).toBe(200);
    // Links to hidden notes read as unresolved; hidden backlinks are gone.
    const links = note.json.data.links.map((l: any) => [l.target, l.path]);
    expect(links).toContainEqual(['hiddenhome', null]);
    expect(links).toContainEqual(['hiddenprivate', null]);
    expect(links).toContainEqual(['w2', 'Work/w2.md']);
    expect(note.json.data.backlinks.map((b: any) => b.path)).toEqual(['Work/w2.md']);
    clean('note', note.text);
    // A full key sees the same note with every link resolved.
    const full = await call(via, keys.full!, 'GET', '/api/v1/notes/Work/w.md');
    expect(full.json.data.backlinks).toHaveLength(3);
  });

  it('a hidden note reads as missing (404 like a note that does not exist); a write there is 403', async () => {
    const hidden = await call(via, w(), 'GET', '/api/v1/notes/Home/hiddenhome.md');
    const missing = await call(via, w(), 'GET', '/api/v1/notes/Work/nothing-here.md');
    expect([hidden.status, hidden.json.error.code]).toEqual([404, 'NOTE_NOT_FOUND']);
    expect([missing.status, missing.json.error.code]).toEqual([404, 'NOTE_NOT_FOUND']);
    expect((await call(via, w(), 'GET', '/api/v1/notes/Work/private/hiddenprivate.md')).status).toBe(404);
    expect((await call(via, w(), 'GET', '/api/v1/files/Home/secretpic.png')).status).toBe(404);
    expect((await call(via, w(), 'GET', '/api/v1/files/Work/pic.png')).status).toBe(200);
    expect((await call(via, w(), 'HEAD', '/api/v1/files/Home/secretpic.png')).status).toBe(404);
    expect((await call(via, w(), 'GET', '/api/v1/notes/Home/hiddenhome.md/versions')).text).not.toContain(
      'Secret',
    );
    const put = await call(via, w(), 'PUT', '/api/v1/notes/Home/hiddenhome.md', { content: 'mine' });
    expect([put.status, put.json.error.code]).toEqual([403, 'FORBIDDEN']);
    const mv = await call(via, w(), 'POST', '/api/v1/notes/Work/w2.md/move', { path: 'Home/w2.md' });
    expect(mv.status).toBe(403);
    const up = await call(via, w(), 'PUT', '/api/v1/files/Home/x.png', new Uint8Array([1]));
    expect(up.status).toBe(403);
    const climb = await call(via, w(), 'GET', '/api/v1/notes/Work/..%2FHome/hiddenhome.md');
    expect(climb.status).toBeGreaterThanOrEqual(400);
    clean('climb', climb.text);
    // Admin work needs the whole vault.
    expect((await call(via, w(), 'GET', '/api/v1/auth/keys')).status).toBe(403);
  });

  it('a move with updateLinks rewrites links only in notes the key sees', async () => {
    const n = (name: string) => `${name}-${via}`;
    for (const [path, content] of [
      [`Work/${n('mvtarget')}.md`, '# Target\n'],
      [`Work/${n('mvseen')}.md`, `Links to [[${n('mvtarget')}]].\n`],
      [`Home/${n('mvhidden')}.md`, `Secret link to [[${n('mvtarget')}]].\n`],
    ]) {
      expect((await call('direct', keys.full!, 'POST', '/api/v1/notes', { path, content })).status).toBe(201);
    }
    const mv = await call(via, w(), 'POST', `/api/v1/notes/Work/${n('mvtarget')}.md/move`, {
      path: `Work/moved/${n('mvnew')}.md`,
      updateLinks: true,
    });
    expect(mv.status).toBe(200);
    clean('move', mv.text);
    expect(await readFile(join(s.vaultDir, `Work/${n('mvseen')}.md`), 'utf8')).toContain(n('mvnew'));
    // The hidden note is a write outside the key's folders: left as it was.
    expect(await readFile(join(s.vaultDir, `Home/${n('mvhidden')}.md`), 'utf8')).toBe(
      `Secret link to [[${n('mvtarget')}]].\n`,
    );
  });

  it('the change feed and the trash show only the key folders', async () => {
    const start = (
      await call(via, w(), 'GET', '/api/v1/events?wait=0', undefined, { accept: 'application/json' })
    ).json.data.next;
    await call('direct', keys.full!, 'POST', '/api/v1/notes', {
      path: `Home/feed-${via}.md`,
      content: 'Secret',
    });
    await call('direct', keys.full!, 'POST', '/api/v1/notes', { path: `Work/feed-${via}.md`, content: 'ok' });
    await call('direct', keys.full!, 'DELETE', `/api/v1/notes/Home/feed-${via}.md`);
    const feed = await until(
      'the condition',
      async () => {
        const r = await call(via, w(), 'GET', `/api/v1/events?after=${start}&wait=1`, undefined, {
          accept: 'application/json',
        });
        return r.json.data.events.length > 0 ? r : null;
      },
      10_000,
    );
    expect(feed!.json.data.events.map((e: any) => e.data.path)).toEqual([`Work/feed-${via}.md`]);
    clean('feed', feed!.text);
    const trash = await call(via, w(), 'GET', '/api/v1/trash');
    expect(trash.status).toBe(200);
    clean('trash', trash.text);
    expect((await call(via, keys.full!, 'GET', '/api/v1/trash')).text).toContain(`Home/feed-${via}.md`);
  });

  it('the agent searches and cites only inside the folders', async () => {
    const r = await call(via, w(), 'POST', '/api/v1/agent/chat', {
      message: 'what points at the work note? pineapple',
    });
    expect(r.status, r.text).toBe(200);
    clean('agent', r.text);
  });
});

describe('change feed stream', () => {
  it('streams only the events of the key folders', async () => {
    const ctl = new AbortController();
    const res = await fetch(`${s.url}/api/v1/events`, {
      headers: { 'x-service-key': keys.work! },
      signal: ctl.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let text = '';
    // The stream is open once its first frame (": ready") arrived.
    while (!text.includes('ready')) text += dec.decode((await reader.read()).value, { stream: true });
    await call('direct', keys.full!, 'POST', '/api/v1/notes', {
      path: 'Home/stream-secret.md',
      content: 'x',
    });
    await call('direct', keys.full!, 'POST', '/api/v1/notes', { path: 'Work/stream-ok.md', content: 'x' });
    while (!text.includes('Work/stream-ok.md'))
      text += dec.decode((await reader.read()).value, { stream: true });
    ctl.abort();
    expect(text).not.toContain('stream-secret');
    clean('stream', text);
  });
});

describe('read lane', () => {
  it('never answers a scoped key from the shared note cache', async () => {
    // A full key fills the cache with the whole note (and the lane answers its next read).
    for (let i = 0; i < 3; i++) {
      const full = await call('direct', keys.full!, 'GET', '/api/v1/notes/Work/w.md');
      expect(full.json.data.backlinks).toHaveLength(3);
    }
    // The scoped key, known to the lane after its first request, still gets its own view.
    for (let i = 0; i < 3; i++) {
      const r = await call('direct', keys.work!, 'GET', '/api/v1/notes/Work/w.md');
      expect(r.json.data.backlinks.map((b: any) => b.path)).toEqual(['Work/w2.md']);
      clean('lane', r.text);
      const hidden = await call('direct', keys.work!, 'GET', '/api/v1/notes/Home/hiddenhome.md');
      expect(hidden.status).toBe(404);
    }
    // And the scoped view never poisoned the cache for the full key.
    const after = await call('direct', keys.full!, 'GET', '/api/v1/notes/Work/w.md');
    expect(after.json.data.backlinks).toHaveLength(3);
  });
});

async function mcp(url: string, key: string) {
  const client = new Client({ name: 'scope-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { 'x-service-key': key } },
    }),
  );
  return client;
}

describe.each(['direct', 'relay'] as const)('MCP (%s)', (via) => {
  it('a read-only key lists no write tools, and a write tool call is refused', async () => {
    const c = await mcp(base[via], keys.ro!);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toContain('read_note');
      expect(names).not.toContain('create_note');
      expect(names).not.toContain('restore_from_trash');
      const r = await c.callTool({ name: 'create_note', arguments: { path: 'Work/mcp.md', content: 'x' } });
      expect(r.isError).toBe(true);
      expect((r.structuredContent as any).error.code).toBe('FORBIDDEN');
    } finally {
      await c.close();
    }
    const full = await mcp(base[via], keys.full!);
    try {
      expect((await full.listTools()).tools.map((t) => t.name)).toContain('create_note');
    } finally {
      await full.close();
    }
  });

  it('a folder key sees only its folders in tools and resources', async () => {
    const c = await mcp(base[via], keys.work!);
    try {
      const res = await c.listResources();
      expect(res.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['Work/w.md']));
      clean('resources', JSON.stringify(res));
      await expect(c.readResource({ uri: 'quire://note/Home/hiddenhome.md' })).rejects.toThrow(/No note/);
      for (const [name, args] of [
        ['list_notes', {}],
        ['list_tags', {}],
        ['search_notes', { query: 'pineapple secret points' }],
        ['read_note', { path: 'Work/w.md' }],
        ['get_backlinks', { path: 'Work/w.md' }],
        ['list_trash', {}],
      ] as const) {
        const r = await c.callTool({ name, arguments: args });
        expect(r.isError ?? false, name).toBe(false);
        clean(name, JSON.stringify(r.structuredContent));
      }
      const hidden = await c.callTool({ name: 'read_note', arguments: { path: 'Home/hiddenhome.md' } });
      expect((hidden.structuredContent as any).error.code).toBe('NOTE_NOT_FOUND');
      const write = await c.callTool({
        name: 'create_note',
        arguments: { path: 'Home/mcp.md', content: 'x' },
      });
      expect((write.structuredContent as any).error.code).toBe('FORBIDDEN');
    } finally {
      await c.close();
    }
  });
});
