/** Checks of the webhook's shared secrets and of WhatsApp's body signature (Web Crypto only). */
import { constantTimeEqual, sha256Hex, toHex } from '../crypto.ts';

/** SHA-256 hex of a secret, as stored. */
export function secretHash(secret: string): Promise<string> {
  return sha256Hex(secret);
}

/** True when `given` hashes to `storedHash` (compared in constant time). */
export async function secretMatches(given: string | undefined, storedHash: string): Promise<boolean> {
  if (given === undefined || given === '') return false;
  return constantTimeEqual(await secretHash(given), storedHash);
}

/** HMAC-SHA256 of `body` with `key`, as lowercase hex. */
export async function hmacSha256Hex(key: string, body: Uint8Array): Promise<string> {
  const k = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', k, body as Uint8Array<ArrayBuffer>);
  return toHex(new Uint8Array(mac));
}

/**
 * True when `header` is Meta's `X-Hub-Signature-256` (`sha256=<hex>`) of the raw `body` bytes
 * under `appSecret`; compared in constant time.
 */
export async function hubSignatureValid(
  appSecret: string,
  body: Uint8Array,
  header: string | undefined,
): Promise<boolean> {
  const m = header?.trim().match(/^sha256=([0-9a-fA-F]{64})$/);
  if (!m) return false;
  return constantTimeEqual(await hmacSha256Hex(appSecret, body), m[1]!.toLowerCase());
}
