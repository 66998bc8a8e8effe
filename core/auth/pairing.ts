/** Setup's link and the pairing code: its lifetime, rotation, and its trade for a device key. */
import { constantTimeEqual } from '../crypto.ts';
import { keyInfo } from './api-keys.ts';
import type { Credentials } from './credentials.ts';
import { normalizePairCode } from './keys.ts';
import type { KeyInfo } from './state.ts';

type PairCode = { code: string; expiresAt: string };

/** Marks setup complete (once) and erases the first key's plain text. Idempotent. */
export function link(
  creds: Credentials,
): Promise<{ serverId: string; setupComplete: true; linkedAt: string }> {
  return creds.mutex.run(async () => {
    const st = creds.cur();
    if (!st.setupComplete) {
      // The code the public setup payload showed dies with the link.
      await creds.save({
        ...st,
        setupComplete: true,
        linkedAt: creds.iso(),
        firstKeyPlain: null,
        pairing: creds.retiredCode(),
      });
      creds.changedCode();
      creds.logger?.info('setup complete: first key erased from disk', { serverId: st.serverId });
    }
    return { serverId: creds.cur().serverId, setupComplete: true, linkedAt: creds.cur().linkedAt! };
  });
}

/**
 * The current pairing code. Before link an expired code is replaced by a fresh one (the setup
 * payload shows it); after link only an authenticated rotate makes a new code.
 */
export function pairCode(creds: Credentials): Promise<PairCode> {
  return creds.mutex.run(async () => {
    const st = creds.cur();
    if (st.setupComplete || Date.parse(st.pairing.expiresAt) > creds.clock.now()) return st.pairing;
    await creds.save({ ...st, pairing: creds.freshCode() });
    creds.changedCode();
    return creds.cur().pairing;
  });
}

/** Replaces the pairing code now. */
export function rotatePairCode(creds: Credentials): Promise<PairCode> {
  return creds.mutex.run(async () => {
    await creds.save({ ...creds.cur(), pairing: creds.freshCode() });
    creds.changedCode();
    return creds.cur().pairing;
  });
}

/**
 * Trades a valid, unexpired pairing code for a new device key. The code is spent: before link
 * a fresh one replaces it, after link a retired one (a rotate makes the next). Returns null for
 * a wrong, spent or expired code.
 */
export function redeemPairCode(
  creds: Credentials,
  code: string,
  deviceName: string,
): Promise<(KeyInfo & { apiKey: string }) | null> {
  return creds.mutex.run(async () => {
    const st = creds.cur();
    const ok =
      typeof code === 'string' &&
      constantTimeEqual(normalizePairCode(code), st.pairing.code) &&
      Date.parse(st.pairing.expiresAt) > creds.clock.now();
    if (!ok) return null;
    const { apiKey, rec } = await creds.newKeyRecord(deviceName.slice(0, 100), 'device');
    const next = st.setupComplete ? creds.retiredCode() : creds.freshCode();
    await creds.save({ ...st, keys: [...st.keys, rec], pairing: next });
    creds.changedCode();
    creds.logger?.info('pairing code redeemed: device key minted', { keyId: rec.id });
    return { ...keyInfo(rec), apiKey };
  });
}
