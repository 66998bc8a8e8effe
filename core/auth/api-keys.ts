/** The API keys in the credentials file: verify one, mint one, revoke one. */
import { constantTimeEqual } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import type { Credentials } from './credentials.ts';
import { hashKey } from './keys.ts';
import type { KeyScope } from './scope.ts';
import type { KeyInfo, KeyRecord } from './state.ts';

const LAST_USED_PERSIST_MS = 60_000;

/** A stored key as the API lists it. */
export const keyInfo = (k: KeyRecord): KeyInfo => ({
  id: k.id,
  name: k.name,
  kind: k.kind,
  prefix: `quire_sk_…${k.last4}`,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  scope: k.scope ?? null,
});

/** The key's record when `key` is valid, else null. Compares every key in constant time. */
export async function verifyKey(creds: Credentials, key: string | undefined): Promise<KeyInfo | null> {
  if (!key || key.length > 256) return null;
  const h = await hashKey(key);
  let found: KeyRecord | null = null;
  for (const k of creds.cur().keys) if (constantTimeEqual(k.hash, h)) found = k;
  if (!found) return null;
  const last = found.lastUsedAt ? Date.parse(found.lastUsedAt) : 0;
  if (creds.clock.now() - last > LAST_USED_PERSIST_MS) {
    const id = found.id;
    await creds.mutex.run(async () => {
      const st = creds.cur();
      await creds.save({
        ...st,
        keys: st.keys.map((k) => (k.id === id ? { ...k, lastUsedAt: creds.iso() } : k)),
      });
    });
  }
  return keyInfo(found);
}

/** Mints a device key, limited to `scope` when given; its plain text is returned once and never stored. */
export function mintKey(
  creds: Credentials,
  name: string,
  scope?: KeyScope,
): Promise<KeyInfo & { apiKey: string }> {
  return creds.mutex.run(async () => {
    const { apiKey, rec } = await creds.newKeyRecord(name, 'device', scope);
    const st = creds.cur();
    await creds.save({ ...st, keys: [...st.keys, rec] });
    return { ...keyInfo(rec), apiKey };
  });
}

/** Revokes a key; the last remaining key cannot be revoked (it would lock everyone out). */
export function revokeKey(creds: Credentials, id: string): Promise<{ revoked: string }> {
  return creds.mutex.run(async () => {
    const st = creds.cur();
    if (!st.keys.some((k) => k.id === id)) throw new DomainError('NOT_FOUND', `No key with id "${id}".`);
    if (st.keys.length === 1) {
      throw new DomainError('CONFLICT', 'This is the last key; mint another one before revoking it.');
    }
    // Revoking a key also retires the outstanding pairing code (it could mint a replacement).
    await creds.save({ ...st, keys: st.keys.filter((k) => k.id !== id), pairing: creds.retiredCode() });
    creds.changedCode();
    return { revoked: id };
  });
}
