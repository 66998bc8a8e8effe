/**
 * Security review, third round, the server's items over real HTTP against the Node server: no 500
 * on a note or move onto a folder of the same name, JSON nested too deep, frontmatter that would
 * not read back; and the MCP endpoint's caps (batch size, answer size, tool names looked up as own
 * properties only).
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../core/json-depth.ts';
import { openPortServers } from '../helpers/open-port-servers.ts';

const startServer = openPortServers();
const start = async (env: Record<string, string> = {}) => {
  const s = await startServer(env);
  const { call } = s;
  const mcp = (message: unknown) =>
    call('POST', '/mcp', message, { accept: 'application/json, text/event-stream' });
  const tool = (name: string, args: unknown, id = 1) =>
    mcp({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  return { ...s, mcp, tool };
};
/** `{"a":{"a":…}}` nested `depth` objects deep. */
const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
/** The same as a JSON text, built without recursion (JSON.stringify of 100,000 levels would throw). */
const nestedText = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('item 7: a note or a move onto a folder of the same name', () => {
  it('POST, PUT, a move, MCP create_note and a file PUT answer 409 CONFLICT, never 500', async () => {
    const s = await start();
    await mkdir(join(s.vaultDir, 'evil.md'), { recursive: true });
    // The folder made through the API, as in the report.
    const png = await fetch(`${s.url}/api/v1/files/made.md/x.png`, {
      method: 'PUT',
      headers: { 'x-service-key': s.firstKey, 'content-type': 'image/png' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(png.status).toBeLessThan(300);
    for (const path of ['evil.md', 'made.md']) {
      const created = await s.call('POST', '/api/v1/notes', { path, content: '# x\n' });
      expect(created.status).toBe(409);
      expect(created.json.error.code).toBe('CONFLICT');
      const put = await s.call('PUT', `/api/v1/notes/${path}`, { content: '# x\n' });
      expect(put.status).not.toBe(500);
      expect(put.status).toBeLessThan(500);
    }
    expect((await s.call('POST', '/api/v1/notes', { path: 'src.md', content: '# s\n' })).status).toBe(201);
    const moved = await s.call('POST', '/api/v1/notes/src.md/move', { path: 'evil.md' });
    expect(moved.status).toBe(409);
    expect(moved.json.error.code).toBe('CONFLICT');
    // The source is untouched, and no temporary file is left behind.
    expect((await s.call('GET', '/api/v1/notes/src.md')).status).toBe(200);
    expect((await stat(join(s.vaultDir, 'evil.md'))).isDirectory()).toBe(true);
    const mcpCreate = await s.tool('create_note', { path: 'evil.md', content: '# x\n' });
    expect(mcpCreate.status).toBe(200);
    expect(mcpCreate.text).toContain('CONFLICT');
    expect(mcpCreate.text).not.toContain('INTERNAL_ERROR');
    // A file PUT onto a note's path or below it: never 500.
    const onNote = await fetch(`${s.url}/api/v1/files/src.md/y.png`, {
      method: 'PUT',
      headers: { 'x-service-key': s.firstKey, 'content-type': 'image/png' },
      body: new Uint8Array([1]),
    });
    expect(onNote.status).toBeGreaterThanOrEqual(400);
    expect(onNote.status).toBeLessThan(500);
    const onFolder = await fetch(`${s.url}/api/v1/files/evil.md`, {
      method: 'PUT',
      headers: { 'x-service-key': s.firstKey, 'content-type': 'image/png' },
      body: new Uint8Array([1]),
    });
    expect(onFolder.status).toBeGreaterThanOrEqual(400);
    expect(onFolder.status).toBeLessThan(500);
  });
});

describe(`item 7: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, () => {
  it('is 400 on POST, PUT, PATCH, MCP and the agent, and no YAML is written', async () => {
    const s = await start();
    const deep = nested(700);
    const post = await s.call('POST', '/api/v1/notes', {
      path: 'deep.md',
      content: 'x',
      frontmatter: { d: deep },
    });
    expect(post.status).toBe(400);
    expect(post.json.error.message).toMatch(/deeper than 64/);
    expect((await s.call('GET', '/api/v1/notes/deep.md')).status).toBe(404);
    // Far deeper than any stack: still a clear 400.
    const huge = await s.call(
      'POST',
      '/api/v1/notes',
      `{"path":"h.md","content":"x","frontmatter":{"d":${nestedText(100_000)}}}`,
    );
    expect(huge.status).toBe(400);
    expect((await s.call('POST', '/api/v1/notes', { path: 'ok.md', content: '# ok\n' })).status).toBe(201);
    const before = await readFile(join(s.vaultDir, 'ok.md'), 'utf8');
    const put = await s.call('PUT', '/api/v1/notes/ok.md', { content: 'x', frontmatter: { d: deep } });
    expect(put.status).toBe(400);
    const patch = await s.call('PATCH', '/api/v1/notes/ok.md', {
      operation: 'replace',
      target: { type: 'frontmatter', key: 'd' },
      content: nested(1000),
    });
    expect(patch.status).toBe(400);
    expect(await readFile(join(s.vaultDir, 'ok.md'), 'utf8')).toBe(before);
    // Just inside the limit is fine, and reads back.
    const fine = await s.call('PATCH', '/api/v1/notes/ok.md', {
      operation: 'replace',
      target: { type: 'frontmatter', key: 'd' },
      content: nested(MAX_JSON_DEPTH - 2),
    });
    expect(fine.status).toBe(200);
    expect(fine.json.data.frontmatter.d).toEqual(nested(MAX_JSON_DEPTH - 2));
    const viaMcp = await s.tool('patch_note', {
      path: 'ok.md',
      operation: 'replace',
      target: { type: 'frontmatter', key: 'e' },
      content: nested(700),
    });
    expect(viaMcp.status).toBeLessThan(500);
    expect(viaMcp.text).toMatch(/deeper than 64/);
    const agent = await s.call('POST', '/api/v1/agent/chat', { message: 'hi', context: deep });
    expect(agent.status).toBe(400);
  });

  it('a frontmatter value that would not read back is refused, never written', async () => {
    const s = await start();
    expect((await s.call('POST', '/api/v1/notes', { path: 'fm.md', content: '# fm\n' })).status).toBe(201);
    const before = await readFile(join(s.vaultDir, 'fm.md'), 'utf8');
    // 70 KiB of frontmatter: larger than the reader takes (64 KiB), so it would be ignored.
    const big = await s.call('PATCH', '/api/v1/notes/fm.md', {
      operation: 'replace',
      target: { type: 'frontmatter', key: 'big' },
      content: 'x'.repeat(70 * 1024),
    });
    expect(big.status).toBe(400);
    // Refused by the size limit before any YAML is made (fourth round, finding 6).
    expect(big.json.error.code).toBe('FRONTMATTER_TOO_LARGE');
    const post = await s.call('POST', '/api/v1/notes', {
      path: 'fm2.md',
      content: 'x',
      frontmatter: { big: 'y'.repeat(70 * 1024) },
    });
    expect(post.status).toBe(400);
    expect((await s.call('GET', '/api/v1/notes/fm2.md')).status).toBe(404);
    expect(await readFile(join(s.vaultDir, 'fm.md'), 'utf8')).toBe(before);
  });
});

describe('MCP: tool names, batches and answers', () => {
  it('constructor, toString and __proto__ are unknown tools (a JSON-RPC error), never a crash', async () => {
    const s = await start();
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'nope']) {
      const r = await s.tool(name, {});
      expect(r.status).toBe(200);
      expect(r.json.error.code).toBe(-32602);
      expect(r.json.error.message).toMatch(/Unknown tool/);
    }
    const ok = await s.tool('list_tags', {});
    expect(ok.json.result.isError).toBeFalsy();
  });

  it('a batch of up to 32 is answered; a larger one is one JSON-RPC error', async () => {
    const s = await start();
    const msg = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
    const small = await s.mcp(Array.from({ length: 32 }, (_, i) => msg(i + 1)));
    expect(small.status).toBe(200);
    expect(small.json).toHaveLength(32);
    const big = await s.mcp(Array.from({ length: 33 }, (_, i) => msg(i + 1)));
    expect(big.status).toBe(400);
    expect(big.json.error.code).toBe(-32600);
    expect(big.json.error.message).toMatch(/32/);
    const deep = await s.mcp(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${nestedText(5000)}}`);
    expect(deep.status).toBe(400);
    expect(deep.json.error.code).toBe(-32600);
  });

  it('an answer larger than the cap is a JSON-RPC error for that request', async () => {
    const s = await start({ MCP_MAX_ANSWER_BYTES: '65536' });
    await s.call('POST', '/api/v1/notes', { path: 'big.md', content: 'x'.repeat(100_000) });
    await s.call('POST', '/api/v1/notes', { path: 'small.md', content: '# small\n' });
    const r = await s.mcp([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'read_note', arguments: { path: 'small.md' } },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'read_note', arguments: { path: 'big.md' } },
      },
    ]);
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(65536);
    const byId = new Map((r.json as any[]).map((m) => [m.id, m]));
    expect(byId.get(1).result).toBeDefined();
    expect(byId.get(2).error.message).toMatch(/65536 bytes/);
  });
});
