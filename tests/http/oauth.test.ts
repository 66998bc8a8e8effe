import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { authApp } from '../helpers/auth-app.ts';
import { MemoryProvider, oauthConnect, REDIRECT, submitConsent } from '../helpers/oauth-client.ts';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A whole server app with OAuth on a real loopback socket, on a clock the test moves. */
async function live() {
  let t = Date.parse('2026-11-26T12:00:00Z');
  const quire = await authApp({ mode: 'api-key', oauth: true, now: () => t });
  const server = serve({ fetch: quire.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  stops.push(() => new Promise((r) => server.close(() => r(null))));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await quire.notes.create('Work/plan.md', '# Plan\n\nThe rocket launch is on Friday.\n');
  return {
    ...quire,
    base,
    mcp: `${base}/mcp`,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const form = (o: Record<string, string>) => new URLSearchParams(o);

/** A bearer call to /mcp (tools/list) outside the SDK, to see the raw status and headers. */
const rawList = (mcp: string, token: string) =>
  fetch(mcp, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe('OAuth for MCP clients, the official SDK client on a real socket', () => {
  it('discovery: a 401 from /mcp points at the metadata, which names every endpoint', async () => {
    const q = await live();
    const res = await fetch(q.mcp, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${q.base}/.well-known/oauth-protected-resource"`,
    );
    const prm = await (await fetch(`${q.base}/.well-known/oauth-protected-resource`)).json();
    expect(prm).toMatchObject({ resource: q.mcp, authorization_servers: [q.base] });
    const as = await (await fetch(`${q.base}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: q.base,
      authorization_endpoint: `${q.base}/oauth/authorize`,
      token_endpoint: `${q.base}/oauth/token`,
      registration_endpoint: `${q.base}/oauth/register`,
      revocation_endpoint: `${q.base}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
    // The SDK's own schemas accept both documents.
    const { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } = await import(
      '@modelcontextprotocol/sdk/shared/auth.js'
    );
    expect(OAuthMetadataSchema.safeParse(as).success).toBe(true);
    expect(OAuthProtectedResourceMetadataSchema.safeParse(prm).success).toBe(true);
    // The OpenAPI document lists every OAuth endpoint this test file calls.
    const doc = await (await fetch(`${q.base}/api/v1/openapi.json`)).json();
    for (const path of ['/oauth/register', '/oauth/authorize', '/oauth/token', '/oauth/revoke'])
      expect(Object.keys(doc.paths)).toContain(path);
    expect(doc.paths['/oauth/authorize'].post.operationId).toBe('oauthConsent');
  });

  it('the whole flow: register, consent (read-only by default), PKCE, token, tools limited to the grant, refresh, revocation', async () => {
    const q = await live();
    const { client, provider, authUrl } = await oauthConnect(q.mcp, q.firstKey);
    // The SDK registered a client, sent PKCE S256, state and the resource.
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(q.mcp);
    expect(provider.saved?.access_token).toMatch(/^quire_at_/);
    expect(provider.saved?.scope).toBe('notes:read files:read');
    expect(JSON.stringify(provider.saved)).not.toContain(q.firstKey);

    // Read-only: no write tool is listed, and a write call is refused.
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('search_notes');
    expect(names).not.toContain('update_note');
    expect(names).not.toContain('delete_note');
    const found = await client.callTool({ name: 'search_notes', arguments: { query: 'rocket' } });
    expect(JSON.stringify(found.structuredContent)).toContain('Work/plan.md');
    const read = await client.callTool({ name: 'read_note', arguments: { path: 'Work/plan.md' } });
    expect(JSON.stringify(read.content)).toContain('rocket launch');
    const write = await client.callTool({
      name: 'create_note',
      arguments: { path: 'Work/new.md', content: 'x' },
    });
    expect(write.isError).toBe(true);
    expect(JSON.stringify(write.content)).toContain('FORBIDDEN');
    await expect(q.notes.get('Work/new.md')).rejects.toThrow(/No note/);

    // The token is bound to /mcp: REST refuses it.
    const rest = await fetch(`${q.base}/api/v1/notes`, {
      headers: { authorization: `Bearer ${provider.saved!.access_token}` },
    });
    expect(rest.status).toBe(401);

    // Expired (the clock passes 15 minutes): the server says invalid_token, the SDK refreshes
    // by itself and the call goes through with a rotated pair.
    const before = provider.saved!;
    q.advance(16 * 60_000);
    const stale = await rawList(q.mcp, before.access_token);
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(provider.saved!.access_token).not.toBe(before.access_token);
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);

    // Revocation (RFC 7009): the refresh token ends the grant; its access token stops at once.
    const revoke = await fetch(`${q.base}/oauth/revoke`, {
      method: 'POST',
      body: form({ token: provider.saved!.refresh_token!, client_id: String(provider.info!.client_id) }),
    });
    expect(revoke.status).toBe(200);
    expect((await rawList(q.mcp, provider.saved!.access_token)).status).toBe(401);
    const again = await fetch(`${q.base}/oauth/token`, {
      method: 'POST',
      body: form({ grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token! }),
    });
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('invalid_grant');
    await client.close();
  });

  it('a grant with notes:write lists and runs the write tools; folders picked on the page are kept', async () => {
    const q = await live();
    const { client, provider } = await oauthConnect(q.mcp, q.firstKey, {
      capabilities: ['notes:read', 'notes:write'],
      folders: 'Work/',
    });
    expect(provider.saved?.scope).toBe('notes:read notes:write');
    expect(q.oauth!.grants()[0]!.scope).toEqual({
      capabilities: ['notes:read', 'notes:write'],
      folders: ['Work/'],
    });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('create_note');
    const made = await client.callTool({
      name: 'create_note',
      arguments: { path: 'Work/new.md', content: 'hi' },
    });
    expect(made.isError).toBeFalsy();
    expect((await q.notes.get('Work/new.md')).content).toContain('hi');
    // The owner sees the grant over REST and ends it without revoking the key.
    const listed = await fetch(`${q.base}/api/v1/auth/oauth/grants`, {
      headers: { 'x-service-key': q.firstKey },
    });
    const grants = (await listed.json()).data;
    expect(grants).toMatchObject([{ clientName: 'SDK test client', scope: { folders: ['Work/'] } }]);
    expect(JSON.stringify(grants)).not.toMatch(/refresh|Hash/);
    const ended = await fetch(`${q.base}/api/v1/auth/oauth/grants/${grants[0].id}`, {
      method: 'DELETE',
      headers: { 'x-service-key': q.firstKey },
    });
    expect(ended.status).toBe(200);
    expect((await rawList(q.mcp, provider.saved!.access_token)).status).toBe(401);
    expect(q.service.hasKey(q.service.listKeys()[0]!.id)).toBe(true);
    await client.close();
  });

  it('a reused refresh token ends the grant (rotation); revoking the approving key ends its grants', async () => {
    const q = await live();
    const minted = await q.service.mintKey('approver');
    const { client, provider } = await oauthConnect(q.mcp, minted.apiKey);
    const firstRefresh = provider.saved!.refresh_token!;
    const rotated = await fetch(`${q.base}/oauth/token`, {
      method: 'POST',
      body: form({ grant_type: 'refresh_token', refresh_token: firstRefresh }),
    });
    expect(rotated.status).toBe(200);
    const pair = await rotated.json();
    expect((await rawList(q.mcp, pair.access_token)).status).toBe(200);
    // The old refresh token again: refused, and the whole grant ends (the new pair too).
    const reuse = await fetch(`${q.base}/oauth/token`, {
      method: 'POST',
      body: form({ grant_type: 'refresh_token', refresh_token: firstRefresh }),
    });
    expect(reuse.status).toBe(400);
    expect((await rawList(q.mcp, pair.access_token)).status).toBe(401);
    expect(q.oauth!.grants()).toHaveLength(0);

    // A new grant approved by the same key dies when the key is revoked.
    const second = await oauthConnect(q.mcp, minted.apiKey, { provider: new MemoryProvider() });
    expect((await rawList(q.mcp, second.provider.saved!.access_token)).status).toBe(200);
    await q.service.revokeKey(minted.id);
    expect((await rawList(q.mcp, second.provider.saved!.access_token)).status).toBe(401);
    const refresh = await fetch(`${q.base}/oauth/token`, {
      method: 'POST',
      body: form({ grant_type: 'refresh_token', refresh_token: second.provider.saved!.refresh_token! }),
    });
    expect(refresh.status).toBe(400);
    await client.close();
    await second.client.close();
  });

  describe('refused', () => {
    /** Registers a client and makes an authorization URL by hand (S256 of `verifier`). */
    async function manual(q: Awaited<ReturnType<typeof live>>, redirect = REDIRECT) {
      const reg = await fetch(`${q.base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [redirect], client_name: 'manual' }),
      });
      expect(reg.status).toBe(201);
      const { client_id } = await reg.json();
      const verifier = 'v'.repeat(20) + Math.random().toString(36).slice(2).padEnd(30, 'x');
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
      const challenge = Buffer.from(digest).toString('base64url');
      const url = new URL(`${q.base}/oauth/authorize`);
      for (const [k, val] of Object.entries({
        response_type: 'code',
        client_id,
        redirect_uri: redirect,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'xyz',
      }))
        url.searchParams.set(k, val);
      return { client_id: client_id as string, verifier, url };
    }
    const codeOf = async (url: URL, key: string) => {
      const { res } = await submitConsent(url, { key });
      expect(res.status).toBe(302);
      const loc = new URL(res.headers.get('location')!);
      expect(loc.searchParams.get('state')).toBe('xyz');
      return loc.searchParams.get('code')!;
    };
    const exchange = (q: { base: string }, o: Record<string, string>) =>
      fetch(`${q.base}/oauth/token`, {
        method: 'POST',
        body: form({ grant_type: 'authorization_code', ...o }),
      });

    it('a redirect URI not registered exactly: an error page, never a redirect', async () => {
      const q = await live();
      const { url } = await manual(q);
      for (const wrong of [
        'http://127.0.0.1:9/callback/',
        'http://127.0.0.1:9/callback?x=1',
        'https://evil.test/cb',
      ]) {
        url.searchParams.set('redirect_uri', wrong);
        const res = await fetch(url, { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toContain('text/html');
        const post = await fetch(url, {
          method: 'POST',
          body: form({ key: q.firstKey, action: 'approve' }),
          redirect: 'manual',
        });
        expect(post.status).toBe(400);
        expect(post.headers.get('location')).toBeNull();
      }
      // Registration refuses redirect URIs that could run or leak.
      for (const bad of [
        'javascript:alert(1)',
        'http://evil.test/cb',
        'https://x.test/cb#frag',
        'data:text/html,hi',
      ]) {
        const reg = await fetch(`${q.base}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [bad] }),
        });
        expect(reg.status).toBe(400);
      }
    });

    it('no open redirect: an error before consent is a page here, whatever the client registered', async () => {
      const q = await live();
      const { url } = await manual(q, 'https://evil.example/phish');
      const cases: Record<string, string | null>[] = [
        { response_type: 'x' },
        { response_type: null },
        { code_challenge_method: 'plain' },
        { code_challenge: null },
        { code_challenge: 'short' },
        { resource: 'https://other.test/mcp' },
      ];
      for (const change of cases) {
        const u = new URL(url);
        for (const [k, val] of Object.entries(change))
          if (val === null) u.searchParams.delete(k);
          else u.searchParams.set(k, val);
        for (const res of [
          await fetch(u, { redirect: 'manual' }),
          await fetch(u, {
            method: 'POST',
            body: new URLSearchParams([...u.searchParams, ['action', 'deny']]),
            redirect: 'manual',
          }),
        ]) {
          expect(res.status, JSON.stringify(change)).toBe(400);
          expect(res.headers.get('location'), JSON.stringify(change)).toBeNull();
          expect(res.headers.get('content-type')).toContain('text/html');
          expect(await res.text()).not.toContain('evil.example');
        }
      }
      // A valid request shows the consent page (no redirect either); the owner decides there.
      const consent = await fetch(url, { redirect: 'manual' });
      expect(consent.status).toBe(200);
      // The owner's "deny" on the consent page still goes back to the client (RFC 6749 4.1.2.1):
      // the page said where the browser returns, and the owner chose.
      const denied = await fetch(url, {
        method: 'POST',
        body: new URLSearchParams([...url.searchParams, ['action', 'deny']]),
        redirect: 'manual',
      });
      expect(denied.status).toBe(302);
      expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
      // Registration refuses the schemes of the browser and the OS.
      for (const bad of [
        'ms-msdt:/id PCWDiagnostic',
        'chrome://settings',
        'view-source:https://x.test/',
        'jar:https://x.test/a!/',
      ]) {
        const reg = await fetch(`${q.base}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [bad] }),
        });
        expect(reg.status, bad).toBe(400);
        expect((await reg.json()).error).toBe('invalid_redirect_uri');
      }
    });

    it('without PKCE S256 the request is refused on the page; a missing or wrong verifier gets no token', async () => {
      const q = await live();
      const { url, client_id, verifier } = await manual(q);
      const plain = new URL(url);
      plain.searchParams.set('code_challenge_method', 'plain');
      const back = await fetch(plain, { redirect: 'manual' });
      expect(back.status).toBe(400);
      expect(back.headers.get('location')).toBeNull();
      expect(await back.text()).toContain('PKCE is required');

      const code = await codeOf(url, q.firstKey);
      const missing = await exchange(q, { code, client_id, redirect_uri: REDIRECT });
      expect(missing.status).toBe(400);
      expect((await missing.json()).error).toBe('invalid_grant');
      const wrong = await exchange(q, {
        code,
        client_id,
        redirect_uri: REDIRECT,
        code_verifier: `${verifier}x`,
      });
      expect((await wrong.json()).error).toBe('invalid_grant');
      const otherRedirect = await exchange(q, {
        code,
        client_id,
        redirect_uri: `${REDIRECT}2`,
        code_verifier: verifier,
      });
      expect((await otherRedirect.json()).error).toBe('invalid_grant');
      // The right verifier still works (the failed tries did not spend the code).
      const good = await exchange(q, { code, client_id, redirect_uri: REDIRECT, code_verifier: verifier });
      expect(good.status).toBe(200);
      expect(good.headers.get('cache-control')).toBe('no-store');
    });

    it('a replayed code is refused and ends the grant it made; an expired code is refused', async () => {
      const q = await live();
      const { url, client_id, verifier } = await manual(q);
      const code = await codeOf(url, q.firstKey);
      const ok = await exchange(q, { code, client_id, redirect_uri: REDIRECT, code_verifier: verifier });
      const tokens = await ok.json();
      expect((await rawList(q.mcp, tokens.access_token)).status).toBe(200);
      const replay = await exchange(q, { code, client_id, redirect_uri: REDIRECT, code_verifier: verifier });
      expect(replay.status).toBe(400);
      expect((await replay.json()).error).toBe('invalid_grant');
      expect((await rawList(q.mcp, tokens.access_token)).status).toBe(401);

      const late = await codeOf(url, q.firstKey);
      q.advance(61_000);
      const expired = await exchange(q, {
        code: late,
        client_id,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      expect((await expired.json()).error).toBe('invalid_grant');
    });

    it('an expired access token is refused (injected clock); a wrong key on the consent page gets no code', async () => {
      const q = await live();
      const { url, client_id, verifier } = await manual(q);
      const code = await codeOf(url, q.firstKey);
      const tokens = await (
        await exchange(q, { code, client_id, redirect_uri: REDIRECT, code_verifier: verifier })
      ).json();
      expect(tokens.expires_in).toBe(900);
      q.advance(899_000);
      expect((await rawList(q.mcp, tokens.access_token)).status).toBe(200);
      q.advance(2_000);
      const res = await rawList(q.mcp, tokens.access_token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');

      const { res: refused } = await submitConsent(url, { key: 'quire_sk_wrongwrongwrong' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('location')).toBeNull();
      const again = await refused.text();
      expect(again).toContain('That key is not valid');
      expect(again).not.toContain('wrongwrongwrong');
      const noRead = await submitConsent(url, { key: q.firstKey, capabilities: ['files:read'] });
      expect(noRead.res.status).toBe(400);
      expect(await noRead.res.text()).toContain('Read notes');
      const denied = await submitConsent(url, { key: '', action: 'deny' });
      expect(denied.res.status).toBe(302);
      const loc = new URL(denied.res.headers.get('location')!);
      expect(loc.searchParams.get('error')).toBe('access_denied');
      expect(loc.searchParams.get('state')).toBe('xyz');
    });

    it("hostile input is a 4xx in OAuth's own shape, never a 500", async () => {
      const q = await live();
      const json = { 'content-type': 'application/json' };
      const reqs: [string, RequestInit][] = [
        [
          '/oauth/token',
          { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: 'garbage' },
        ],
        [
          '/oauth/authorize',
          { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: 'garbage' },
        ],
        [
          '/oauth/revoke',
          { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: '--x' },
        ],
        ['/oauth/token', { method: 'POST', headers: json, body: '{"grant_type":"refresh_token"}' }],
        ['/oauth/token', { method: 'POST', body: 'grant_type=refresh_token&refresh_token=quire_rt_' }],
        ['/oauth/token', { method: 'POST', body: form({ grant_type: 'password', username: 'a' }) }],
        [
          '/oauth/token',
          { method: 'POST', body: form({ grant_type: 'authorization_code', code: 'x'.repeat(100_000) }) },
        ],
        ['/oauth/register', { method: 'POST', headers: json, body: 'null' }],
        ['/oauth/register', { method: 'POST', headers: json, body: '{"redirect_uris":"x"}' }],
        [
          '/oauth/register',
          {
            method: 'POST',
            headers: json,
            body: '{"redirect_uris":["https://a.test/cb"],"client_name":{"a":1}}',
          },
        ],
        [
          '/oauth/register',
          {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ redirect_uris: Array(11).fill('https://a.test/cb') }),
          },
        ],
        [
          '/oauth/register',
          {
            method: 'POST',
            headers: json,
            body: '{"redirect_uris":["https://a.test/cb"],"grant_types":["client_credentials"]}',
          },
        ],
        ['/oauth/authorize?client_id=%ZZ', { method: 'GET' }],
        ['/oauth/authorize?client_id=a&client_id=b', { method: 'GET' }],
        [
          '/mcp',
          { method: 'POST', headers: { authorization: `Bearer quire_at_${'x'.repeat(5000)}` }, body: '{}' },
        ],
        // An unsigned token (alg none) naming a grant: refused.
        [
          '/mcp',
          {
            method: 'POST',
            headers: { authorization: 'Bearer quire_at_eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
            body: '{}',
          },
        ],
      ];
      for (const [path, init] of reqs) {
        const res = await fetch(`${q.base}${path}`, init);
        expect(res.status, path).toBeGreaterThanOrEqual(400);
        expect(res.status, path).toBeLessThan(500);
        const type = res.headers.get('content-type') ?? '';
        if (path.startsWith('/oauth/token') || path.startsWith('/oauth/register')) {
          expect(type, path).toContain('application/json');
          expect(typeof (await res.json()).error, path).toBe('string');
        }
      }
    });

    it('the consent page has its own strict CSP and escapes what the client declared', async () => {
      const q = await live();
      const reg = await fetch(`${q.base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: '<script>alert(1)</script>' }),
      });
      const { client_id } = await reg.json();
      const provider = new MemoryProvider();
      provider.info = { client_id };
      const client = new Client({ name: 'x', version: '1' });
      await client
        .connect(new StreamableHTTPClientTransport(new URL(q.mcp), { authProvider: provider }))
        .catch(() => {});
      const page = await fetch(provider.authUrl!);
      const html = await page.text();
      expect(html).not.toContain('<script>');
      expect(html).toContain('&lt;script&gt;');
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain(`form-action 'self' http://127.0.0.1:9`);
      // Read-only is checked by default even though the client asked for every scope.
      expect(html).toMatch(/value="notes:read" checked/);
      expect(html).not.toMatch(/value="notes:write" checked/);
    });
  });
});
