import { fromBase64, toBase64 } from '../../core/crypto.ts';

/**
 * Wraps what the relay puts into its queue store (proxied requests, answers). The identity
 * seal is the default; `aesSeal` encrypts, so a persisted Redis never holds a client's key
 * or a freshly minted device key in plain text.
 */
export interface PayloadSeal {
  /** Text to store. */
  seal(text: string): Promise<string>;
  /** The original text; rejects when `sealed` was not made by this seal's key. */
  open(sealed: string): Promise<string>;
}

/** Stores text as it is. */
export const plainSeal: PayloadSeal = { seal: async (t) => t, open: async (t) => t };

/**
 * AES-256-GCM under SHA-256(`secret`), a fresh 96-bit IV per payload; stored as base64 of
 * IV ‖ ciphertext. Every relay instance sharing a store needs the same secret.
 */
export function aesSeal(secret: string): PayloadSeal {
  const key = crypto.subtle
    .digest('SHA-256', new TextEncoder().encode(secret))
    .then((raw) => crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']));
  return {
    async seal(text) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ct = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv },
        await key,
        new TextEncoder().encode(text),
      );
      const out = new Uint8Array(iv.byteLength + ct.byteLength);
      out.set(iv);
      out.set(new Uint8Array(ct), iv.byteLength);
      return toBase64(out);
    },
    async open(sealed) {
      const bytes = fromBase64(sealed);
      const pt = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: bytes.subarray(0, 12) as Uint8Array<ArrayBuffer> },
        await key,
        bytes.subarray(12) as Uint8Array<ArrayBuffer>,
      );
      return new TextDecoder().decode(pt);
    },
  };
}
