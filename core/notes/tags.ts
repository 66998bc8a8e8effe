/** One tag and how many notes carry it. */
export interface TagCount {
  tag: string;
  count: number;
}

/**
 * Counts notes per tag, case-insensitively (the first spelling met wins, in the order given),
 * sorted by count (most first), then by tag.
 */
export function countTags(notes: Iterable<{ tags: readonly string[] }>): TagCount[] {
  const byKey = new Map<string, TagCount>();
  for (const n of notes) {
    for (const t of n.tags) {
      const key = t.toLowerCase();
      const hit = byKey.get(key);
      if (hit) hit.count += 1;
      else byKey.set(key, { tag: t, count: 1 });
    }
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));
}

/**
 * True when a note's tag `tag` is matched by a filter on `want` (case-insensitive, without `#`).
 * Tags nest as in Obsidian: `project` also matches `project/alpha` and `project/alpha/x`, while
 * `project/alpha` matches only itself and what is below it.
 */
export function tagMatches(tag: string, want: string): boolean {
  const t = tag.toLowerCase();
  const w = want.toLowerCase().replace(/^#/, '').replace(/\/+$/, '');
  return w !== '' && (t === w || t.startsWith(`${w}/`));
}
