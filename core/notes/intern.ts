/**
 * One copy of the short strings many notes share: tags, link kinds and targets,
 * frontmatter values, warnings. A note parsed on an analyzer thread arrives with its own copy of
 * each (a structured clone never shares), so at 10,000 notes the index held 52,000 copies of
 * "wikilink" and over a thousand of each tag. The pool keeps one; it is bounded (cleared when
 * full: later notes then share a new copy, nothing breaks) and skips long strings.
 */
const pool = new Map<string, string>();
const MAX_ENTRIES = 1 << 18;
const MAX_LENGTH = 256;

/** The pool's copy of `s` (itself when first seen or long). */
export function intern(s: string): string {
  if (s.length > MAX_LENGTH) return s;
  const known = pool.get(s);
  if (known !== undefined) return known;
  if (pool.size >= MAX_ENTRIES) pool.clear();
  pool.set(s, s);
  return s;
}

/** `list` with its strings interned, in place (a fresh array from a parse). */
export function internAll(list: string[]): string[] {
  for (let i = 0; i < list.length; i++) list[i] = intern(list[i]!);
  return list;
}

/**
 * A frontmatter map's string values (and strings in its lists) interned, in place: a fresh object
 * from a parse. Nested maps are left as they are (rare, and read whole).
 */
export function internValues(fm: Record<string, unknown>): Record<string, unknown> {
  for (const k in fm) {
    const v = fm[k];
    if (typeof v === 'string') fm[k] = intern(v);
    else if (Array.isArray(v))
      for (let i = 0; i < v.length; i++) if (typeof v[i] === 'string') v[i] = intern(v[i]);
  }
  return fm;
}
