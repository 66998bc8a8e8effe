import type { ByteRange } from '../ports.ts';

/**
 * Reads a `Range` header against a file of `size` bytes. One range only (`bytes=a-b`, `bytes=a-`,
 * `bytes=-n`): returns the range, `'unsatisfiable'` (answer 416), or `null` to send the whole file
 * (no header, another unit, several ranges, or a malformed one, as RFC 9110 allows).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header.trim());
  if (!m) return null;
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return null;
  if (a === '') {
    const n = Number(b);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (b !== '' && Number(b) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
