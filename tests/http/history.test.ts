import { describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { callMcpTool } from '../../adapters/mcp/tools.ts';
import { memoryFileStore } from '../../adapters/store/memory-file-store.ts';
import { memoryHistoryStore } from '../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { noteTools } from '../../core/agent/tools.ts';
import { createCore } from '../../core/create-core.ts';
import { createFileService } from '../../core/files/service.ts';
import { authorOf } from '../../core/history/author.ts';
import { pluginNotes } from '../../core/plugins/host.ts';
import type { Authenticator } from '../../core/ports.ts';
import { requester } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';

/** A core with history over memory stores and an app where any key is `key:<the key>`. */
async function setup(files: Record<string, string> = {}) {
  let now = 1_700_000_000_000;
  const clock = { now: () => now++ };
  const store = memoryNoteStore({ files });
  const history = memoryHistoryStore();
  const core = createCore({ store, clock, state: memoryStateStore(), logger: silentLogger, history });
  await core.load();
  const authenticator: Authenticator = {
    async authenticate(creds) {
      return { id: creds.apiKey ?? 'anon', method: 'api-key' };
    },
  };
  const app = createApp({ notes: core.notes, version: 't', clock, logger: silentLogger, authenticator });
  const send = requester(app);
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send(method, path, { body, headers: { 'x-service-key': 'alice', ...headers } });
  return { core, store, history, call };
}

describe('trash and history over HTTP', () => {
  it('delete then restore gives identical bytes at the original path, and a new path when taken', async () => {
    const text = '\ufeff---\ntitle: X\n---\n# Héllo\r\nbody\n';
    const { call, store } = await setup({ 'a.md': text });
    const original = await store.read('a.md');
    const del = await call('DELETE', '/api/v1/notes/a.md');
    expect(del.status).toBe(200);
    expect(await store.read('a.md')).toBeNull();
    const trash = await call('GET', '/api/v1/trash');
    expect(trash.json.data).toMatchObject([{ path: 'a.md', kind: 'note', by: 'key:alice' }]);
    expect((await call('GET', '/api/v1/notes')).json.data.map((n: { path: string }) => n.path)).toEqual([]);
    const id = trash.json.data[0].id;
    const back = await call('POST', `/api/v1/trash/${id}/restore`);
    expect(back.json.data).toEqual({ path: 'a.md' });
    expect(await store.read('a.md')).toEqual(original);
    expect((await call('GET', '/api/v1/trash')).json.data).toEqual([]);
    // Taken: deleted again, a new a.md created, then restored beside it.
    await call('DELETE', '/api/v1/notes/a.md');
    await call('POST', '/api/v1/notes', { path: 'a.md', content: 'new' });
    const id2 = (await call('GET', '/api/v1/trash')).json.data[0].id;
    const beside = await call('POST', `/api/v1/trash/${id2}/restore`);
    expect(beside.json.data).toEqual({ path: 'a (restored).md' });
    expect(await store.read('a (restored).md')).toEqual(original);
    expect(new TextDecoder().decode((await store.read('a.md'))!)).toBe('new');
    expect((await call('POST', `/api/v1/trash/${id2}/restore`)).status).toBe(404);
  });

  it('every REST write leaves a version with its author and kind; diff and restore with If-Match', async () => {
    const { call } = await setup();
    await call('POST', '/api/v1/notes', { path: 'n.md', content: 'one\ntwo\nthree\n' });
    const put = await call('PUT', '/api/v1/notes/n.md', { content: 'one\n2\nthree\n' });
    await call(
      'PATCH',
      '/api/v1/notes/n.md',
      { operation: 'append', target: { type: 'document' }, content: 'four\n' },
      { 'x-service-key': 'bob' },
    );
    const res = await call('GET', '/api/v1/notes/n.md/versions');
    if (!res.json?.data) throw new Error(res.text);
    const list = res.json.data;
    expect(list.map((v: { change: string; by: string }) => `${v.change}:${v.by}`)).toEqual([
      'patch:key:bob',
      'update:key:alice',
      'create:key:alice',
    ]);
    const [, upd, created] = list;
    const one = (await call('GET', `/api/v1/notes/n.md/versions/${created.id}`)).json.data;
    expect(one.content).toBe('one\ntwo\nthree\n');
    const diff = (await call('GET', `/api/v1/notes/n.md/versions/${upd.id}?diff=${created.id}`)).json.data
      .diff;
    expect(diff).toContain('-two\n+2');
    expect(diff).toMatch(/^--- n\.md@/);
    const stale = await call('POST', `/api/v1/notes/n.md/versions/${created.id}/restore`, undefined, {
      'if-match': `"${put.json.data.checksum}"`,
    });
    expect(stale.status).toBe(412);
    const cur = (await call('GET', '/api/v1/notes/n.md')).json.data.checksum;
    const ok = await call('POST', `/api/v1/notes/n.md/versions/${created.id}/restore`, undefined, {
      'if-match': `"${cur}"`,
    });
    expect(ok.status).toBe(200);
    expect((await call('GET', '/api/v1/notes/n.md')).json.data.content).toBe('one\ntwo\nthree\n');
    const after = (await call('GET', '/api/v1/notes/n.md/versions')).json.data;
    expect(after[0]).toMatchObject({ change: 'restore', by: 'key:alice', checksum: created.checksum });
    expect((await call('GET', '/api/v1/notes/n.md/versions/nope')).status).toBe(404);
  });

  it('?diff=current compares whole texts: a one-line edit under frontmatter shows that line alone', async () => {
    const fm = '---\naliases: [Start]\npermalink: start\n---\n';
    const { call } = await setup({ 'f.md': `${fm}# F\n\nold line\n` });
    await call('PUT', '/api/v1/notes/f.md', { content: `${fm}# F\n\nnew line\n` });
    const [, first] = (await call('GET', '/api/v1/notes/f.md/versions')).json.data;
    const d = (await call('GET', `/api/v1/notes/f.md/versions/${first.id}?diff=current`)).json.data;
    expect(d.frontmatter).toBe('included');
    const changed = d.diff.split('\n').filter((l: string) => /^[-+](?![-+])/.test(l));
    expect(changed).toEqual(['-new line', '+old line']);
    expect(d.diff).not.toMatch(/^[-+](aliases|permalink)/m);
  });

  it('names authors for people: a key by its name, a revoked key by its id, MCP by client and key', () => {
    const known: Record<string, string> = {
      k1: 'browser-direct',
      psn_a: 'Ada',
      k2: 'laptop',
    };
    const names = (id: string) => known[id];
    expect(authorOf('key:k1', names)).toBe('browser-direct');
    expect(authorOf('person:psn_a', names)).toBe('Ada');
    expect(authorOf('person:psn_gone', names)).toBe('person psn_gone');
    expect(authorOf('person:psn_a (key:k2)', names)).toBe('Ada (laptop)');
    expect(authorOf('person:psn_a (device:Firefox on Windows)', names)).toBe('Ada (Firefox on Windows)');
    expect(authorOf('person:psn_a (key:gone)', names)).toBe('Ada');
    expect(authorOf('mcp:claude (person:psn_a (key:k2))', names)).toBe('claude (Ada (laptop))');
    expect(authorOf('key:gone', names)).toBe('key gone');
    expect(authorOf('mcp:claude (key:k1)', names)).toBe('claude (browser-direct)');
    expect(authorOf('outside', names)).toBe('another program');
    expect(authorOf('agent', names)).toBe('agent');
    expect(authorOf('jwt:sub-1', names)).toBe('jwt sub-1');
  });

  it('history follows a move, and a move with link rewrites records the rewritten notes', async () => {
    const { call } = await setup({ 'a.md': 'A', 'b.md': 'see [[a]]' });
    await call('PUT', '/api/v1/notes/a.md', { content: 'A2' });
    const moved = await call('POST', '/api/v1/notes/a.md/move', { path: 'z/c.md', updateLinks: true });
    expect(moved.status).toBe(200);
    const list = (await call('GET', '/api/v1/notes/z/c.md/versions')).json.data;
    expect(list.map((v: { change: string }) => v.change)).toEqual(['move', 'update', 'baseline']);
    expect((await call('GET', '/api/v1/notes/a.md/versions')).json.data).toEqual([]);
    const b = (await call('GET', '/api/v1/notes/b.md/versions')).json.data;
    expect(b.map((v: { change: string; by: string }) => `${v.change}:${v.by}`)).toEqual([
      'links:key:alice',
      'baseline:outside',
    ]);
  });

  it('MCP, the agent and plugins write as themselves; MCP lists and restores', async () => {
    const { core } = await setup({ 'm.md': 'm' });
    const notes = core.notes;
    await callMcpTool(notes, true, 'update_note', { path: 'm.md', content: 'm2' });
    await core.agent.tools();
    const versions = (await callMcpTool(notes, true, 'list_versions', { path: 'm.md' })).structuredContent
      .versions as { id: string; author: string; change: string }[];
    expect(versions.map((v) => `${v.change}:${v.author}`)).toEqual([
      'update:mcp',
      'baseline:another program',
    ]);
    await callMcpTool(notes, true, 'delete_note', { path: 'm.md' });
    const items = (await callMcpTool(notes, true, 'list_trash', {})).structuredContent.items as {
      id: string;
      author: string;
    }[];
    expect(items[0]?.author).toBe('mcp');
    const r = await callMcpTool(notes, true, 'restore_from_trash', { id: items[0]!.id });
    expect(r.structuredContent).toEqual({ path: 'm.md' });
    const v = await callMcpTool(notes, true, 'restore_version', { path: 'm.md', id: versions[1]!.id });
    expect(v.isError).toBeUndefined();
    expect((await notes.get('m.md')).content).toBe('m');
    // The agent's write tools and a plugin's notes API write as themselves.
    const tools = noteTools(notes);
    const run = (name: string, input: Record<string, unknown>) =>
      (tools.find((t) => t.name === name)!.run as (i: unknown) => Promise<unknown>)(input);
    await run('create_note', { path: 'agent.md', content: 'by the agent' });
    await run('append_to_note', { path: 'agent.md', text: 'more' });
    expect(notes.history!.list('agent.md').map((x) => `${x.change}:${x.by}`)).toEqual([
      'patch:agent',
      'create:agent',
    ]);
    const plugin = pluginNotes(notes, 'daily-notes', ['notes:write']);
    const made = await plugin.create('plug.md', 'p1');
    await plugin.update('plug.md', 'p2', made.checksum);
    expect(notes.history!.list('plug.md').map((x) => `${x.change}:${x.by}`)).toEqual([
      'update:plugin:daily-notes',
      'create:plugin:daily-notes',
    ]);
  });

  it('a malformed escape in any route parameter is a 400 in the envelope, never a 500 (URIError)', async () => {
    let now = 1_700_000_000_000;
    const clock = { now: () => now++ };
    const history = memoryHistoryStore();
    const core = createCore({
      store: memoryNoteStore({ files: { 'Work/b.md': 'b' } }),
      clock,
      state: memoryStateStore(),
      logger: silentLogger,
      history,
    });
    await core.load();
    await core.notes.update('Work/b.md', { content: 'b2' });
    const files = createFileService({ store: memoryFileStore({ files: { 'a.png': 'x' } }), clock });
    const authenticator: Authenticator = {
      async authenticate(creds) {
        return { id: creds.apiKey ?? 'anon', method: 'api-key' };
      },
    };
    const app = createApp({
      notes: core.notes,
      files,
      version: 't',
      clock,
      logger: silentLogger,
      authenticator,
    });
    const send = requester(app);
    const id = core.notes.history!.list('Work/b.md')[0]!.id;
    for (const bad of ['%E0%A4%A', '%ff', '%', '%E0%A4', 'a%zz']) {
      for (const [method, path] of [
        ['GET', `/api/v1/notes/Work%2Fb.md/versions/${bad}`],
        ['POST', `/api/v1/notes/Work%2Fb.md/versions/${bad}/restore`],
        ['GET', `/api/v1/notes/Work/b.md/versions/${bad}`],
        ['GET', `/api/v1/notes/${bad}/versions/${id}`],
        ['GET', `/api/v1/notes/Work/${bad}.md`],
        ['PUT', `/api/v1/notes/Work/${bad}.md`],
        ['DELETE', `/api/v1/notes/Work/${bad}.md`],
        ['PATCH', `/api/v1/notes/Work/${bad}.md`],
        ['GET', `/api/v1/files/${bad}.png`],
        ['PUT', `/api/v1/files/${bad}.png`],
        ['DELETE', `/api/v1/files/${bad}.png`],
        ['POST', `/api/v1/trash/${bad}/restore`],
        ['DELETE', `/api/v1/trash/${bad}`],
        ['GET', `/api/v1/tags/${bad}`],
        ['GET', `/api/v1/folders/${bad}`],
      ] as const) {
        const r = await send(method, path, {
          headers: { 'x-service-key': 'alice' },
          body: method === 'PUT' || method === 'PATCH' ? { content: 'x' } : undefined,
        });
        expect(r.status, `${method} ${path}`).toBe(400);
        expect(r.json, `${method} ${path}`).toMatchObject({
          success: false,
          error: { code: 'INVALID_PATH' },
        });
      }
    }
    // Well-formed escapes still reach their routes.
    expect(
      (
        await send('GET', `/api/v1/notes/Work%2Fb.md/versions/${encodeURIComponent(id)}`, {
          headers: { 'x-service-key': 'alice' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await send('GET', '/api/v1/notes/Work%2Fb.md', { headers: { 'x-service-key': 'alice' } })).status,
    ).toBe(200);
  });
});
