import { describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import {
  boundedScope,
  createOAuthService,
  OAUTH_STATE_KEY,
  OAuthError,
  redirectUriProblem,
} from '../../../core/auth/oauth.ts';

const RESOURCE = 'https://notes.example/mcp';
const ISSUER = 'https://notes.example';
const VERIFIER = 'a'.repeat(43);

async function challenge(verifier: string) {
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return Buffer.from(d).toString('base64url');
}

/** A service over `state`, with a key set the test controls and a clock it moves. */
function make(state = memoryStateStore(), keys = new Set(['key_a'])) {
  let t = 1_800_000_000_000;
  const oauth = createOAuthService({
    state,
    clock: { now: () => t },
    auth: { hasKey: (id) => keys.has(id) },
  });
  return { oauth, state, keys, advance: (ms: number) => (t += ms) };
}

async function grant(oauth: ReturnType<typeof make>['oauth']) {
  const client = await oauth.registerClient({ redirect_uris: ['http://127.0.0.1:5000/cb'] });
  const req = oauth.checkAuthorize(
    {
      client_id: client.clientId,
      redirect_uri: 'http://127.0.0.1:5000/cb',
      response_type: 'code',
      code_challenge: await challenge(VERIFIER),
      code_challenge_method: 'S256',
      state: 's',
    },
    RESOURCE,
  );
  const code = await oauth.issueCode(req, 'key_a', { capabilities: ['notes:read'] });
  const tokens = await oauth.exchangeCode(
    { code, client_id: client.clientId, redirect_uri: 'http://127.0.0.1:5000/cb', code_verifier: VERIFIER },
    ISSUER,
  );
  return { client, tokens };
}

describe('core/auth/oauth.ts', () => {
  it('grants survive a restart (DATA_DIR); refresh tokens are stored hashed; a damaged file starts over', async () => {
    const a = make();
    await a.oauth.init();
    const { tokens } = await grant(a.oauth);
    const stored = (await a.state.get(OAUTH_STATE_KEY))!;
    expect(stored).not.toContain(tokens.refresh_token);
    expect(stored).not.toContain(tokens.access_token);

    const b = make(a.state, a.keys);
    await b.oauth.init();
    expect(await b.oauth.verifyAccess(tokens.access_token, RESOURCE)).toMatchObject({
      scope: { capabilities: ['notes:read'] },
    });
    expect(await b.oauth.verifyAccess(tokens.access_token, 'https://other.example/mcp')).toBeNull();
    const next = await b.oauth.refresh({ refresh_token: tokens.refresh_token }, ISSUER);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);

    await a.state.put(OAUTH_STATE_KEY, '{"v":1,');
    const c = make(a.state, a.keys);
    await c.oauth.init();
    expect(c.oauth.grants()).toEqual([]);
    expect(await c.oauth.verifyAccess(next.access_token, RESOURCE)).toBeNull();
  });

  it('a grant ends when its approving key is gone, and when its refresh token expires', async () => {
    const s = make();
    await s.oauth.init();
    const { tokens } = await grant(s.oauth);
    s.keys.delete('key_a');
    expect(await s.oauth.verifyAccess(tokens.access_token, RESOURCE)).toBeNull();
    expect(s.oauth.grants()).toEqual([]);

    s.keys.add('key_a');
    const again = await grant(s.oauth);
    s.advance(31 * 86_400_000);
    await expect(
      s.oauth.refresh({ refresh_token: again.tokens.refresh_token }, ISSUER),
    ).rejects.toBeInstanceOf(OAuthError);
  });

  it('one code sent twice at once never makes two grants (a replay ends what it made)', async () => {
    const s = make();
    await s.oauth.init();
    const client = await s.oauth.registerClient({ redirect_uris: ['http://127.0.0.1:5000/cb'] });
    const req = s.oauth.checkAuthorize(
      {
        client_id: client.clientId,
        redirect_uri: 'http://127.0.0.1:5000/cb',
        response_type: 'code',
        code_challenge: await challenge(VERIFIER),
        code_challenge_method: 'S256',
      },
      RESOURCE,
    );
    const code = await s.oauth.issueCode(req, 'key_a', { capabilities: ['notes:read'] });
    const p = {
      code,
      client_id: client.clientId,
      redirect_uri: 'http://127.0.0.1:5000/cb',
      code_verifier: VERIFIER,
    };
    const both = await Promise.allSettled([s.oauth.exchangeCode(p, ISSUER), s.oauth.exchangeCode(p, ISSUER)]);
    expect(both.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(1);
    for (const r of both)
      if (r.status === 'fulfilled')
        expect(await s.oauth.verifyAccess(r.value.access_token, RESOURCE)).toBeNull();
    expect(s.oauth.grants()).toEqual([]);
  });

  it('a grant never exceeds the approving key: capabilities intersect, folders must lie inside', () => {
    const key = {
      capabilities: ['notes:read', 'notes:write'] as const,
      folders: ['Work/'],
      exclude: ['Work/hr/'],
    };
    const k = { ...key, capabilities: [...key.capabilities] };
    expect(boundedScope({ capabilities: ['notes:read', 'files:read'] }, k)).toEqual({
      capabilities: ['notes:read'],
      folders: ['Work/'],
      exclude: ['Work/hr/'],
    });
    expect(boundedScope({ capabilities: ['notes:read'], folders: ['Work/a'] }, k).folders).toEqual([
      'Work/a/',
    ]);
    expect(() => boundedScope({ capabilities: ['notes:read'], folders: ['Home/'] }, k)).toThrow(/outside/);
    expect(() => boundedScope({ capabilities: ['files:read'] }, k)).toThrow(OAuthError);
    expect(() => boundedScope({ capabilities: ['notes:read'], folders: ['../x'] }, undefined)).toThrow(
      OAuthError,
    );
    // A full-access key grants what was picked.
    expect(boundedScope({ capabilities: ['notes:read', 'files:read'] }, undefined)).toEqual({
      capabilities: ['notes:read', 'files:read'],
    });
  });

  it('redirect URIs: https, loopback http, app schemes; nothing that runs or leaks', () => {
    for (const ok of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1:33418/cb',
      'http://localhost/cb',
      'cursor://anysphere.cursor-retrieval/oauth/callback',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'com.example.app:/oauth2redirect',
      'COM.Example.App://cb',
    ])
      expect(redirectUriProblem(ok), ok).toBeNull();
    for (const bad of [
      'http://example.com/cb',
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'https://x.test/#f',
      'https://u:p@x.test/',
      'not a uri',
      // Schemes of the browser or the OS: an allow-list, so none of these gets in.
      'ms-msdt:/id PCWDiagnostic',
      'chrome://settings',
      'view-source:https://x.test/',
      'jar:https://x.test/a.jar!/',
      'vbscript:msgbox',
      'blob:https://x.test/1',
      'about:blank',
      'ws://127.0.0.1/cb',
      'ftp://x.test/cb',
      'myapp:/cb',
      'intent://x#Intent;end',
    ])
      expect(redirectUriProblem(bad), bad).not.toBeNull();
  });

  it('a registration writes nothing; a flood never evicts an approved client; waiting ones are capped and expire', async () => {
    const writes: { key: string; bytes: number }[] = [];
    const inner = memoryStateStore();
    const state = {
      ...inner,
      put: async (key: string, value: string) => {
        writes.push({ key, bytes: value.length });
        await inner.put(key, value);
      },
    };
    let t = 1_800_000_000_000;
    const oauth = createOAuthService({
      state,
      clock: { now: () => t },
      auth: { hasKey: () => true },
      maxPending: 50,
    });
    await oauth.init();
    const { client: approved, tokens } = await grant(oauth);
    const waiting = await oauth.registerClient({ redirect_uris: ['https://app.test/cb'] });
    writes.length = 0;
    // The largest registrations there are, far past the cap: no write at all.
    const uri = (i: number) => `https://evil.test/${i}/${'x'.repeat(360)}`;
    for (let i = 0; i < 600; i++)
      await oauth.registerClient({ redirect_uris: Array.from({ length: 10 }, (_, j) => uri(i * 10 + j)) });
    expect(writes).toEqual([]);
    // The approved client is still known; the oldest waiting registration made room.
    expect(oauth.client(approved.clientId)?.clientId).toBe(approved.clientId);
    expect(oauth.client(waiting.clientId)).toBeNull();
    // A refresh writes what approvals made, not what registrations did.
    const next = await oauth.refresh({ refresh_token: tokens.refresh_token }, ISSUER);
    expect(next.access_token).toMatch(/^quire_at_/);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.bytes).toBeLessThan(4_000);
    // A registration nobody approves expires (a day), and too long a list of URIs is refused.
    const late = await oauth.registerClient({ redirect_uris: ['https://app.test/cb'] });
    expect(oauth.client(late.clientId)).not.toBeNull();
    t += 86_400_000;
    expect(oauth.client(late.clientId)).toBeNull();
    expect(oauth.client(approved.clientId)).not.toBeNull();
    expect(() =>
      oauth.registerClient({
        redirect_uris: Array.from({ length: 10 }, (_, j) => `https://a.test/${j}/${'y'.repeat(500)}`),
      }),
    ).toThrow(OAuthError);
  });

  it('an approval makes the registration a stored client; approved clients and grants are capped', async () => {
    const state = memoryStateStore();
    const t = 1_800_000_000_000;
    const keys = new Set(['key_a']);
    const oauth = createOAuthService({
      state,
      clock: { now: () => t },
      auth: { hasKey: (id) => keys.has(id) },
      maxClients: 2,
      maxGrants: 2,
    });
    await oauth.init();
    const a = await grant(oauth);
    // Survives a restart once approved.
    const again = createOAuthService({ state, clock: { now: () => t }, auth: { hasKey: () => true } });
    await again.init();
    expect(again.client(a.client.clientId)).not.toBeNull();
    await grant(oauth);
    // Two live grants: a third approval is refused, nothing is pushed out.
    await expect(grant(oauth)).rejects.toThrow(/most grants/);
    expect(oauth.grants()).toHaveLength(2);
    // Once a grant ends, its client (now idle) makes room for the next approved client.
    await oauth.revoke(a.tokens.refresh_token);
    await grant(oauth);
    expect(oauth.grants()).toHaveLength(2);
    expect(JSON.parse((await state.get(OAUTH_STATE_KEY))!).clients).toHaveLength(2);
  });
});
