/**
 * Security review, fourth round, over the real Node server (history on):
 * - a key with notes:write but not notes:read learns nothing by writing (REST and MCP): no
 *   content, frontmatter, title, links, backlinks, no checksum of bytes it did not give, no
 *   current checksum in a 412; a PATCH that must find a target needs notes:read;
 * - links resolve among the notes a folder key sees: a hidden `plan.md` neither wins `[[plan]]`
 *   over the visible `Work/probe/plan.md` nor shows; backlinks follow;
 * - deleting a trash item for good is an admin action (docs/reference/history.md).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyScope } from '../../core/auth/scope.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';

const NOTE = '---\nstatus: fmsecret\n---\n# Titlesecret\n\nBodysecret [[linked]]\n\n## Tasks\n\n- one\n';
const VAULT: Record<string, string> = {
  'Work/note.md': NOTE,
  'Work/linked.md': '# Linkedsecret\n\nSee [[note]] and [[fresh]].\n',
  'Work/probe/linker.md': '# Linker\n\nThe plan: [[plan]].\n',
  'Work/probe/plan.md': '# Visible plan\n',
  'plan.md': '# Hiddenplan\n',
};
/** What no answer to the write-only key may hold. */
const SECRETS = ['fmsecret', 'Titlesecret', 'Bodysecret', 'Tasks', 'Linkedsecret', 'Work/linked.md'];

let s: LiveServer;
const keys: Record<string, string> = {};

async function call(key: string, method: string, path: string, body?: unknown, headers = {}) {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: {
      'x-service-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json, etag: res.headers.get('etag') };
}

async function mint(name: string, scope: KeyScope): Promise<string> {
  const r = await call(s.firstKey, 'POST', '/api/v1/auth/keys', { name, scope });
  expect(r.status, r.text).toBe(201);
  return r.json.data.apiKey;
}

/** The current checksum of `path`, as the admin key reads it. */
async function checksum(path: string): Promise<string> {
  const r = await call(s.firstKey, 'GET', `/api/v1/notes/${path}`);
  expect(r.status, r.text).toBe(200);
  return r.json.data.checksum;
}

/** Fails when `text` holds a secret or one of `sums`. */
function clean(what: string, text: string, sums: string[] = []) {
  for (const x of [...SECRETS, ...sums]) expect(text.includes(x), `${what} holds ${x}: ${text}`).toBe(false);
}

async function mcp(key: string) {
  const client = new Client({ name: 'round4', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      requestInit: { headers: { 'x-service-key': key } },
    }),
  );
  return client;
}

beforeAll(async () => {
  s = await liveServer();
  for (const [p, text] of Object.entries(VAULT)) {
    await mkdir(join(s.vaultDir, p, '..'), { recursive: true });
    await writeFile(join(s.vaultDir, p), text);
  }
  await s.setup();
  await until(
    'the vault indexed',
    async () => (await call(s.firstKey, 'GET', '/api/v1/notes')).json?.data?.length === 5,
    10_000,
  );
  keys.wo = await mint('write-only', { capabilities: ['notes:write'], folders: ['Work/'] });
  keys.work = await mint('work', { capabilities: ['notes:read', 'notes:write'], folders: ['Work/'] });
  keys.writer = await mint('writer', { capabilities: ['notes:read', 'notes:write', 'files:write'] });
}, 60_000);
afterAll(async () => {
  await s?.stop();
});

