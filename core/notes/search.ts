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

const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu;
const FIELD_WEIGHT = { title: 3, tags: 2, text: 1 } as const;
const K1 = 1.2;
const B = 0.75;
const MAX_EXPANSIONS = 50;

/** Lowercased words (CJK characters one each), without diacritics. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().matchAll(TOKEN)) {
    if (m[0].length <= 40) out.push(m[0]);
  }
  return out;
}

/** The search index as the cache stores it (inside the index cache's JSON, see note-index.ts). */
export interface SerializedSearch {
  docs: [number, string, number][];
  terms: Record<string, number[]>;
}

/**
 * A compact inverted index with BM25 ranking over title (x3), tags (x2) and body text.
 * Postings are flat `[docId, weightedTf, ...]` arrays; every query term must match (the
 * last one also as a prefix). Built for 10,000s of notes: adding a note costs its own words.
 */
export function createSearchIndex(serialized?: string | SerializedSearch | null) {
  const postings = new Map<string, number[]>();
  const docs = new Map<number, { path: string; len: number }>();
  const ids = new Map<string, number>();
  let nextId = 0;
  let totalLen = 0;

  const addPostings = (id: number, tfs: Map<string, number>) => {
    for (const [term, tf] of tfs) {
      const list = postings.get(term);
      if (list) list.push(id, tf);
      else postings.set(term, [id, tf]);
    }
  };
  if (serialized) {
    try {
      const data = (typeof serialized === 'string' ? JSON.parse(serialized) : serialized) as SerializedSearch;
      for (const [term, list] of Object.entries(data.terms)) postings.set(term, list);
      for (const [id, path, len] of data.docs) {
        docs.set(id, { path, len });
        ids.set(path, id);
        totalLen += len;
        nextId = Math.max(nextId, id + 1);
      }
    } catch {
      postings.clear();
      docs.clear();
      ids.clear();
      totalLen = 0;
    }
  }

  // Removal is lazy: a removed or replaced note's id becomes a tombstone, skipped by queries and
  // swept out of the posting lists in one pass once there are many (so a change costs only the
  // note's own words, never a scan of every list it appears in).
  const tombstones = new Set<number>();
  const compact = () => {
    if (!tombstones.size) return;
    for (const [term, list] of postings) {
      let w = 0;
      for (let r = 0; r < list.length; r += 2) {
        if (tombstones.has(list[r]!)) continue;
        list[w++] = list[r]!;
        list[w++] = list[r + 1]!;
      }
      if (w === 0) postings.delete(term);
      else list.length = w;
    }
    tombstones.clear();
  };
  const remove = (path: string) => {
    const id = ids.get(path);
    if (id === undefined) return;
    totalLen -= docs.get(id)?.len ?? 0;
    docs.delete(id);
    ids.delete(path);
    tombstones.add(id);
    if (tombstones.size > Math.max(1000, docs.size / 4)) compact();
  };

  /** Terms of the index matching query term `q`: itself, and as a prefix when `prefix`. */
  const expand = (q: string, prefix: boolean): string[] => {
    const out = postings.has(q) ? [q] : [];
    if (!prefix || q.length < 2) return out;
    for (const term of postings.keys()) {
      if (term !== q && term.startsWith(q)) out.push(term);
      if (out.length >= MAX_EXPANSIONS) break;
    }
    return out;
  };

  return {
    /** Adds or replaces one note. */
    put(doc: SearchDoc): void {
      remove(doc.path);
      const tfs = new Map<string, number>();
      let len = 0;
      for (const field of ['title', 'tags', 'text'] as const) {
        const w = FIELD_WEIGHT[field];
        for (const t of tokenize(doc[field])) {
          tfs.set(t, (tfs.get(t) ?? 0) + w);
          len += w;
        }
      }
      const id = nextId++;
      docs.set(id, { path: doc.path, len });
      ids.set(doc.path, id);
      totalLen += len;
      addPostings(id, tfs);
    },
    /** Removes one note; no error when absent. */
    remove,
    has(path: string): boolean {
      return ids.has(path);
    },
    /** Paths and scores, best first, and the index terms that matched. */
    query(q: string, limit: number): { path: string; score: number; terms: string[] }[] {
      const qterms = [...new Set(tokenize(q))].slice(0, 16);
      if (!qterms.length || !docs.size) return [];
      const avg = totalLen / docs.size;
      const scores = new Map<number, { score: number; hits: number; terms: Set<string> }>();
      qterms.forEach((qt, qi) => {
        const seenThisTerm = new Set<number>();
        for (const term of expand(qt, qi === qterms.length - 1 || qt.length >= 4)) {
          const list = postings.get(term)!;
          const df = list.length / 2;
          const idf = Math.log(1 + (docs.size - df + 0.5) / (df + 0.5));
          const penalty = term === qt ? 1 : 0.5;
          for (let i = 0; i < list.length; i += 2) {
            const id = list[i]!;
            if (tombstones.has(id)) continue;
            const tf = list[i + 1]!;
            const len = docs.get(id)?.len ?? avg;
            const part = penalty * idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg)));
            const s = scores.get(id) ?? { score: 0, hits: 0, terms: new Set<string>() };
            s.score += part;
            s.terms.add(term);
            if (!seenThisTerm.has(id)) {
              seenThisTerm.add(id);
              s.hits++;
            }
            scores.set(id, s);
          }
        }
      });
      return [...scores]
        .filter(([, s]) => s.hits === qterms.length)
        .sort((a, b) => b[1].score - a[1].score)
        .slice(0, limit)
        .map(([id, s]) => ({
          path: docs.get(id)!.path,
          score: Math.round(s.score * 1000) / 1000,
          terms: [...s.terms],
        }));
    },
    serialize(): string {
      return [...this.serializeParts()].join('');
    },
    /**
     * The same JSON as `serialize`, in pieces of a few thousand terms, so a caller can yield to
     * the event loop between them. Do not change the index while iterating.
     */
    *serializeParts(): Generator<string> {
      compact();
      yield `{"docs":${JSON.stringify([...docs].map(([id, d]) => [id, d.path, d.len]))},"terms":{`;
      let batch: string[] = [];
      let first = true;
      for (const [term, list] of postings) {
        batch.push(`${JSON.stringify(term)}:${JSON.stringify(list)}`);
        if (batch.length === 4096) {
          yield (first ? '' : ',') + batch.join(',');
          first = false;
          batch = [];
        }
      }
      if (batch.length) yield (first ? '' : ',') + batch.join(',');
      yield '}}';
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
