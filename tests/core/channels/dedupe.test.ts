import { describe, expect, it } from 'vitest';
import { createSeenSet } from '../../../core/channels/dedupe.ts';

describe('the retry memory', () => {
  it('remembers keys up to its capacity, forgetting the oldest', () => {
    const seen = createSeenSet(2);
    expect([seen.firstTime('a'), seen.firstTime('a'), seen.firstTime('b'), seen.firstTime('c')]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    expect(seen.size).toBe(2);
    expect(seen.firstTime('a')).toBe(true);
    expect(seen.firstTime('c')).toBe(false);
  });
});
