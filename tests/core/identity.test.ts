import { describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { AUTH_STATE_KEY, createAuthService } from '../../core/auth/service.ts';
import {
  createIdentity,
  identitySigner,
  isKeyDerivedId,
  registerStatement,
  serverIdOf,
  verifySignature,
} from '../../core/identity.ts';

const clock = { now: () => Date.parse('2026-11-25T00:00:00Z') };
const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
const logger = {
  debug() {},
  info() {},
  warn: (msg: string, fields?: Record<string, unknown>) => void warnings.push({ msg, fields }),
  error() {},
};

describe('server identity key', () => {
  it('derives a 32-character base32 serverId from the public key; signatures verify only for that key', async () => {
    const a = await createIdentity();
    const b = await createIdentity();
    const id = (await serverIdOf(a.publicKey)) as string;
    expect(isKeyDerivedId(id)).toBe(true);
    expect(await serverIdOf(a.publicKey)).toBe(id);
    expect(await serverIdOf(b.publicKey)).not.toBe(id);
    expect(await serverIdOf('not-a-key')).toBeNull();
    const text = registerStatement(id, a.publicKey, 1, 'nonce-nonce-nonce-1', 'ab'.repeat(32));
    const sig = await identitySigner(a).sign(text);
    expect(await verifySignature(a.publicKey, text, sig)).toBe(true);
    expect(await verifySignature(b.publicKey, text, sig)).toBe(false);
    expect(await verifySignature(a.publicKey, `${text}x`, sig)).toBe(false);
    expect(await verifySignature(a.publicKey, text, 'garbage')).toBe(false);
  });

  it('a fresh server is created with a key pair and the serverId it names', async () => {
    const state = memoryStateStore();
    const svc = createAuthService({ state, clock });
    await svc.init();
    expect(svc.serverId).toBe(await serverIdOf(svc.identity.publicKey));
    const stored = JSON.parse((await state.get(AUTH_STATE_KEY)) as string);
    expect(stored.identity.publicKey).toBe(svc.identity.publicKey);
    expect(stored.previousServerId).toBeUndefined();
  });

  it('migrates an existing installation once: a key pair, the derived serverId, the old id kept for the record', async () => {
    const state = memoryStateStore();
    const before = createAuthService({ state, clock });
    await before.init();
    // An installation made before identity keys: a random srv_ id and no key pair.
    const old = JSON.parse((await state.get(AUTH_STATE_KEY)) as string);
    delete old.identity;
    old.serverId = 'srv_AbCdEf123456';
    await state.put(AUTH_STATE_KEY, JSON.stringify(old));

    warnings.length = 0;
    const svc = createAuthService({ state, clock, logger });
    await svc.init();
    expect(svc.serverId).not.toBe('srv_AbCdEf123456');
    expect(svc.serverId).toBe(await serverIdOf(svc.identity.publicKey));
    const stored = JSON.parse((await state.get(AUTH_STATE_KEY)) as string);
    expect(stored).toMatchObject({ serverId: svc.serverId, previousServerId: 'srv_AbCdEf123456' });
    // Keys and everything else are untouched.
    expect(stored.keys).toEqual(old.keys);
    expect(warnings).toEqual([
      expect.objectContaining({ fields: { previousServerId: 'srv_AbCdEf123456', serverId: svc.serverId } }),
    ]);
    // Once: the next start keeps the same key and id.
    const again = createAuthService({ state, clock, logger });
    await again.init();
    expect(again.serverId).toBe(svc.serverId);
    expect(again.identity).toEqual(svc.identity);
    expect(warnings).toHaveLength(1);
  });
});
