/**
 * The server's identity key: an Ed25519 key pair (WebCrypto) whose public key names the server.
 * The serverId is derived from the public key, so whoever proves possession of the private key
 * owns the id, and nobody else can: a relay needs no stored pin to refuse a takeover. Web
 * standards only; shared by the server (signing) and the relay (checking).
 */
import { toBase64Url } from './crypto.ts';

/** What the credentials file keeps: both halves, base64url (raw public key, PKCS#8 private key). */
export interface StoredIdentity {
  publicKey: string;
  privateKey: string;
}

const ED25519 = { name: 'Ed25519' } as const;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** 32 base32 characters: 160 bits of SHA-256(public key). */
const ID_CHARS = 32;

/** Base64url (with or without padding) to bytes; null when it is not base64url. */
export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return null;
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  try {
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

function base32(bytes: Uint8Array, chars: number): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** A new identity key pair. */
export async function createIdentity(): Promise<StoredIdentity> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pub = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const priv = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  return { publicKey: toBase64Url(pub), privateKey: toBase64Url(priv) };
}

/** The serverId a public key names: 32 base32 characters of its SHA-256; null for a malformed key. */
export async function serverIdOf(publicKey: string): Promise<string | null> {
  const raw = fromBase64Url(publicKey);
  if (raw?.byteLength !== 32) return null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', raw as Uint8Array<ArrayBuffer>));
  return base32(digest, ID_CHARS);
}

/** True when `id` has the shape of a key-derived serverId (old random ids do not). */
export const isKeyDerivedId = (id: string): boolean => new RegExp(`^[a-z2-7]{${ID_CHARS}}$`).test(id);

/** A signer over the stored private key (imported once). */
export function identitySigner(identity: StoredIdentity) {
  const key = crypto.subtle.importKey(
    'pkcs8',
    fromBase64Url(identity.privateKey) as Uint8Array<ArrayBuffer>,
    ED25519,
    false,
    ['sign'],
  );
  return {
    publicKey: identity.publicKey,
    /** Base64url Ed25519 signature of the UTF-8 bytes of `text`. */
    async sign(text: string): Promise<string> {
      const sig = await crypto.subtle.sign(ED25519, await key, new TextEncoder().encode(text));
      return toBase64Url(new Uint8Array(sig));
    },
  };
}

/** Checks an Ed25519 signature of `text` by `publicKey` (both base64url); never throws. */
export async function verifySignature(publicKey: string, text: string, signature: string): Promise<boolean> {
  const raw = fromBase64Url(publicKey);
  const sig = fromBase64Url(signature);
  if (raw?.byteLength !== 32 || !sig || sig.byteLength !== 64) return false;
  try {
    const key = await crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, ED25519, false, [
      'verify',
    ]);
    return await crypto.subtle.verify(
      ED25519,
      key,
      sig as Uint8Array<ArrayBuffer>,
      new TextEncoder().encode(text),
    );
  } catch {
    return false;
  }
}

/**
 * The statement a server signs to register with a relay over HTTP: its id, its key, the time,
 * a single-use nonce and the SHA-256 of the session secret it will prove on later calls (so a
 * statement cannot be replayed with another secret). (The tunnel signs the relay's challenge.)
 */
export const registerStatement = (
  serverId: string,
  publicKey: string,
  at: number,
  nonce: string,
  secretHash: string,
): string => `quire-relay-register/1\n${serverId}\n${publicKey}\n${at}\n${nonce}\n${secretHash}`;

/** The statement a server signs to answer a tunnel challenge. */
export const tunnelStatement = (serverId: string, publicKey: string, challenge: string): string =>
  `quire-relay-tunnel/1\n${serverId}\n${publicKey}\n${challenge}`;
