import { describe, expect, it } from 'vitest';
import { isLocalHost, normalizeServerUrl, UrlProblem } from '../../client-link/src/flow/normalize.ts';
import {
  LinkProblem,
  parseLinkQuery,
  strippedUrl,
  validateCredentials,
} from '../../client-link/src/flow/parse.ts';
import { PROFILES_KEY, type Profile, profileStore } from '../../client-link/src/flow/profiles.ts';
import { redact, redactKey } from '../../client-link/src/flow/redact.ts';
import { memoryStorage } from './storage.ts';

const KEY = `quire_sk_${'A1b2C3d4'.repeat(6)}`;

describe('step 1: parse', () => {
  it('reads a direct link', () => {
    expect(parseLinkQuery(`?serverUrl=https%3A%2F%2Fnotes.example&apiKey=${KEY}`)).toEqual({
      mode: 'direct',
      serverUrl: 'https://notes.example',
      apiKey: KEY,
    });
  });
  it('reads a relay link with and without relayUrl; relay wins over direct parameters', () => {
    expect(parseLinkQuery('?relayCode=7KQ2M-XW9PA&relayUrl=https://relay.example')).toEqual({
      mode: 'relay',
      relayCode: '7KQ2M-XW9PA',
      relayUrl: 'https://relay.example',
    });
    expect(parseLinkQuery('?relayCode=7KQ2M-XW9PA')).toEqual({
      mode: 'relay',
      relayCode: '7KQ2M-XW9PA',
      relayUrl: null,
    });
    expect(parseLinkQuery(`?relayCode=7KQ2M-XW9PA&serverUrl=x&apiKey=${KEY}`).mode).toBe('relay');
  });
  it.each([
    ['', 'MISSING_PARAMS', /no server address and key/],
    [`?apiKey=${KEY}`, 'MISSING_PARAMS', /no server address/],
    ['?serverUrl=https://a.example', 'MISSING_PARAMS', /no API key/],
    ['?serverUrl=%20&apiKey=%20', 'MISSING_PARAMS', /no server address and key/],
    ['?relayCode=%3Cscript%3E', 'MALFORMED_PARAMS', /pairing code .* malformed/],
    ['?relayCode=ab', 'MALFORMED_PARAMS', /malformed/],
  ])('refuses %j with %s', (query, code, message) => {
    let caught: unknown;
    try {
      parseLinkQuery(query);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(LinkProblem);
    expect((caught as LinkProblem).code).toBe(code);
    expect((caught as LinkProblem).message).toMatch(message);
    expect((caught as LinkProblem).message).not.toContain(KEY);
  });
  it('strips every link parameter from the address and keeps the rest', () => {
    expect(strippedUrl(`http://h:1/link?relayCode=C&x=1&apiKey=${KEY}&relayUrl=r&serverUrl=s#top`)).toBe(
      '/link?x=1#top',
    );
    expect(strippedUrl(`http://h:1/link?apiKey=${KEY}`)).toBe('/link');
  });
});

describe('step 3: validate', () => {
  it('accepts a key of the right shape', () => {
    expect(() => validateCredentials('https://a.example', KEY)).not.toThrow();
  });
  it.each([['quire_sk_short'], ['sk-ant-0123456789012345678901234567890123'], [`${KEY} extra`], ['']])(
    'refuses the key %j without echoing it',
    (key) => {
      let caught: unknown;
      try {
        validateCredentials('https://a.example', key);
      } catch (e) {
        caught = e;
      }
      expect((caught as LinkProblem).code).toBe('MALFORMED_PARAMS');
      if (key) expect((caught as Error).message).not.toContain(key);
    },
  );
  it('refuses an empty server address', () => {
    expect(() => validateCredentials('  ', KEY)).toThrow(/server address is missing/);
  });
});

describe('step 4: normalize', () => {
  it.each([
    ['notes.example.com', 'https://notes.example.com'],
    ['  https://notes.example.com/  ', 'https://notes.example.com'],
    ['https://Notes.Example.com:8443/base//?q=1#frag', 'https://notes.example.com:8443/base'],
    ['https://relay.example/r/srv_AbC-1/', 'https://relay.example/r/srv_AbC-1'],
    ['https://notes.example/api/v1/', 'https://notes.example'],
    ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000'],
    ['http://localhost:8787/r/srv_x', 'http://localhost:8787/r/srv_x'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['http://192.168.1.20:3000', 'http://192.168.1.20:3000'],
    ['http://10.1.2.3', 'http://10.1.2.3'],
    ['http://172.20.0.4:3000', 'http://172.20.0.4:3000'],
    ['http://nas.local:3000', 'http://nas.local:3000'],
    ['192.168.1.20:3000', 'https://192.168.1.20:3000'],
  ])('%s -> %s', (raw, want) => {
    expect(normalizeServerUrl(raw)).toBe(want);
  });
  it.each([
    ['', /empty/],
    [
      'http://notes.example.com',
      /only allowed for this machine or your local network; use https:\/\/notes.example.com/,
    ],
    ['http://172.32.0.1', /only allowed/],
    ['http://8.8.8.8', /only allowed/],
    ['ftp://notes.example.com', /must start with https/],
    ['javascript:alert(1)', /not a valid URL|must start with https/],
    ['https://user:pw@notes.example.com', /user name or password/],
    ['https://exa mple.com', /spaces/],
    ['https://', /not a valid URL/],
  ])('refuses %j', (raw, message) => {
    expect(() => normalizeServerUrl(raw)).toThrow(UrlProblem);
    expect(() => normalizeServerUrl(raw)).toThrow(message);
  });
  it('knows local hosts', () => {
    for (const h of [
      'localhost',
      'a.localhost',
      '127.8.0.1',
      '169.254.1.1',
      '[fd12::1]',
      'fe80::1',
      'pi.local',
    ])
      expect(isLocalHost(h), h).toBe(true);
    for (const h of ['example.com', '11.0.0.1', '192.169.0.1', 'local.example.com', '2001:db8::1'])
      expect(isLocalHost(h), h).toBe(false);
  });
});

describe('redaction', () => {
  it('redacts keys, pairing codes, secret parameters and named secrets', () => {
    const text = `key ${KEY} code 7KQ2M-XW9PA url https://x/link?apiKey=abc&relayCode=def&ok=1 named hunter22`;
    const out = redact(text, ['hunter22']);
    expect(out).not.toContain(KEY);
    expect(out).toContain(redactKey(KEY));
    expect(out).not.toContain('7KQ2M-XW9PA');
    expect(out).toContain('apiKey=[redacted]&relayCode=[redacted]&ok=1');
    expect(out).not.toContain('hunter22');
  });
  it('shows at most the last four characters of a key', () => {
    expect(redactKey(KEY)).toBe(`quire_sk_…${KEY.slice(-4)}`);
    expect(redactKey('something-else')).toBe('…');
  });
});

describe('step 7: profiles', () => {
  const profile = (id: string, apiKey = KEY): Profile => ({
    id,
    serverId: id,
    serverUrl: `https://${id}.example`,
    apiKey,
    mode: 'direct',
    relayUrl: null,
    name: id,
    linkedAt: '2026-11-23T00:00:00.000Z',
  });

  it('keeps several profiles with one active, under one documented key', () => {
    const storage = memoryStorage();
    const store = profileStore(storage);
    expect(store.active()).toBeNull();
    store.save(profile('a'));
    store.save(profile('b'));
    expect(store.list().map((p) => p.id)).toEqual(['a', 'b']);
    expect(store.active()?.id).toBe('b');
    expect(store.activate('a')).toBe(true);
    expect(store.activate('zzz')).toBe(false);
    expect(store.active()?.id).toBe('a');
    expect(JSON.parse(storage.getItem(PROFILES_KEY)!).active).toBe('a');
  });
  it('replaces a re-linked profile in place', () => {
    const store = profileStore(memoryStorage());
    store.save(profile('a'));
    store.save(profile('b'));
    store.save(profile('a', `${KEY}new`));
    expect(store.list().map((p) => [p.id, p.apiKey.endsWith('new')])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });
  it('forgets a profile and its key; the next becomes active', () => {
    const storage = memoryStorage();
    const store = profileStore(storage);
    store.save(profile('a'));
    store.save(profile('b', `${KEY}bbbb`));
    store.forget('b');
    expect(store.active()?.id).toBe('a');
    expect(storage.getItem(PROFILES_KEY)).not.toContain(`${KEY}bbbb`);
    store.forget('a');
    expect(store.active()).toBeNull();
    expect(store.list()).toEqual([]);
  });
  it('reads damaged storage as empty, never throws', () => {
    for (const raw of ['{', '[]', '{"version":2}', '{"version":1,"profiles":[{"id":1}],"active":"x"}']) {
      const storage = memoryStorage({ [PROFILES_KEY]: raw });
      const store = profileStore(storage);
      expect(store.list()).toEqual([]);
      expect(store.active()).toBeNull();
      store.save(profile('a'));
      expect(store.active()?.id).toBe('a');
    }
  });
});
