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
