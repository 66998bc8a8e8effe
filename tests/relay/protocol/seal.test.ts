import { describe, expect, it } from 'vitest';
import { aesSeal, plainSeal } from '../../../relay/protocol/seal.ts';

describe('payload seals', () => {
  it('AES-GCM: round-trips, never repeats a ciphertext, and refuses another key or tampering', async () => {
    const seal = aesSeal('a'.repeat(40));
    const text = '{"headers":[["x-service-key","quire_sk_abc"]],"body":"✓"}';
    const [one, two] = [await seal.seal(text), await seal.seal(text)];
    expect(one).not.toBe(two);
    expect(one).not.toContain('quire_sk_abc');
    expect(await seal.open(one)).toBe(text);
    await expect(aesSeal('b'.repeat(40)).open(one)).rejects.toThrow();
    const tampered = `${one.slice(0, -4)}${one.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(seal.open(tampered)).rejects.toThrow();
  });

  it('plain: stores text as it is', async () => {
    expect(await plainSeal.open(await plainSeal.seal('x'))).toBe('x');
  });
});
