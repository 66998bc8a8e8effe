import MiniSearch, { type Options } from 'minisearch';

/** One search result. */
export interface SearchHit {
  path: string;
  title: string;
  snippet: string;
  score: number;
  tags: string[];
}

/** The fields indexed for one note. */
export interface SearchDoc {
  path: string;
  title: string;
  tags: string;
  text: string;
}

const OPTIONS: Options<SearchDoc> = {
  idField: 'path',
  fields: ['title', 'tags', 'text'],
  storeFields: [],
  searchOptions: { boost: { title: 3, tags: 2 }, prefix: true, fuzzy: 0.15, combineWith: 'AND' },
};

/** Full-text index over title, tags and body text. */
export function createSearchIndex(serialized?: string | null) {
  let ms: MiniSearch<SearchDoc> = new MiniSearch<SearchDoc>(OPTIONS);
  if (serialized) {
    try {
      ms = MiniSearch.loadJSON<SearchDoc>(serialized, OPTIONS);
    } catch {
      ms = new MiniSearch<SearchDoc>(OPTIONS);
    }
  }
  return {
    /** Adds or replaces one note. */
    put(doc: SearchDoc): void {
      if (ms.has(doc.path)) ms.discard(doc.path);
      ms.add(doc);
    },
    /** Removes one note; no error when absent. */
    remove(path: string): void {
      if (ms.has(path)) ms.discard(path);
    },
    has(path: string): boolean {
      return ms.has(path);
    },
    /** Paths and scores, best first, and the query terms that matched. */
    query(q: string, limit: number): { path: string; score: number; terms: string[] }[] {
      return ms
        .search(q)
        .slice(0, limit)
        .map((r) => ({ path: String(r.id), score: Math.round(r.score * 1000) / 1000, terms: r.terms }));
    },
    serialize(): string {
      return JSON.stringify(ms);
    },
  };
}

export type SearchIndex = ReturnType<typeof createSearchIndex>;

/** A short passage of `body` around the first of `terms` it contains. */
export function makeSnippet(body: string, terms: string[], width = 160): string {
  const flat = body
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/[#>*_`[\]]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const hay = flat.toLowerCase();
  let at = -1;
  for (const t of terms) {
    const i = hay.indexOf(t.toLowerCase());
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) return flat.slice(0, width) + (flat.length > width ? '…' : '');
  const start = Math.max(0, at - Math.floor(width / 3));
  const end = Math.min(flat.length, start + width);
  return (start > 0 ? '…' : '') + flat.slice(start, end) + (end < flat.length ? '…' : '');
}
