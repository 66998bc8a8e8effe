import { describe, expect, it } from 'vitest';
import { splitReply } from '../../../core/channels/split.ts';

describe('splitReply', () => {
  it('keeps short text whole and cuts long text at paragraphs, lines, then spaces', () => {
    expect(splitReply('  hello  ', 10)).toEqual(['hello']);
    expect(splitReply('aaaaaaaa\n\nbbbb\ncccc dddd', 12)).toEqual(['aaaaaaaa', 'bbbb\ncccc', 'dddd']);
    expect(splitReply('aaaa\n\nbbbb\ncccc dddd', 12)).toEqual(['aaaa\n\nbbbb', 'cccc dddd']);
    expect(splitReply('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });

  it('never splits a surrogate pair and caps the number of parts', () => {
    const parts = splitReply('😀'.repeat(10), 5);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(5);
    expect(parts.join('')).toBe('😀'.repeat(10));
    const capped = splitReply('word '.repeat(1000), 20, 3);
    expect(capped).toHaveLength(3);
    expect(capped[2]!.endsWith('…')).toBe(true);
    for (const p of capped) expect(p.length).toBeLessThanOrEqual(20);
  });
});
