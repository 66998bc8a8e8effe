import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';

const READ_TOOLS = [
  'get_backlinks',
  'list_notes',
  'list_tags',
  'list_trash',
  'list_versions',
  'read_note',
  'search_notes',
];
const WRITE_TOOLS = [
  'create_note',
  'delete_note',
  'move_note',
  'patch_note',
  'restore_from_trash',
  'restore_version',
  'update_note',
];

async function mcpClient(url: string, headers: Record<string, string>) {
  const client = new Client({ name: 'quire-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Calls a tool; returns its structured content, or `{error}` for a tool error. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, data: r.structuredContent as any };
}

/** Reads a fetch-based event stream and collects its note events. */
function follow(url: string, key: string) {
  const events: { id: number; type: string; data: any }[] = [];
  const ctl = new AbortController();
  const done = (async () => {
    const res = await fetch(`${url}/api/v1/events`, {
      headers: { 'x-service-key': key },
      signal: ctl.signal,
    });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let cut = buf.indexOf('\n\n');
      while (cut >= 0) {
        const f = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const type = /^event: (note\..+)$/m.exec(f)?.[1];
        if (type) {
          events.push({
            id: Number(/^id: (\d+)/m.exec(f)![1]),
            type,
            data: JSON.parse(/^data: (.+)$/m.exec(f)![1]!),
          });
        }
        cut = buf.indexOf('\n\n');
      }
    }
  })().catch(() => {});
  return {
    events,
    stop: () => {
      ctl.abort();
      return done;
    },
  };
}

describe('MCP endpoint and change feed on a running server (direct and through the relay)', () => {
  let s: LiveServer;
  let key: string;
  let relayBase: string;

  beforeAll(async () => {
    s = await liveServer({ PAIRING_MODE: 'relay' });
    key = s.firstKey;
    const setup = await s.setup();
    relayBase = `${s.relayUrl}/r/${setup.serverId}`;
    await mkdir(join(s.vaultDir, 'j'), { recursive: true });
    await writeFile(
      join(s.vaultDir, 'j', 'day.md'),
      '---\ntags: [daily]\n---\n# Day\n\n- one\n\nsee [[target]]\n',
    );
    await writeFile(join(s.vaultDir, 'target.md'), '# Target\n#work\n');
    await until(
      'the condition',
      async () => {
        const r = await fetch(`${s.url}/api/v1/notes`, { headers: { 'x-service-key': key } });
        return ((await r.json()) as any).data.length === 2;
      },
      5000,
    );
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('the SDK client lists and calls every tool directly, with Authorization: Bearer', async () => {
    const client = await mcpClient(`${s.url}/mcp`, { authorization: `Bearer ${key}` });
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const patchTool = tools.find((t) => t.name === 'patch_note')!;
    expect(patchTool.inputSchema.required).toEqual(['path', 'operation', 'target', 'content']);

    const search = await call(client, 'search_notes', { query: 'target' });
    expect(search.data.results.map((r: any) => r.path)).toContain('target.md');
    const list = await call(client, 'list_notes', { limit: 1 });
    expect(list.data.notes.map((n: any) => n.path)).toEqual(['j/day.md']);
    const page2 = await call(client, 'list_notes', { limit: 1, cursor: list.data.nextCursor });
    expect([page2.data.notes[0].path, page2.data.nextCursor]).toEqual(['target.md', undefined]);
    expect((await call(client, 'list_notes', { folder: 'j' })).data.notes.length).toBe(1);
    const read = await call(client, 'read_note', { path: 'j/day.md' });
    expect(read.data).toMatchObject({ path: 'j/day.md', frontmatter: { tags: ['daily'] }, tags: ['daily'] });
    expect(read.data.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect((await call(client, 'get_backlinks', { path: 'target.md' })).data.backlinks).toEqual([
      { path: 'j/day.md', title: 'Day' },
    ]);
    expect((await call(client, 'list_tags', {})).data.tags).toEqual([
      { tag: 'daily', count: 1 },
      { tag: 'work', count: 1 },
    ]);

    const created = await call(client, 'create_note', { path: 'mcp/new.md', content: '# New\n' });
    expect(created.data.path).toBe('mcp/new.md');
    const patched = await call(client, 'patch_note', {
      path: 'j/day.md',
      operation: 'append',
      target: { type: 'heading', path: ['Day'] },
      content: '- two',
      ifMatch: read.data.checksum,
    });
    expect(patched.data.content).toContain('- one\n\nsee [[target]]\n- two\n');
    const stale = await call(client, 'update_note', {
      path: 'j/day.md',
      content: 'x',
      ifMatch: read.data.checksum,
    });
    expect([stale.isError, stale.data.error.code]).toEqual([true, 'PRECONDITION_FAILED']);
    const updated = await call(client, 'update_note', { path: 'mcp/new.md', content: '# Newer\n' });
    expect(updated.data.title).toBe('Newer');
    const moved = await call(client, 'move_note', { path: 'mcp/new.md', to: 'mcp/moved.md' });
    expect(moved.data.path).toBe('mcp/moved.md');
    // History is on by default: the note went to the trash, and MCP lists and restores it.
    expect((await call(client, 'delete_note', { path: 'mcp/moved.md' })).data).toEqual({
      trashId: expect.any(String),
      deleted: 'mcp/moved.md',
    });
    const trash = await call(client, 'list_trash', {});
    const item = trash.data.items.find((t: any) => t.path === 'mcp/moved.md');
    // Authors by device or key name: the client and the key's name, never a raw key id.
    expect(item).toMatchObject({ kind: 'note', author: 'quire-test (first key)' });
    expect(JSON.stringify(trash.data)).not.toMatch(/key:|"by"/);
    expect((await call(client, 'restore_from_trash', { id: item.id })).data).toEqual({
      path: 'mcp/moved.md',
    });
    const versions = await call(client, 'list_versions', { path: 'mcp/moved.md' });
    expect(versions.data.versions[0]).toMatchObject({ change: 'restore', author: item.author });
    expect(JSON.stringify(versions.data)).not.toMatch(/key:|"by"/);
    const back = await call(client, 'restore_version', {
      path: 'mcp/moved.md',
      id: versions.data.versions[1].id,
    });
    expect(back.isError).toBeFalsy();

    // Errors are tool errors with the REST codes, not transport failures.
    const missing = await call(client, 'read_note', { path: 'nope.md' });
    expect([missing.isError, missing.data.error.code]).toEqual([true, 'NOTE_NOT_FOUND']);
    const invalid = await call(client, 'search_notes', { query: 5 });
    expect([invalid.isError, invalid.data.error.code]).toEqual([true, 'VALIDATION_ERROR']);
    const noTarget = await call(client, 'patch_note', {
      path: 'j/day.md',
      operation: 'append',
      target: { type: 'heading', path: ['Nope'] },
      content: 'x',
    });
    expect(noTarget.data.error.code).toBe('TARGET_NOT_FOUND');

    const resources = await client.listResources();
    expect(resources.resources.map((r) => r.uri)).toContain('quire://note/j/day.md');
    const res = await client.readResource({ uri: 'quire://note/target.md' });
    expect(res.contents[0]).toMatchObject({ uri: 'quire://note/target.md', text: '# Target\n#work\n' });
    await client.close();
  });

  it('works through the relay at /r/<serverId>/mcp with X-Service-Key', async () => {
    const client = await mcpClient(`${relayBase}/mcp`, { 'x-service-key': key });
    expect((await client.listTools()).tools.length).toBe(14);
    const read = await call(client, 'read_note', { path: 'target.md' });
    expect(read.data.title).toBe('Target');
    const created = await call(client, 'create_note', { path: 'relayed.md', content: 'via relay' });
    expect(created.data.path).toBe('relayed.md');
    // The session id naming the client comes back through the relay: the version says who.
    const versions = await call(client, 'list_versions', { path: 'relayed.md' });
    expect(versions.data.versions[0].author).toBe('quire-test (first key)');
    await client.close();
  });

  it('401 without a key or with a wrong one, directly and through the relay', async () => {
    for (const url of [`${s.url}/mcp`, `${relayBase}/mcp`]) {
      await expect(mcpClient(url, {})).rejects.toMatchObject({ code: 401 });
      await expect(mcpClient(url, { authorization: 'Bearer quire_sk_wrong' })).rejects.toMatchObject({
        code: 401,
      });
      const raw = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(raw.status).toBe(401);
      expect(((await raw.json()) as any).error.code).toBe('UNAUTHORIZED');
    }
  });

  it('the feed: an outside edit, a REST write, an MCP write and a move each arrive once, in order', async () => {
    const f = follow(s.url, key);
    const h = { 'x-service-key': key, 'content-type': 'application/json' };
    // The stream is open once its first frame arrived; a note event proves it is listening.
    await fetch(`${s.url}/api/v1/notes`, {
      method: 'POST',
      headers: h,
      body: '{"path":"feed/a.md","content":"a"}',
    });
    await until('the condition', () => f.events.length === 1, 5000);
    await writeFile(join(s.vaultDir, 'target.md'), '# Target\nedited outside\n');
    await until('the condition', () => f.events.length === 2, 5000);
    await fetch(`${s.url}/api/v1/notes/${encodeURIComponent('feed/a.md')}`, {
      method: 'PUT',
      headers: h,
      body: '{"content":"a2"}',
    });
    const client = await mcpClient(`${s.url}/mcp`, { 'x-service-key': key });
    await call(client, 'patch_note', {
      path: 'feed/a.md',
      operation: 'append',
      target: { type: 'document' },
      content: 'from mcp',
    });
    await client.close();
    const moved = await fetch(`${s.url}/api/v1/notes/${encodeURIComponent('feed/a.md')}/move`, {
      method: 'POST',
      headers: h,
      body: '{"path":"feed/b.md"}',
    });
    const movedSum = ((await moved.json()) as any).data.checksum;
    await until('the condition', () => f.events.length >= 5, 5000);
    await f.stop();
    const ev = f.events;
    expect(ev.map((e) => [e.type, e.data.path, e.data.from, e.data.external])).toEqual([
      ['note.created', 'feed/a.md', undefined, false],
      ['note.updated', 'target.md', undefined, true],
      ['note.updated', 'feed/a.md', undefined, false],
      ['note.updated', 'feed/a.md', undefined, false],
      ['note.moved', 'feed/b.md', 'feed/a.md', false],
    ]);
    expect(ev.map((e) => e.id)).toEqual([0, 1, 2, 3, 4].map((i) => ev[0]!.id + i));
    expect(ev[4]!.data.checksum).toBe(movedSum);
    // Each event names who made it: the key by its name, MCP by client and key, an outside edit.
    expect(ev.map((e) => e.data.author)).toEqual([
      'first key',
      'another program',
      'first key',
      'quire-test (first key)',
      'first key',
    ]);

    // The long-poll form through the relay sees the same events and waits for the next one.
    const poll = (after: number, wait = 0) =>
      fetch(`${relayBase}/api/v1/events?after=${after}&wait=${wait}`, {
        headers: { 'x-service-key': key, accept: 'application/json' },
      }).then(async (r) => ({ status: r.status, data: ((await r.json()) as any).data }));
    const streamViaRelay = await fetch(`${relayBase}/api/v1/events`, { headers: { 'x-service-key': key } });
    expect([streamViaRelay.status, ((await streamViaRelay.json()) as any).error.code]).toEqual([
      400,
      'VALIDATION_ERROR',
    ]);
    const caught = await poll(ev[0]!.id - 1);
    expect(caught.data.events.map((e: any) => e.id)).toEqual(ev.map((e) => e.id));
    const waiting = poll(caught.data.next, 20);
    await until('the condition', async () => {
      await fetch(`${s.url}/api/v1/notes`, {
        method: 'POST',
        headers: h,
        body: '{"path":"feed/c.md","content":"c"}',
      });
      return true;
    });
    const next = await waiting;
    expect(next.data.events.map((e: any) => [e.type, e.data.path])).toEqual([['note.created', 'feed/c.md']]);
    expect(next.data.next).toBe(caught.data.next + 1);
  });
});

describe('MCP_WRITE=false', () => {
  let s: LiveServer;
  beforeAll(async () => {
    s = await liveServer({ PAIRING_MODE: 'open-port', MCP_WRITE: 'false' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('lists only the read tools and refuses a write tool as a tool error', async () => {
    const client = await mcpClient(`${s.url}/mcp`, { 'x-service-key': s.firstKey });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
    const r = await call(client, 'create_note', { path: 'x.md', content: 'x' });
    expect([r.isError, r.data.error.code]).toEqual([true, 'FORBIDDEN']);
    await client.close();
  });
});
