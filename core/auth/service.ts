import type { StoredIdentity } from '../identity.ts';
import { keyInfo, mintKey, revokeKey, verifyKey } from './api-keys.ts';
import { type AuthServiceDeps, Credentials } from './credentials.ts';
import { redactKey } from './keys.ts';
import { link, pairCode, redeemPairCode, rotatePairCode } from './pairing.ts';
import { hasCapability, inScope, inWriteScope, type KeyScope } from './scope.ts';
import type { KeyInfo } from './state.ts';

export { AUTH_STATE_KEY, type AuthServiceDeps } from './credentials.ts';
export type { KeyInfo } from './state.ts';

/**
 * True when a key with scope `child` can do nothing a key with scope `parent` cannot: every
 * capability of `child` is held by `parent`, and every folder `child` sees is seen by `parent`.
 */
export function scopeWithin(child: KeyScope | undefined, parent: KeyScope | undefined): boolean {
  if (parent === undefined) return true;
  if (child === undefined) return false;
  if (!child.capabilities.every((c) => hasCapability(parent, c))) return false;
  if (!writesWithin(child, parent)) return false;
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

const WRITES = ['notes:write', 'files:write'] as const;

/** When `parent` limits where it writes, `child` writes (if at all) only inside those folders. */
function writesWithin(child: KeyScope, parent: KeyScope): boolean {
  if (parent.writeFolders === undefined) return true;
  if (!WRITES.some((c) => child.capabilities.includes(c))) return true;
  const where = child.writeFolders ?? child.folders ?? [];
  return where.length > 0 && where.every((f) => inWriteScope(parent, f));
}

/**
 * First-run setup and the server's credentials: serverId, API keys (stored hashed), the relay
 * secret and the pairing code. Every change is written atomically before it takes effect: the
 * file is a `Credentials`, the keys are in api-keys.ts, the pairing code and link in pairing.ts.
 */
export function createAuthService(deps: AuthServiceDeps) {
  const creds = new Credentials(deps);
  const cur = () => creds.cur();
  return {
    /**
     * Loads the state, or creates it on first boot. A damaged file throws (the caller stops the
     * start); it is never replaced, so no second key appears behind the operator's back.
     */
    init: (): Promise<{ created: boolean }> => creds.init(),

    /** Changes whenever the stored credentials change; a cache of verified keys is void then. */
    get generation(): number {
      return creds.generation;
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
    verifyKey: (key: string | undefined): Promise<KeyInfo | null> => verifyKey(creds, key),
    /** Marks setup complete (once) and erases the first key's plain text. Idempotent. */
    link: () => link(creds),
    /** Mints a device key, limited to `scope` when given; its plain text is returned once. */
    mintKey: (name: string, scope?: KeyScope) => mintKey(creds, name, scope),
    /** The scope of the key with this id (undefined: full access, or no such key). */
    scopeOf: (id: string): KeyScope | undefined => cur().keys.find((k) => k.id === id)?.scope,
    /** True while the key with this id exists (not revoked). */
    hasKey: (id: string): boolean => cur().keys.some((k) => k.id === id),
    listKeys: (): KeyInfo[] => cur().keys.map(keyInfo),
    /** Revokes a key; the last remaining key cannot be revoked (it would lock everyone out). */
    revokeKey: (id: string) => revokeKey(creds, id),
    /** The current pairing code (replaced when expired before link). */
    pairCode: () => pairCode(creds),
    /** Replaces the pairing code now. */
    rotatePairCode: () => rotatePairCode(creds),
    /** Trades a valid, unexpired pairing code for a new device key; null for a wrong, spent or expired one. */
    redeemPairCode: (code: string, deviceName = 'paired device') => redeemPairCode(creds, code, deviceName),
    /** Called after every change of the pairing code (the relay connector re-announces its hash). */
    onPairCodeChange(fn: () => void): () => void {
      creds.listeners.add(fn);
      return () => creds.listeners.delete(fn);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
