import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { authApp } from '../helpers/auth-app.ts';

type App = Awaited<ReturnType<typeof authApp>>['app'];

/** The SDK client over the app in-process (its `fetch` is `app.request`). */
async function connect(app: App, headers: Record<string, string>) {
  const client = new Client({ name: 'auth-test', version: '1.0.0' });
  const fetch = ((url: string | URL, init?: RequestInit) =>
    app.request(String(url), init)) as typeof globalThis.fetch;
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://quire.test/mcp'), { fetch, requestInit: { headers } }),
  );
  return client;
}

describe("/mcp authentication is the REST API's", () => {
  it('api-key mode: X-Service-Key or Authorization: Bearer <key>; 401 otherwise', async () => {
    const { app, firstKey } = await authApp({ mode: 'api-key' });
    const ways: Record<string, string>[] = [
      { 'x-service-key': firstKey },
      { authorization: `Bearer ${firstKey}` },
    ];
    for (const headers of ways) {
      const client = await connect(app, headers);
      // Ten note tools; this app keeps no history, so the four history tools are not listed.
      expect((await client.listTools()).tools.length).toBe(10);
      await client.close();
    }
    await expect(connect(app, {})).rejects.toMatchObject({ code: 401 });
    await expect(connect(app, { authorization: 'Bearer quire_sk_nope' })).rejects.toMatchObject({
      code: 401,
    });
    // GET /mcp (the optional server stream) is not offered: 405, which clients handle.
    const get = await app.request('http://quire.test/mcp', { headers: { 'x-service-key': firstKey } });
    expect(get.status).toBe(405);
  });

  it('jwt mode: a token in Authorization: Bearer; the plain key is refused', async () => {
    const { app, call, firstKey, key } = await authApp({ mode: 'jwt' });
    const token = (await call('POST', '/api/v1/auth/token', { headers: key(firstKey) })).json.data.token;
    const client = await connect(app, { authorization: `Bearer ${token}` });
    const r = await client.callTool({ name: 'list_notes', arguments: {} });
    expect(r.structuredContent).toEqual({ notes: [] });
    await client.close();
    await expect(connect(app, { 'x-service-key': firstKey })).rejects.toMatchObject({ code: 401 });
    await expect(connect(app, { authorization: `Bearer ${firstKey}` })).rejects.toMatchObject({ code: 401 });
  });
});
