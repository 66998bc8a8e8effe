/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` plus
 * base64 key bytes; the signature is `v1,` plus base64 HMAC-SHA256 of `id.timestamp.body`.
 */
import type { RandomBytes } from '../../crypto.ts';

/** A Standard Webhooks secret: `whsec_` and base64 of 24 to 64 bytes. */
export const WEBHOOK_SECRET = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const toBase64 = (bytes: Uint8Array): string => {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
};

/** The key bytes of a `whsec_` secret. */
export function secretKey(secret: string): Uint8Array {
  const bin = atob(secret.slice('whsec_'.length));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** True when `secret` is a well-formed secret of 24 to 64 key bytes. */
export function isWebhookSecret(secret: string): boolean {
  if (!WEBHOOK_SECRET.test(secret)) return false;
  const n = secretKey(secret).length;
  return n >= 24 && n <= 64;
}

/** A new secret of 32 random bytes. */
export function generateWebhookSecret(random: RandomBytes): string {
  return `whsec_${toBase64(random(32))}`;
}

/** The `webhook-signature` header value for one message. `timestamp` is in seconds. */
export async function signWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    secretKey(secret) as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}
