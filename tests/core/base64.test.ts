import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Base64Error, fromBase64, toBase64 } from '../../core/crypto.ts';
import { fromBase64 as wireFrom } from '../../relay/protocol/http-codec.ts';

describe('core/crypto.ts base64 (web-standard, table-based where the platform has none)', () => {
  it('encodes every byte string exactly as Buffer does, and decodes it back (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        const text = toBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(Buffer.from(fromBase64(text)).equals(Buffer.from(bytes))).toBe(true);
        // Without its padding it decodes the same.
        expect(Buffer.from(fromBase64(text.replace(/=+$/, ''))).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('decodes what Buffer encodes, of every length up to 3 whole blocks of 16 KiB', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 0x8000 - 1, 0x8000, 0x8000 + 1, 3 * 0x4000 + 2]) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      expect(Buffer.from(fromBase64(Buffer.from(bytes).toString('base64'))).equals(Buffer.from(bytes))).toBe(
        true,
      );
    }
  });

  it('bad base64 from a peer is a clear Base64Error, never a crash (property: Buffer-invalid strings)', () => {
    for (const bad of ['A', 'AB=C', 'A===', '@@@@', 'AAA=A', 'é', 'AB CD', '=AAA', 'AA=', 'AAAA\n', '-_-_'])
      expect(() => fromBase64(bad), bad).toThrow(Base64Error);
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (text) => {
        const valid = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/.test(text);
        if (valid) expect(Buffer.from(fromBase64(text)).equals(Buffer.from(text, 'base64'))).toBe(true);
        else expect(() => fromBase64(text)).toThrow(Base64Error);
      }),
      { numRuns: 2000 },
    );
    // The wire codec passes the error on (the callers answer the one request 400, see tests/relay).
    expect(() => wireFrom('%%%%')).toThrow(Base64Error);
  });
});
