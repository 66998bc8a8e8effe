import { constantTimeEqual, type RandomBytes, secureRandom, toBase64Url } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { createIdentity, type StoredIdentity, serverIdOf } from '../identity.ts';
import { createMutex } from '../mutex.ts';
import type { Clock, Logger, StateStore } from '../ports.ts';
import { hashKey, newApiKey, newId, newPairCode, normalizePairCode, redactKey } from './keys.ts';
import { hasCapability, inScope, type KeyScope } from './scope.ts';
import { type AuthState, type KeyRecord, parseAuthState } from './state.ts';

/** Name of the state file; it holds key hashes, never keys (but the first key until setup completes). */
export const AUTH_STATE_KEY = 'credentials.json';

/** A key as the API lists it. */
export interface KeyInfo {
  id: string;
  name: string;
  kind: 'first' | 'device';
  /** Redacted: the prefix and the last 4 characters. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** What the key may do; null: full access. */
  scope: KeyScope | null;
}

export interface AuthServiceDeps {
  state: StateStore;
  clock: Clock;
  random?: RandomBytes;
  logger?: Logger;
  /** Lifetime of a pairing code (default 15 minutes). */
  pairCodeTtlMs?: number;
}

const LAST_USED_PERSIST_MS = 60_000;

const info = (k: KeyRecord): KeyInfo => ({
  id: k.id,
  name: k.name,
  kind: k.kind,
  prefix: `quire_sk_…${k.last4}`,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  scope: k.scope ?? null,
});

/**
 * True when a key with scope `child` can do nothing a key with scope `parent` cannot: every
 * capability of `child` is held by `parent`, and every folder `child` sees is seen by `parent`.
 */
export function scopeWithin(child: KeyScope | undefined, parent: KeyScope | undefined): boolean {
  if (parent === undefined) return true;
  if (child === undefined) return false;
  if (!child.capabilities.every((c) => hasCapability(parent, c))) return false;
  const parentLimits = (parent.folders?.length ?? 0) > 0 || (parent.exclude?.length ?? 0) > 0;
  if (!parentLimits) return true;
  // The child must name folders, each inside the parent's, and keep out every parent exclude.
  if (!child.folders || child.folders.length === 0) return false;
  if (!child.folders.every((f) => inScope(parent, f))) return false;
  return (parent.exclude ?? []).every(
    (x) =>
      // An exclude of the parent is covered when the child excludes it or one of its ancestors,
      // or when none of the child's folders reaches it.
      (child.exclude ?? []).some((cx) => x.startsWith(cx)) ||
      child.folders!.every((f) => !x.startsWith(f) && !f.startsWith(x)),
  );
}

/**
 * First-run setup and the server's credentials: serverId, API keys (stored hashed), the relay
 * secret and the pairing code. Every change is written atomically before it takes effect.
 */
