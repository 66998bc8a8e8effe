import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex, sha256HexNow, sha256Pieces } from '../../core/crypto.ts';

describe('sha256HexNow', () => {
  it('gives the digest sha256Hex gives, at once for small inputs, null for large ones', async () => {
    const inputs = [
      new Uint8Array(),
      new TextEncoder().encode('héllo ✓\n'),
      new Uint8Array(64 * 1024).fill(7),
    ];
    for (const b of inputs) {
      const now = sha256HexNow(b);
      expect(now).toBe(await sha256Hex(b));
      expect(now).toBe(createHash('sha256').update(b).digest('hex'));
    }
    // Over 64 KiB: left to crypto.subtle (off the event loop).
    expect(sha256HexNow(new Uint8Array(64 * 1024 + 1))).toBeNull();
  });
});

describe('sha256Pieces', () => {
  it('gives the digest of the pieces joined, whatever the cut', async () => {
    const text = `${'path/é note.md\tabc\t1\t2\n'.repeat(3000)}files\n✓`;
    for (const cuts of [[], [1], [7, 500, 60_000], [text.length - 1]]) {
      const h = sha256Pieces();
      let at = 0;
      for (const c of [...cuts, text.length]) {
        h.update(text.slice(at, c));
        at = c;
      }
      expect(await h.digest()).toBe(await sha256Hex(text));
    }
    // Bytes and text mixed, a buffer reused once `update` returned.
    const bytes = new TextEncoder().encode(text);
    const h = sha256Pieces();
    const buf = new Uint8Array(4096);
    for (let at = 0; at < bytes.length; at += 4096) {
      const n = Math.min(4096, bytes.length - at);
      buf.set(bytes.subarray(at, at + n));
      h.update(buf.subarray(0, n));
    }
    h.update('tail');
    expect(await h.digest()).toBe(await sha256Hex(`${text}tail`));
  });
});
