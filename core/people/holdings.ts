/**
 * What a signed-in person holds: their sessions (checked against the person on every request)
 * and their own keys, which never exceed their shares. Tokens are stored by SHA-256 only.
 */
import { KEY_PREFIX, newId } from '../auth/keys.ts';
import type { KeyScope } from '../auth/scope.ts';
import { scopeWithin } from '../auth/service.ts';
import { sha256Hex, toBase64Url } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import type { PeopleStore } from './store.ts';
import type { PeopleState, PersonRecord, Session } from './types.ts';

/** Session tokens start with this (bearer through the relay, the cookie directly). */
export const SESSION_PREFIX = 'quire_ss_';

/** A session that is valid now, its person and their scope. */
export interface LiveSession {
  session: Session;
  person: PersonRecord;
  scope: KeyScope | undefined;
}

export function createHoldings(
  store: PeopleStore,
  opts: {
    live: (p: PersonRecord | undefined) => p is PersonRecord;
    scopeOf: (id: string) => KeyScope | undefined;
  },
) {
  const { live } = opts;
  const now = () => store.clock.now();
  const personOf = (st: PeopleState, id: string) => st.people.find((p) => p.id === id);
  return {
    /** The live session for `token`, its person (enabled) and their scope; null otherwise. */
    async session(token: string | undefined): Promise<LiveSession | null> {
      if (!token?.startsWith(SESSION_PREFIX) || token.length > 200) return null;
      const h = await sha256Hex(token);
      const st = store.cur();
      const s = st.sessions.find((x) => x.hash === h);
      if (!s || Date.parse(s.expiresAt) <= now()) return null;
      const p = personOf(st, s.personId);
      if (!live(p)) return null;
      return { session: s, person: p, scope: opts.scopeOf(p.id) };
    },

    /** Records what the session of `token` was started on (its changes name it); nothing when gone. */
    async nameDevice(token: string, device: string): Promise<void> {
      const h = await sha256Hex(token);
      await store.change((st) => {
        const at = st.sessions.findIndex((s) => s.hash === h);
        if (at < 0) return null;
        const sessions = st.sessions.map((s, i) => (i === at ? { ...s, device: device.slice(0, 60) } : s));
        return { next: { ...st, sessions }, out: undefined };
      });
    },

    /** A person's name (`psn_…`) or the name of a person's key, for naming who made a change. */
    nameOf(id: string): string | undefined {
      const st = store.cur();
      if (id.startsWith('psn_')) return personOf(st, id)?.name;
      return st.keys.find((k) => k.id === id)?.name;
    },

    /** Ends the session of `token` (no error when it is already gone). */
    async signOut(token: string | undefined): Promise<{ signedOut: true }> {
      const h = token ? await sha256Hex(token) : '';
      await store.change((st) => {
        if (!st.sessions.some((s) => s.hash === h)) return null;
        return { next: { ...st, sessions: st.sessions.filter((s) => s.hash !== h) }, out: undefined };
      });
      return { signedOut: true };
    },

    /**
     * Mints a key for a person. Without a scope it follows their shares as they change; with
     * one, it must lie within them (403 otherwise) and stops working if the shares shrink below it.
     */
    mintKey(personId: string, name: string, scope?: KeyScope) {
      return store.change(async (st) => {
        const p = personOf(st, personId);
        if (!live(p)) throw new DomainError('UNAUTHORIZED', 'Sign in again.');
        if (scope && !scopeWithin(scope, opts.scopeOf(personId)))
          throw new DomainError('FORBIDDEN', "A person's key can only hold what is shared with them.");
        const apiKey = KEY_PREFIX + toBase64Url(store.random(32));
        const rec = {
          id: newId('key', store.random),
          personId,
          name,
          hash: await sha256Hex(apiKey),
          last4: apiKey.slice(-4),
          createdAt: store.iso(),
          ...(scope ? { scope } : {}),
        };
        const out = {
          id: rec.id,
          name,
          prefix: `${KEY_PREFIX}…${rec.last4}`,
          createdAt: rec.createdAt,
          scope: scope ?? null,
          apiKey,
        };
        return { next: { ...st, keys: [...st.keys, rec] }, out };
      });
    },

    /** A person's key: its id, its person and the scope it acts with now; null when not valid. */
    async personKey(
      apiKey: string,
    ): Promise<{ keyId: string; personId: string; scope: KeyScope | undefined } | null> {
      if (!apiKey.startsWith(KEY_PREFIX) || apiKey.length > 256) return null;
      const h = await sha256Hex(apiKey);
      const st = store.cur();
      const k = st.keys.find((x) => x.hash === h);
      if (!k || !live(personOf(st, k.personId))) return null;
      const own = opts.scopeOf(k.personId);
      if (k.scope && !scopeWithin(k.scope, own)) return null;
      return { keyId: k.id, personId: k.personId, scope: k.scope ?? own };
    },

    /** A person's keys (never the secret). */
    listKeys: (personId: string) =>
      store
        .cur()
        .keys.filter((k) => k.personId === personId)
        .map((k) => ({
          id: k.id,
          name: k.name,
          prefix: `${KEY_PREFIX}…${k.last4}`,
          createdAt: k.createdAt,
          scope: k.scope ?? null,
        })),

    /** Revokes one of a person's keys. */
    revokeKey(personId: string, keyId: string): Promise<{ revoked: string }> {
      return store.change((st) => {
        if (!st.keys.some((k) => k.id === keyId && k.personId === personId))
          throw new DomainError('NOT_FOUND', `No key with id "${keyId}".`);
        return { next: { ...st, keys: st.keys.filter((k) => k.id !== keyId) }, out: { revoked: keyId } };
      });
    },
  };
}
