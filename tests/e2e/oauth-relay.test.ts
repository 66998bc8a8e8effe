import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { MemoryProvider, oauthConnect } from '../helpers/oauth-client.ts';

const form = (o: Record<string, string>) => new URLSearchParams(o);

describe('OAuth for MCP clients on the running server, directly and through the relay', () => {
  let s: LiveServer;
  let relayBase: string;

  beforeAll(async () => {
    s = await liveServer({ PAIRING_MODE: 'relay' });
    const setup = await s.setup();
    relayBase = `${s.relayUrl}/r/${setup.serverId}`;
    const put = await fetch(`${s.url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'x-service-key': s.firstKey, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'Work/plan.md', content: '# Plan\n\nThe rocket launch is on Friday.\n' }),
    });
    expect(put.status).toBeLessThan(300);
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('through the relay, every metadata URL names the relay base /r/<serverId>', async () => {
    const res = await fetch(`${relayBase}/mcp`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${relayBase}/.well-known/oauth-protected-resource"`,
    );
    const prm = await (await fetch(`${relayBase}/.well-known/oauth-protected-resource`)).json();
    expect(prm).toMatchObject({ resource: `${relayBase}/mcp`, authorization_servers: [relayBase] });
    // RFC 8414: the metadata of an issuer with a path is at /.well-known/oauth-authorization-server/<path>.
    const path = new URL(relayBase).pathname;
    const as = await (await fetch(`${s.relayUrl}/.well-known/oauth-authorization-server${path}`)).json();
    expect(as).toMatchObject({ issuer: relayBase, token_endpoint: `${relayBase}/oauth/token` });
  });

  for (const where of ['direct', 'relay'] as const) {
    it(`the SDK client completes the flow ${where}: read-only tools, refresh, revocation`, async () => {
      const base = where === 'direct' ? s.url : relayBase;
      const { client, provider } = await oauthConnect(`${base}/mcp`, s.firstKey, {
        provider: new MemoryProvider(),
      });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('read_note');
      expect(names).not.toContain('create_note');
      const read = await client.callTool({ name: 'read_note', arguments: { path: 'Work/plan.md' } });
      expect(JSON.stringify(read.content)).toContain('rocket launch');
      const write = await client.callTool({ name: 'create_note', arguments: { path: 'x.md', content: 'x' } });
      expect(write.isError).toBe(true);

      const refreshed = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        body: form({ grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token! }),
      });
      expect(refreshed.status).toBe(200);
      const pair = await refreshed.json();
      provider.saveTokens(pair);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);

      // A token issued for one base is bound to that resource: the other base refuses it.
      const other = where === 'direct' ? relayBase : s.url;
      const cross = await fetch(`${other}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${pair.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(cross.status).toBe(401);

      expect(
        (await fetch(`${base}/oauth/revoke`, { method: 'POST', body: form({ token: pair.refresh_token }) }))
          .status,
      ).toBe(200);
      await expect(client.listTools()).rejects.toThrow();
      await client.close();
    });
  }

  for (const where of ['direct', 'relay'] as const) {
    it(`no open redirect ${where}: an error before consent is the server's own page`, async () => {
      const base = where === 'direct' ? s.url : relayBase;
      const reg = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['https://evil.example/phish'] }),
      });
      expect(reg.status).toBe(201);
      const { client_id } = await reg.json();
      const res = await fetch(`${base}/oauth/authorize?client_id=${client_id}&response_type=x`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(await res.text()).toContain('response_type=code');
      // The schemes of the browser and the OS are refused at registration.
      const bad = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['ms-msdt:/id PCWDiagnostic'] }),
      });
      expect(bad.status).toBe(400);
    });
  }
});
