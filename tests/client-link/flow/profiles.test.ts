import { describe, expect, it } from 'vitest';
import { PROFILES_KEY, type Profile, profileStore } from '../../../client-link/src/flow/profiles.ts';
import { memoryStorage } from '../storage.ts';

const KEY = `quire_sk_${'A1b2C3d4'.repeat(6)}`;

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
