import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpUrlFrom } from '../../../../deploy/node/cli/mcp.ts';
import { ROOT } from '../../../helpers/child.ts';
import { type LiveServer, liveServer } from '../../../helpers/live-server.ts';
import { MemoryProvider, oauthConnect } from '../../../helpers/oauth-client.ts';
import { quire } from './run.ts';

/** `quire mcp` spawned by the SDK's stdio client, as Claude Desktop would start it. */
async function bridge(url: string, key: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/quire.js', 'mcp', '--url', url],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', QUIRE_API_KEY: key },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  const client = new Client({ name: 'bridge-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const data = (r: Record<string, unknown>) => JSON.stringify(r.content);

describe('quire mcp: the stdio bridge with the SDK stdio client', () => {
  let s: LiveServer;
  let relayBase: string;

  beforeAll(async () => {
    s = await liveServer({ PAIRING_MODE: 'relay' });
    relayBase = `${s.relayUrl}/r/${(await s.setup()).serverId}`;
    const res = await fetch(`${s.url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'x-service-key': s.firstKey, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'Work/plan.md', content: '# Plan\n\nThe rocket launch is on Friday.\n' }),
    });
    expect(res.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  for (const where of ['direct', 'relay'] as const) {
    it(`lists tools, searches and reads ${where}; the remote's errors come through verbatim`, async () => {
      const { client, stderr } = await bridge(where === 'direct' ? s.url : relayBase, s.firstKey);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['search_notes', 'read_note', 'create_note']));
      const found = await client.callTool({ name: 'search_notes', arguments: { query: 'rocket' } });
      expect(data(found)).toContain('Work/plan.md');
      const read = await client.callTool({ name: 'read_note', arguments: { path: 'Work/plan.md' } });
      expect(data(read)).toContain('rocket launch');
      // A tool error of the server reaches the client as the server said it.
      const missing = await client.callTool({ name: 'read_note', arguments: { path: 'Nope/none.md' } });
      expect(missing.isError).toBe(true);
      expect(data(missing)).toContain('NOT_FOUND');
      await client.close();
      expect(stderr()).not.toContain(s.firstKey);
    }, 30_000);
  }

  it('a read-only credential (an OAuth grant with the default scope) has no write tools; writes are refused', async () => {
    const { client: direct, provider } = await oauthConnect(`${s.url}/mcp`, s.firstKey, {
      provider: new MemoryProvider(),
    });
    await direct.close();
    const token = provider.saved!.access_token;
    const { client } = await bridge(s.url, token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('read_note');
    expect(names).not.toContain('create_note');
    const write = await client.callTool({
      name: 'create_note',
      arguments: { path: 'Work/x.md', content: 'x' },
    });
    expect(write.isError).toBe(true);
    expect(data(write)).toContain('FORBIDDEN');
    await client.close();
  }, 30_000);

  it('a read-only key (quire keys mint --read-only) through the relay: reads work, writes are refused', async () => {
    const minted = await fetch(`${s.url}/api/v1/auth/keys`, {
      method: 'POST',
      headers: { 'x-service-key': s.firstKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bridge-ro', scope: { capabilities: ['notes:read', 'files:read'] } }),
    });
    expect(minted.status).toBe(201);
    const { apiKey } = ((await minted.json()) as { data: { apiKey: string } }).data;
    const { client, stderr } = await bridge(relayBase, apiKey);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search_notes', 'read_note']));
    expect(names).not.toContain('create_note');
    const read = await client.callTool({ name: 'read_note', arguments: { path: 'Work/plan.md' } });
    expect(data(read)).toContain('rocket launch');
    const write = await client.callTool({
      name: 'create_note',
      arguments: { path: 'Work/y.md', content: 'y' },
    });
    expect(write.isError).toBe(true);
    expect(data(write)).toContain('FORBIDDEN');
    await client.close();
    expect(stderr()).not.toContain(apiKey);
    expect(
      (await fetch(`${s.url}/api/v1/notes/Work/y.md`, { headers: { 'x-service-key': s.firstKey } })).status,
    ).toBe(404);
  }, 30_000);

  it('a wrong key: the request gets a JSON-RPC error naming the 401, stderr says why, without the key', async () => {
    const wrong = 'quire_sk_thisIsNotAValidKeyAtAll0000000000000';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/quire.js', 'mcp', '--url', s.url],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', QUIRE_API_KEY: wrong },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    const client = new Client({ name: 'bridge-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow(/HTTP 401/);
    await client.close();
    expect(stderr).toContain('HTTP 401');
    expect(stderr).not.toContain(wrong);
  }, 30_000);

  it('usage: no key or a bad URL exits 2; the URL may be a server, a relay base or /mcp', async () => {
    const noKey = await quire(['mcp', '--url', s.url]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('QUIRE_API_KEY');
    const badUrl = await quire(['mcp', '--url', 'ftp://x'], { QUIRE_API_KEY: 'k' });
    expect(badUrl.code).toBe(2);
    expect(mcpUrlFrom('http://h:3000').toString()).toBe('http://h:3000/mcp');
    expect(mcpUrlFrom('https://relay.test/r/abc/').toString()).toBe('https://relay.test/r/abc/mcp');
    expect(mcpUrlFrom('https://relay.test/r/abc/mcp').toString()).toBe('https://relay.test/r/abc/mcp');
  }, 30_000);
});
