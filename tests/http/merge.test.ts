/**
 * Three-way merge of writes that name the version they started from: `base` in a PUT's body and
 * MCP's update_note. Real core, memory stores with history, the app in-process.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { callMcpTool } from '../../adapters/mcp/tools.ts';
import { memoryHistoryStore } from '../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createCore } from '../../core/create-core.ts';
import type { Authenticator } from '../../core/ports.ts';
import { requester } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';

async function setup(files: Record<string, string>) {
  let now = Date.UTC(2026, 11, 7, 0, 12, 3);
  const clock = { now: () => now++ };
  const store = memoryNoteStore({ files });
  const core = createCore({
    store,
    clock,
    state: memoryStateStore(),
    logger: silentLogger,
    history: memoryHistoryStore(),
  });
  await core.load();
  // "wo" may write notes but not read them; any other key has full access.
  const authenticator: Authenticator = {
    async authenticate(creds) {
      const id = creds.apiKey ?? 'anon';
      return id === 'wo'
        ? { id, method: 'api-key', scope: { capabilities: ['notes:write'] } }
        : { id, method: 'api-key' };
    },
  };
  const app = createApp({ notes: core.notes, version: 't', clock, logger: silentLogger, authenticator });
  const send = requester(app);
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send(method, path, { body, headers: { 'x-service-key': 'alice', ...headers } });
  const read = async (path: string) =>
    (await store.read(path)) && new TextDecoder().decode((await store.read(path))!);
  return { core, store, call, read };
}

const put = (
  call: Awaited<ReturnType<typeof setup>>['call'],
  path: string,
  content: string,
  base: string,
  key = 'alice',
) => call('PUT', `/api/v1/notes/${encodeURIComponent(path)}`, { content, base }, { 'x-service-key': key });

const TEXT = '# Plan\n\nFirst line.\n\nSecond line.\n\nThe quick brown fox jumps.\n';

describe('merging writes made from an older version', () => {
  it('edits that do not overlap both land; the answer says it merged and carries the new checksum', async () => {
    const { call, read } = await setup({ 'n.md': TEXT });
    const v0 = (await call('GET', '/api/v1/notes/n.md')).json.data.checksum;
    const first = await put(call, 'n.md', TEXT.replace('First line.', 'First line, edited by A.'), v0);
    expect(first.status).toBe(200);
    expect(first.json.data.merge).toBeUndefined();
    // B started from v0 too: another line, and another word of a line A did not touch.
    const second = await put(
      call,
      'n.md',
      TEXT.replace('Second line.', 'Second line (B).').replace('brown', 'red'),
      v0,
    );
    expect(second.status).toBe(200);
    expect(second.json.data.merge).toEqual({ base: v0, baseKnown: true, conflicts: 0 });
    const disk = await read('n.md');
    expect(disk).toBe('# Plan\n\nFirst line, edited by A.\n\nSecond line (B).\n\nThe quick red fox jumps.\n');
    expect(second.json.data.content).toBe(disk);
    expect(second.headers.get('etag')).toBe(`"${second.json.data.checksum}"`);
    const { createHash } = await import('node:crypto');
    expect(second.json.data.checksum).toBe(createHash('sha256').update(disk!).digest('hex'));
  });

  it('two edits of different words of one line both land', async () => {
    const { call, read } = await setup({ 'w.md': 'one two three four five\n' });
    const v0 = (await call('GET', '/api/v1/notes/w.md')).json.data.checksum;
    await put(call, 'w.md', 'one TWO three four five\n', v0);
    const r = await put(call, 'w.md', 'one two three four FIVE\n', v0);
    expect(r.json.data.merge.conflicts).toBe(0);
    expect(await read('w.md')).toBe('one TWO three four FIVE\n');
  });

  it('frontmatter merges key by key', async () => {
    const fm = '---\ntitle: Plan\nstatus: draft\ntags: [a]\n---\n';
    const { call, read } = await setup({ 'f.md': `${fm}body\n` });
    const v0 = (await call('GET', '/api/v1/notes/f.md')).json.data.checksum;
    await call('PUT', '/api/v1/notes/f.md', {
      content: 'body\n',
      frontmatter: { title: 'Plan', status: 'done', tags: ['a'] },
      base: v0,
    });
    const r = await call('PUT', '/api/v1/notes/f.md', {
      content: 'body, longer\n',
      frontmatter: { title: 'Plan', status: 'draft', tags: ['a', 'b'] },
      base: v0,
    });
    expect(r.status).toBe(200);
    expect(r.json.data.merge.conflicts).toBe(0);
    expect(r.json.data.frontmatter).toEqual({ title: 'Plan', status: 'done', tags: ['a', 'b'] });
    expect(await read('f.md')).toContain('body, longer\n');
  });

  it("overlapping edits lose neither side: the note keeps the newer text, the writer's is a linked copy", async () => {
    const { call, read } = await setup({ 'dir/n.md': TEXT });
    const v0 = (await call('GET', '/api/v1/notes/dir%2Fn.md')).json.data.checksum;
    await put(call, 'dir/n.md', TEXT.replace('First line.', 'First line by A.'), v0);
    const mine = TEXT.replace('First line.', 'First line by B.').replace('Second line.', 'Second line by B.');
    const r = await put(call, 'dir/n.md', mine, v0);
    expect(r.status).toBe(200);
    const { merge } = r.json.data;
    expect(merge).toMatchObject({ base: v0, baseKnown: true, conflicts: 1 });
    expect(merge.copy).toBe('dir/n (conflict 2026-12-07 001203).md');
    const note = (await read('dir/n.md'))!;
    // The non-overlapping part of B's edit landed; the overlapping line keeps A's text.
    expect(note).toContain('First line by A.');
    expect(note).toContain('Second line by B.');
    expect(note).not.toContain('First line by B.');
    expect(await read(merge.copy)).toBe(mine);
    // The note links to its copy, and the link resolves.
    expect(r.json.data.links).toContainEqual(expect.objectContaining({ path: merge.copy }));
  });

  it('the same conflicting write sent again (its answer lost) finds its copy: no second copy, no second line', async () => {
    const { call, read, store } = await setup({ 'dir/n.md': TEXT });
    const v0 = (await call('GET', '/api/v1/notes/dir%2Fn.md')).json.data.checksum;
    await put(call, 'dir/n.md', TEXT.replace('First line.', 'First line by A.'), v0);
    const mine = TEXT.replace('First line.', 'First line by B.').replace('Second line.', 'Second line by B.');
    const first = (await put(call, 'dir/n.md', mine, v0)).json.data;
    const noteAfterFirst = await read('dir/n.md');
    const again = await put(call, 'dir/n.md', mine, v0);
    expect(again.status).toBe(200);
    expect(again.json.data.merge).toMatchObject({ conflicts: 1, copy: first.merge.copy });
    expect(again.json.data.checksum).toBe(first.checksum);
    expect(await read('dir/n.md')).toBe(noteAfterFirst);
    const copies = (await store.list()).map((f) => f.path).filter((p) => p.includes('(conflict'));
    expect(copies).toEqual([first.merge.copy]);
    // A different overlapping text is a new copy all the same.
    const other = await put(call, 'dir/n.md', mine.replace('by B', 'by C'), v0);
    expect(other.json.data.merge.copy).not.toBe(first.merge.copy);
    expect(await read(other.json.data.merge.copy)).toBe(mine.replace('by B', 'by C'));
  });

  it('a base the history does not hold takes the conflict path, never a silent overwrite', async () => {
    const { call, read } = await setup({ 'n.md': TEXT });
    const r = await put(call, 'n.md', 'all new\n', 'f'.repeat(64));
    expect(r.status).toBe(200);
    expect(r.json.data.merge).toMatchObject({ baseKnown: false, conflicts: 1 });
    expect(await read('n.md')).toContain('First line.');
    expect(await read(r.json.data.merge.copy)).toBe('all new\n');
  });

  it('writes without a base keep their meaning; If-Match stays strict (412), base or not', async () => {
    const { call, read } = await setup({ 'n.md': TEXT });
    const v0 = (await call('GET', '/api/v1/notes/n.md')).json.data.checksum;
    expect(
      (await call('PUT', '/api/v1/notes/n.md', { content: 'replaced\n' })).json.data.merge,
    ).toBeUndefined();
    expect(await read('n.md')).toBe('replaced\n');
    const strict = await call('PUT', '/api/v1/notes/n.md', { content: 'x' }, { 'if-match': `"${v0}"` });
    expect(strict.status).toBe(412);
    const both = await call(
      'PUT',
      '/api/v1/notes/n.md',
      { content: 'x', base: v0 },
      { 'if-match': `"${v0}"` },
    );
    expect(both.status).toBe(412);
    expect(await read('n.md')).toBe('replaced\n');
    const bad = await call('PUT', '/api/v1/notes/n.md', { content: 'x', base: 42 });
    expect(bad.status).toBe(400);
    expect(bad.json.success).toBe(false);
  });

  it('a key without notes:read learns no content and no checksum from a merged answer', async () => {
    const { call, read } = await setup({ 'n.md': TEXT });
    const v0 = (await call('GET', '/api/v1/notes/n.md')).json.data.checksum;
    await put(call, 'n.md', TEXT.replace('First line.', 'First line by A.'), v0);
    const r = await put(call, 'n.md', TEXT.replace('Second line.', 'Second line by WO.'), v0, 'wo');
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ withheld: true, content: '', checksum: '', merge: { conflicts: 0 } });
    expect(r.text).not.toContain('First line by A.');
    expect(r.headers.get('etag') ?? '').not.toMatch(/[0-9a-f]{64}/);
    expect(await read('n.md')).toContain('Second line by WO.');
  });

  it('MCP update_note takes a base and answers what merged', async () => {
    const { call, read, core } = await setup({ 'm.md': TEXT });
    const v0 = (await call('GET', '/api/v1/notes/m.md')).json.data.checksum;
    await put(call, 'm.md', TEXT.replace('First line.', 'First line by A.'), v0);
    const mine = TEXT.replace('Second line.', 'Second line by MCP.');
    const r = await callMcpTool(core.notes, true, 'update_note', { path: 'm.md', content: mine, base: v0 });
    expect(r.structuredContent.merge).toEqual({ base: v0, baseKnown: true, conflicts: 0 });
    expect(await read('m.md')).toContain('First line by A.');
    expect(await read('m.md')).toContain('Second line by MCP.');
    // ifMatch stays a strict precondition.
    const strict = await callMcpTool(core.notes, true, 'update_note', {
      path: 'm.md',
      content: 'x',
      ifMatch: v0,
    });
    expect((strict.structuredContent as any).error.code).toBe('PRECONDITION_FAILED');
  });
});
