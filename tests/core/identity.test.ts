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
  });

  it('credentials without a key pair are refused with one line, never re-keyed behind the operator', async () => {
    // No build without identity keys was ever released: a file without a key pair is damaged.
    const state = memoryStateStore();
    await createAuthService({ state, clock }).init();
    const stored = JSON.parse((await state.get(AUTH_STATE_KEY)) as string);
    delete stored.identity;
    await state.put(AUTH_STATE_KEY, JSON.stringify(stored));
    await expect(createAuthService({ state, clock, logger }).init()).rejects.toThrow(
      /credentials\.json in DATA_DIR is damaged \(field identity\)/,
    );
    // Nothing was written over it.
    expect(JSON.parse((await state.get(AUTH_STATE_KEY)) as string)).toEqual(stored);
    expect(warnings).toEqual([]);
  });
});
