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
    ])
      expect(redirectUriProblem(bad), bad).not.toBeNull();
  });
});
