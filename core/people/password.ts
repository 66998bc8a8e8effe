/**
 * Passwords, hashed with scrypt (memory-hard; @noble/hashes, pure JS). The parameters are
 * stored with each hash, so they can rise later without breaking old ones. N=2^14, r=8 (16 MiB)
 * measured 105 ms median on the shared 2-core build machine under load (decision 0030).
 */
import { scryptAsync } from '@noble/hashes/scrypt';
import { constantTimeEqual, fromBase64, type RandomBytes, toBase64Url } from '../crypto.ts';

/** scrypt cost parameters. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 14, r: 8, p: 1 };

/** Shortest and longest password accepted (bytes beyond the cap would only cost hashing time). */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

const b64 = (s: string) => fromBase64(s.replace(/-/g, '+').replace(/_/g, '/'));

async function derive(password: string, salt: Uint8Array, prm: ScryptParams): Promise<Uint8Array> {
  return scryptAsync(password.normalize('NFC'), salt, { ...prm, dkLen: 32, asyncTick: 10 });
}

/** The stored form of `password`: `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(
  password: string,
  random: RandomBytes,
  prm = DEFAULT_SCRYPT,
): Promise<string> {
  const salt = random(16);
  const dk = await derive(password, salt, prm);
  return `scrypt$${prm.N}$${prm.r}$${prm.p}$${toBase64Url(salt)}$${toBase64Url(dk)}`;
}

/** True when `password` matches `stored`; false for a malformed record. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![N, r, p].every((x) => Number.isInteger(x) && x > 0)) return false;
  const dk = await derive(password, b64(parts[4]!), { N, r, p });
  return constantTimeEqual(toBase64Url(dk), parts[5]!);
}