export function createAuthService(deps: AuthServiceDeps) {
  const { state: store, clock, logger } = deps;
  const random = deps.random ?? secureRandom;
  const ttl = deps.pairCodeTtlMs ?? 15 * 60_000;
  const mutex = createMutex();
  const listeners = new Set<() => void>();
  let s: AuthState | null = null;
  /** Bumped by every saved change (revoke, mint, rotate...): caches of verified keys compare it. */
  let generation = 0;

  const iso = () => new Date(clock.now()).toISOString();
  const cur = (): AuthState => {
    if (!s) throw new Error('auth service used before init()');
    return s;
  };
  const save = async (next: AuthState) => {
    await store.put(AUTH_STATE_KEY, JSON.stringify(next, null, 2));
    s = next;
    generation++;
  };
  const freshCode = () => ({
    code: newPairCode(random),
    expiresAt: new Date(clock.now() + ttl).toISOString(),
  });
  /** An expired code: nothing redeems it, and after link nothing replaces it but a rotate. */
  const retiredCode = () => ({ code: newPairCode(random), expiresAt: new Date(clock.now()).toISOString() });
  const changedCode = () => {
    for (const fn of listeners) fn();
  };
  const newKeyRecord = async (name: string, kind: KeyRecord['kind'], scope?: KeyScope) => {
    const apiKey = newApiKey(random);
    const rec: KeyRecord = {
      id: newId('key', random),
      name,
      kind,
      hash: await hashKey(apiKey),
      last4: apiKey.slice(-4),
      createdAt: iso(),
      lastUsedAt: null,
      ...(scope ? { scope } : {}),
    };
    return { apiKey, rec };
  };

  return {
    /**
     * Loads the state, or creates it on first boot. A damaged file throws (the caller stops the
     * start); it is never replaced, so no second key appears behind the operator's back.
     */
    init(): Promise<{ created: boolean }> {
      return mutex.run(async () => {
        const text = await store.get(AUTH_STATE_KEY);
        if (text !== null) {
          s = parseAuthState(text, `${AUTH_STATE_KEY} in DATA_DIR`);
          return { created: false };
        }
        const { apiKey, rec } = await newKeyRecord('first key', 'first');
        const identity = await createIdentity();
        await save({
          v: 1,
          serverId: (await serverIdOf(identity.publicKey)) as string,
          identity,
          createdAt: iso(),
          setupComplete: false,
          linkedAt: null,
          firstKeyPlain: apiKey,
          keys: [rec],
          relaySecret: toBase64Url(random(32)),
          pairing: freshCode(),
        });
        logger?.info('first boot: credentials created', { serverId: cur().serverId });
        return { created: true };
      });
    },

    /** Changes whenever the stored credentials change; a cache of verified keys is void then. */
    get generation(): number {
      return generation;
    },
    get serverId(): string {
      return cur().serverId;
    },
    get setupComplete(): boolean {
      return cur().setupComplete;
    },
    get linkedAt(): string | null {
      return cur().linkedAt;
    },
    /** The identity key pair; the serverId is derived from its public key (core/identity.ts). */
    get identity(): StoredIdentity {
      return cur().identity;
    },
    /** The secret that proves this server's ownership of its serverId at the relay. */
    get relaySecret(): string {
      return cur().relaySecret;
    },
    /** The first key in plain text while setup is incomplete; null after. */
    firstKeyPlain(): string | null {
      return cur().setupComplete ? null : cur().firstKeyPlain;
    },
    /** The first key redacted (for the setup payload after link). */
    firstKeyRedacted(): string {
      const first = cur().keys.find((k) => k.kind === 'first') ?? cur().keys[0];
      return first ? `quire_sk_…${first.last4}` : redactKey('');
    },

    /** The key's record when `key` is valid, else null. Compares every key in constant time. */
    async verifyKey(key: string | undefined): Promise<KeyInfo | null> {
      if (!key || key.length > 256) return null;
      const h = await hashKey(key);
      let found: KeyRecord | null = null;
      for (const k of cur().keys) if (constantTimeEqual(k.hash, h)) found = k;
      if (!found) return null;
      const now = clock.now();
      const last = found.lastUsedAt ? Date.parse(found.lastUsedAt) : 0;
      if (now - last > LAST_USED_PERSIST_MS) {
        const id = found.id;
        await mutex.run(async () => {
          const st = cur();
          await save({ ...st, keys: st.keys.map((k) => (k.id === id ? { ...k, lastUsedAt: iso() } : k)) });
        });
      }
      return info(found);
    },

    /** Marks setup complete (once) and erases the first key's plain text. Idempotent. */
    link(): Promise<{ serverId: string; setupComplete: true; linkedAt: string }> {
      return mutex.run(async () => {
        const st = cur();
        if (!st.setupComplete) {
          // The code the public setup payload showed dies with the link.
          await save({
            ...st,
            setupComplete: true,
            linkedAt: iso(),
            firstKeyPlain: null,
            pairing: retiredCode(),
          });
          changedCode();
          logger?.info('setup complete: first key erased from disk', { serverId: st.serverId });
        }
        return { serverId: cur().serverId, setupComplete: true, linkedAt: cur().linkedAt! };
      });
    },

    /**
     * Mints a device key, limited to `scope` when given; its plain text is returned once and never
     * stored.
     */
    mintKey(name: string, scope?: KeyScope): Promise<KeyInfo & { apiKey: string }> {
      return mutex.run(async () => {
        const { apiKey, rec } = await newKeyRecord(name, 'device', scope);
        const st = cur();
        await save({ ...st, keys: [...st.keys, rec] });
        return { ...info(rec), apiKey };
      });
    },

    /** The scope of the key with this id (undefined: full access, or no such key). */
    scopeOf(id: string): KeyScope | undefined {
      return cur().keys.find((k) => k.id === id)?.scope;
    },

    /** True while the key with this id exists (not revoked). */
    hasKey(id: string): boolean {
      return cur().keys.some((k) => k.id === id);
    },

    listKeys(): KeyInfo[] {
      return cur().keys.map(info);
    },

    /** Revokes a key; the last remaining key cannot be revoked (it would lock everyone out). */
    revokeKey(id: string): Promise<{ revoked: string }> {
      return mutex.run(async () => {
        const st = cur();
        if (!st.keys.some((k) => k.id === id)) throw new DomainError('NOT_FOUND', `No key with id "${id}".`);
        if (st.keys.length === 1) {
          throw new DomainError('CONFLICT', 'This is the last key; mint another one before revoking it.');
        }
        // Revoking a key also retires the outstanding pairing code (it could mint a replacement).
        await save({ ...st, keys: st.keys.filter((k) => k.id !== id), pairing: retiredCode() });
        changedCode();
        return { revoked: id };
      });
    },

    /**
     * The current pairing code. Before link an expired code is replaced by a fresh one (the setup
     * payload shows it); after link only an authenticated rotate makes a new code.
     */
    pairCode(): Promise<{ code: string; expiresAt: string }> {
      return mutex.run(async () => {
        const st = cur();
        if (st.setupComplete || Date.parse(st.pairing.expiresAt) > clock.now()) return st.pairing;
        await save({ ...st, pairing: freshCode() });
        changedCode();
        return cur().pairing;
      });
    },

    /** Replaces the pairing code now. */
    rotatePairCode(): Promise<{ code: string; expiresAt: string }> {
      return mutex.run(async () => {
        await save({ ...cur(), pairing: freshCode() });
        changedCode();
        return cur().pairing;
      });
    },

    /**
     * Trades a valid, unexpired pairing code for a new device key. The code is spent: before link
     * a fresh one replaces it, after link a retired one (a rotate makes the next). Returns null for
     * a wrong, spent or expired code.
     */
    redeemPairCode(
      code: string,
      deviceName = 'paired device',
    ): Promise<(KeyInfo & { apiKey: string }) | null> {
      return mutex.run(async () => {
        const st = cur();
        const ok =
          typeof code === 'string' &&
          constantTimeEqual(normalizePairCode(code), st.pairing.code) &&
          Date.parse(st.pairing.expiresAt) > clock.now();
        if (!ok) return null;
        const { apiKey, rec } = await newKeyRecord(deviceName.slice(0, 100), 'device');
        const next = st.setupComplete ? retiredCode() : freshCode();
        await save({ ...st, keys: [...st.keys, rec], pairing: next });
        changedCode();
        logger?.info('pairing code redeemed: device key minted', { keyId: rec.id });
        return { ...info(rec), apiKey };
      });
    },

    /** Called after every change of the pairing code (the relay connector re-announces its hash). */
    onPairCodeChange(fn: () => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
