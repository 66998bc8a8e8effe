/**
 * Who wrote it, over MCP (the history credits every change): a version and a trash item made
 * through the MCP endpoint name the client (its `clientInfo.name` from `initialize`, sanitized and
 * bounded) and the key, over a real socket with the SDK client against the real Node server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';

async function mcpClient(url: string, name: string, headers: Record<string, string>) {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('MCP writes credit the client and the key', () => {
  let s: LiveServer;
  let key: string;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${s.url}/api/v1${path}`, {
      ...init,
      headers: { 'x-service-key': key, 'content-type': 'application/json', ...(init.headers ?? {}) },
    }).then(async (r) => ((await r.json()) as any).data);

  beforeAll(async () => {
    s = await liveServer();
    key = s.firstKey;
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('update, delete and restore over MCP are by mcp:<client> (key:<id>)', async () => {
    await api('/notes', { method: 'POST', body: JSON.stringify({ path: 'who.md', content: '# One\n' }) });
    const keyActor = (await api('/notes/who.md/versions'))[0].by as string;
    expect(keyActor).toMatch(/^key:.+/);

    // A control character and an over-long name: printable only, at most 64 characters.
    const long = `Claude\u0007 Desktop ${'x'.repeat(100)}`;
    const client = await mcpClient(`${s.url}/mcp`, long, { authorization: `Bearer ${key}` });
    const shown = `Claude Desktop ${'x'.repeat(100)}`.slice(0, 64);
    const read = await client.callTool({ name: 'read_note', arguments: { path: 'who.md' } });
    const sum = (read.structuredContent as any).checksum;
    const up = await client.callTool({
      name: 'update_note',
      arguments: { path: 'who.md', content: '# Two\n', ifMatch: sum },
    });
    expect(up.isError).not.toBe(true);
    const versions = await api('/notes/who.md/versions');
    expect(versions[0]).toMatchObject({ change: 'update', by: `mcp:${shown} (${keyActor})` });

    const del = await client.callTool({ name: 'delete_note', arguments: { path: 'who.md' } });
    expect(del.isError).not.toBe(true);
    const trash = await api('/trash');
    expect(trash[0]).toMatchObject({ path: 'who.md', by: `mcp:${shown} (${keyActor})` });

    // A second client on the same key is told apart.
    const other = await mcpClient(`${s.url}/mcp`, 'cursor', { authorization: `Bearer ${key}` });
    const back = await other.callTool({ name: 'restore_from_trash', arguments: { id: trash[0].id } });
    expect(back.isError).not.toBe(true);
    expect((await api('/notes/who.md/versions'))[0]).toMatchObject({
      change: 'restore',
      by: `mcp:cursor (${keyActor})`,
    });
    await client.close();
    await other.close();
  });

  it('a request without a session it knows is credited as mcp (key:<id>)', async () => {
    await api('/notes', { method: 'POST', body: JSON.stringify({ path: 'raw.md', content: '# Raw\n' }) });
    const keyActor = (await api('/notes/raw.md/versions'))[0].by as string;
    const res = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'not-one-of-ours',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'update_note', arguments: { path: 'raw.md', content: '# Raw 2\n' } },
      }),
    });
    expect(res.status).toBe(200);
    expect((await api('/notes/raw.md/versions'))[0]).toMatchObject({ by: `mcp (${keyActor})` });
  });
});
