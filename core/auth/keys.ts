import { type RandomBytes, sha256Hex, toBase64Url } from '../crypto.ts';

/** Every API key starts with this. */
export const KEY_PREFIX = 'quire_sk_';

const CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'; // no 0/O, 1/I

/** A new API key: the prefix and 32 random bytes in base64url. */
export function newApiKey(random: RandomBytes): string {
  return KEY_PREFIX + toBase64Url(random(32));
}

/** A short random id with a readable prefix (`key_…`, `srv_…`). */
export function newId(prefix: string, random: RandomBytes, bytes = 9): string {
  return `${prefix}_${toBase64Url(random(bytes))}`;
}

/** A pairing code a person can type: 10 characters (50 bits) in two groups, e.g. `7KQ2M-XW9PA`. */
export function newPairCode(random: RandomBytes): string {
  const bytes = random(10);
  let out = '';
  for (let i = 0; i < 10; i++) {
    out += CODE_ALPHABET[bytes[i]! & 31];
    if (i === 4) out += '-';
  }
  return out;
}

/** Normalizes a typed pairing code (case, spaces, missing dash). */
export function normalizePairCode(code: string): string {
  const c = code.toUpperCase().replace(/[^0-9A-Z]/g, '');
  return c.length === 10 ? `${c.slice(0, 5)}-${c.slice(5)}` : c;
}

/** SHA-256 hex of a key; only this is stored. */
export function hashKey(key: string): Promise<string> {
  return sha256Hex(key);
}

/** The redacted form of a key: the prefix and its last 4 characters. */
export function redactKey(key: string): string {
  return `${KEY_PREFIX}…${key.slice(-4)}`;
}