describe('a write-only key (REST)', () => {
  it('cannot read, and a move to the same path or an empty append tells it nothing', async () => {
    expect((await call(keys.wo!, 'GET', '/api/v1/notes/Work/note.md')).status).toBe(403);
    const sum = await checksum('Work/note.md');
    const moved = await call(keys.wo!, 'POST', '/api/v1/notes/Work/note.md/move', { path: 'Work/note.md' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.data).toMatchObject({ path: 'Work/note.md', withheld: true, content: '' });
    clean('move to itself', moved.text, [sum]);
    expect(moved.etag).toBeNull();
    const patched = await call(keys.wo!, 'PATCH', '/api/v1/notes/Work/note.md', {
      operation: 'append',
      target: { type: 'document' },
      content: '',
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data.withheld).toBe(true);
    clean('empty append', patched.text, [sum]);
    expect(patched.etag).toBeNull();
  });

  it('a PATCH that writes tells it neither the content nor the new checksum', async () => {
    const r = await call(keys.wo!, 'PATCH', '/api/v1/notes/Work/note.md', {
      operation: 'append',
      target: { type: 'document' },
      content: '\nadded line\n',
    });
    expect(r.status, r.text).toBe(200);
    clean('append', r.text, [await checksum('Work/note.md')]);
    expect(await readFile(join(s.vaultDir, 'Work/note.md'), 'utf8')).toContain('added line');
  });

  it('a PATCH that must find a heading, block or frontmatter key needs notes:read', async () => {
    for (const target of [
      { type: 'heading', path: ['Tasks'] },
      { type: 'heading', path: ['Nothere'] },
      { type: 'block', id: 'abc' },
      { type: 'frontmatter', key: 'status' },
    ]) {
      const r = await call(keys.wo!, 'PATCH', '/api/v1/notes/Work/note.md', {
        operation: 'append',
        target,
        content: 'x',
      });
      expect(r.status, r.text).toBe(403);
      expect(r.json.error.message).toContain('notes:read');
      clean('targeted patch', r.text);
    }
  });

  it('a 412 leaves out the current checksum (PUT, PATCH, move, DELETE)', async () => {
    const sum = await checksum('Work/note.md');
    const wrong = { 'if-match': '"0000"' };
    const answers = [
      await call(keys.wo!, 'PUT', '/api/v1/notes/Work/note.md', { content: 'guess', merge: false }, wrong),
      await call(
        keys.wo!,
        'PATCH',
        '/api/v1/notes/Work/note.md',
        { operation: 'append', target: { type: 'document' }, content: 'x' },
        wrong,
      ),
      await call(keys.wo!, 'POST', '/api/v1/notes/Work/note.md/move', { path: 'Work/moved.md' }, wrong),
      await call(keys.wo!, 'DELETE', '/api/v1/notes/Work/note.md', undefined, wrong),
    ];
    for (const r of answers) {
      expect(r.status, r.text).toBe(412);
      expect(r.json.error.code).toBe('PRECONDITION_FAILED');
      clean('412', r.text, [sum]);
    }
    // The key that may read still gets it.
    const reader = await call(
      keys.work!,
      'PUT',
      '/api/v1/notes/Work/note.md',
      { content: 'g', merge: false },
      wrong,
    );
    expect(reader.status).toBe(412);
    expect(reader.text).toContain(sum);
  });

  it('a PUT: the checksum only when it gave every byte (its own frontmatter)', async () => {
    const kept = await call(keys.wo!, 'PUT', '/api/v1/notes/Work/note.md', { content: 'new body\n' });
    expect(kept.status, kept.text).toBe(200);
    // The note's frontmatter block was kept: bytes the key never gave.
    expect(await readFile(join(s.vaultDir, 'Work/note.md'), 'utf8')).toContain('fmsecret');
    clean('PUT keeping the block', kept.text, [await checksum('Work/note.md')]);
    expect(kept.json.data.checksum).toBe('');
    const whole = await call(keys.wo!, 'PUT', '/api/v1/notes/Work/note.md', {
      content: 'all mine\n',
      frontmatter: { a: 1 },
    });
    expect(whole.status, whole.text).toBe(200);
    const sum = await checksum('Work/note.md');
    expect(whole.json.data.checksum).toBe(sum);
    expect(whole.etag).toBe(`"${sum}"`);
    // Put the secrets back for the tests after.
    await call(s.firstKey, 'PUT', '/api/v1/notes/Work/note.md', { content: NOTE });
  });

  it('a create tells it no backlinks; a move with updateLinks names no rewritten note', async () => {
    const made = await call(keys.wo!, 'POST', '/api/v1/notes', { path: 'Work/fresh.md', content: 'fresh\n' });
    expect(made.status, made.text).toBe(201);
    clean('create', made.text);
    // Every byte is its own: the checksum tells it nothing new.
    expect(made.json.data.checksum).toBe(await checksum('Work/fresh.md'));
    const moved = await call(keys.wo!, 'POST', '/api/v1/notes/Work/fresh.md/move', {
      path: 'Work/fresh2.md',
      updateLinks: true,
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.data.rewritten).toEqual([]);
    clean('move', moved.text, [await checksum('Work/fresh2.md')]);
    expect(await readFile(join(s.vaultDir, 'Work/linked.md'), 'utf8')).toContain('[[fresh2]]');
    const gone = await call(keys.wo!, 'DELETE', '/api/v1/notes/Work/fresh2.md');
    expect(gone.status, gone.text).toBe(200);
    expect(gone.json.data.deleted).toBe('Work/fresh2.md');
  });

  it('cannot restore a version or a trash item (both read the bytes back)', async () => {
    await call(s.firstKey, 'PUT', '/api/v1/notes/Work/note.md', { content: `${NOTE}v2\n` });
    const versions = await call(s.firstKey, 'GET', '/api/v1/notes/Work/note.md/versions');
    const id = versions.json.data[0].id;
    const v = await call(keys.wo!, 'POST', `/api/v1/notes/Work/note.md/versions/${id}/restore`);
    expect(v.status, v.text).toBe(403);
    const [item] = (await call(s.firstKey, 'GET', '/api/v1/trash')).json.data;
    const t = await call(keys.wo!, 'POST', `/api/v1/trash/${item.id}/restore`);
    expect(t.status, t.text).toBe(403);
    clean('restores', v.text + t.text);
  });
});

describe('a write-only key (MCP)', () => {
  it('move_note, patch_note, update_note and create_note tell it nothing', async () => {
    const c = await mcp(keys.wo!);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('read_note');
      const sum = await checksum('Work/note.md');
      const results = [
        await c.callTool({ name: 'move_note', arguments: { path: 'Work/note.md', to: 'Work/note.md' } }),
        await c.callTool({
          name: 'patch_note',
          arguments: { path: 'Work/note.md', operation: 'append', target: { type: 'document' }, content: '' },
        }),
        await c.callTool({
          name: 'update_note',
          arguments: { path: 'Work/note.md', content: 'guess', ifMatch: '0000' },
        }),
        await c.callTool({
          name: 'patch_note',
          arguments: {
            path: 'Work/note.md',
            operation: 'append',
            target: { type: 'heading', path: ['Tasks'] },
            content: 'x',
          },
        }),
      ];
      for (const r of results) clean('MCP', JSON.stringify(r), [sum]);
      expect((results[0]!.structuredContent as any).withheld).toBe(true);
      expect((results[1]!.structuredContent as any).withheld).toBe(true);
      expect((results[2]!.structuredContent as any).error.code).toBe('PRECONDITION_FAILED');
      expect((results[3]!.structuredContent as any).error.code).toBe('FORBIDDEN');
      const made = await c.callTool({
        name: 'create_note',
        arguments: { path: 'Work/fresh.md', content: 'f' },
      });
      expect(made.isError ?? false).toBe(false);
      clean('create_note', JSON.stringify(made));
      const restore = await c.callTool({ name: 'restore_from_trash', arguments: { id: 'none' } });
      expect(restore.isError).toBe(true);
      await call(s.firstKey, 'DELETE', '/api/v1/notes/Work/fresh.md');
    } finally {
      await c.close();
    }
  });
});

describe('links resolve among the notes a folder key sees', () => {
  it('[[plan]] finds the visible Work/probe/plan.md, not the hidden plan.md (REST)', async () => {
    // The whole vault resolves it to the root's plan.md.
    const full = await call(s.firstKey, 'GET', '/api/v1/notes/Work/probe/linker.md');
    expect(full.json.data.links[0].path).toBe('plan.md');
    const linker = await call(keys.work!, 'GET', '/api/v1/notes/Work/probe/linker.md');
    expect(linker.json.data.links[0]).toMatchObject({ target: 'plan', path: 'Work/probe/plan.md' });
    const plan = await call(keys.work!, 'GET', '/api/v1/notes/Work/probe/plan.md');
    expect(plan.json.data.backlinks.map((b: any) => b.path)).toEqual(['Work/probe/linker.md']);
    const list = await call(keys.work!, 'GET', '/api/v1/notes');
    const items = new Map(list.json.data.map((n: any) => [n.path, n]));
    expect((items.get('Work/probe/linker.md') as any).links[0].path).toBe('Work/probe/plan.md');
    expect((items.get('Work/probe/plan.md') as any).backlinks.map((b: any) => b.path)).toEqual([
      'Work/probe/linker.md',
    ]);
    for (const t of [linker.text, plan.text, list.text]) expect(t).not.toContain('Hiddenplan');
  });

  it('the same over MCP (read_note, get_backlinks)', async () => {
    const c = await mcp(keys.work!);
    try {
      const read = await c.callTool({ name: 'read_note', arguments: { path: 'Work/probe/linker.md' } });
      expect((read.structuredContent as any).links[0].path).toBe('Work/probe/plan.md');
      const back = await c.callTool({ name: 'get_backlinks', arguments: { path: 'Work/probe/plan.md' } });
      expect((back.structuredContent as any).backlinks.map((b: any) => b.path)).toEqual([
        'Work/probe/linker.md',
      ]);
    } finally {
      await c.close();
    }
  });
});

describe('deleting a trash item for good', () => {
  it('needs admin: 403 for notes:write (whole vault or folders), 200 for the admin key', async () => {
    await call(s.firstKey, 'POST', '/api/v1/notes', { path: 'Work/doomed.md', content: 'd' });
    await call(s.firstKey, 'DELETE', '/api/v1/notes/Work/doomed.md');
    const item = (await call(s.firstKey, 'GET', '/api/v1/trash')).json.data.find(
      (i: any) => i.path === 'Work/doomed.md',
    );
    for (const k of [keys.writer!, keys.work!, keys.wo!]) {
      const r = await call(k, 'DELETE', `/api/v1/trash/${item.id}`);
      expect(r.status, r.text).toBe(403);
      expect(r.json.error.code).toBe('FORBIDDEN');
    }
    const still = (await call(s.firstKey, 'GET', '/api/v1/trash')).json.data;
    expect(still.some((i: any) => i.id === item.id)).toBe(true);
    const r = await call(s.firstKey, 'DELETE', `/api/v1/trash/${item.id}`);
    expect(r.status, r.text).toBe(200);
    // A restore stays a write.
    await call(s.firstKey, 'POST', '/api/v1/notes', { path: 'Work/back.md', content: 'b' });
    await call(s.firstKey, 'DELETE', '/api/v1/notes/Work/back.md');
    const back = (await call(s.firstKey, 'GET', '/api/v1/trash')).json.data.find(
      (i: any) => i.path === 'Work/back.md',
    );
    const restored = await call(keys.writer!, 'POST', `/api/v1/trash/${back.id}/restore`);
    expect(restored.status, restored.text).toBe(200);
  });
});
