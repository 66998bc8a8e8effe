import { fromBase64, toBase64 } from '../crypto.ts';
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

/** Characters tokenized between two pauses in `countTextYielding`. */
const COUNT_SLICE = 32 * 1024;

/** A note text's words and how often each occurs, counted ahead of `put`. */
export interface TextCounts {
  tfs: Map<string, number>;
  len: number;
}

/**
 * The words of a note's text (what `put` counts for its text field), pausing with `pause()` every
 * COUNT_SLICE characters so a large note never holds the event loop for long. The text is cut at
 * whitespace only, where no word can be split.
 */
export async function countTextYielding(text: string, pause: () => Promise<void>): Promise<TextCounts> {
  const tfs = new Map<string, number>();
  let len = 0;
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + COUNT_SLICE);
    if (end < text.length) {
      const space = text.slice(end, end + 4096).search(/\s/);
      end = space < 0 ? Math.min(text.length, end + 4096) : end + space;
    }
    for (const t of tokenize(text.slice(at, end))) {
      tfs.set(t, (tfs.get(t) ?? 0) + 1);
      len++;
    }
    at = end;
    if (at < text.length) await pause();
  }
  return { tfs, len };
}

/**
 * The search index as the cache stores it (inside the index cache's JSON, see note-index.ts):
 * `docs` as `[id, path, length]`, `terms` as `[term, postings, last id, base64 of the encoded list]`
 * (the list's bytes exactly as memory holds them, see `Postings`), and `journal`: the notes changed
 * since, each `[path]` (removed) or `[path, terms]` (`terms` as `termsOf` gives them).
 */
export interface SerializedSearch {
  docs: [number, string, number][];
  terms: [string, number, number, string][];
  journal?: ([string] | [string, DocTerms])[];
}

/** One note's words for the journal: `[length, term, weighted tf, term, weighted tf, ...]`. */
export type DocTerms = (string | number)[];

/**
 * One term's postings: `(id - previous id, weighted tf)` pairs as unsigned LEB128 varints in one
 * byte buffer (ids only grow, so deltas are small: 2 to 3 bytes a posting instead of 16 as a pair
 * of JS numbers). Bytes below `n` are never changed in place (growing and sweeping copy), so a
 * capture of `(b, n)` stays a consistent picture while the index goes on changing.
 */
class Postings {
  b: Uint8Array;
  n = 0;
  count = 0;
  last = 0;
  constructor(b: Uint8Array = new Uint8Array(8), n = 0, count = 0, last = 0) {
    this.b = b;
    this.n = n;
    this.count = count;
    this.last = last;
  }
  add(id: number, tf: number): void {
    if (this.n + 12 > this.b.length) {
      const next = new Uint8Array(Math.max(16, this.b.length * 2, this.n + 12));
      next.set(this.b.subarray(0, this.n));
      this.b = next;
    }
    this.n = writeVarint(this.b, writeVarint(this.b, this.n, id - this.last), tf);
    this.last = id;
    this.count++;
  }
}

function writeVarint(b: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    b[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  b[at++] = v;
  return at;
}

/** Calls `fn(id, tf)` for each posting of `b[0..n)`. */
function eachPosting(b: Uint8Array, n: number, fn: (id: number, tf: number) => void): void {
  let at = 0;
  let id = 0;
  while (at < n) {
    let v = 0;
    let mul = 1;
    let c: number;
    do {
      c = b[at++]!;
      v += (c & 0x7f) * mul;
      mul *= 0x80;
    } while (c & 0x80);
    id += v;
    v = 0;
    mul = 1;
    do {
      c = b[at++]!;
      v += (c & 0x7f) * mul;
      mul *= 0x80;
    } while (c & 0x80);
    fn(id, v);
  }
}

/** Standard base64 of `b`. */
export const bytesToBase64 = toBase64;
/** Bytes of standard base64 `s`; throws on a character outside the alphabet. */
export const base64ToBytes = fromBase64;

/** A consistent picture of the search index, taken synchronously, serialized later in pieces. */
export interface SearchCapture {
  docs: [number, string, number][];
  terms: [string, Uint8Array, number, number][];
}

/**
 * A compact inverted index with BM25 ranking over title (x3), tags (x2) and body text.
 * Postings are varint byte lists per term (`Postings`); every query term must match (the
 * last one also as a prefix). Built for 10,000s of notes: adding a note costs its own words.
 */
export function createSearchIndex(serialized?: string | SerializedSearch | null) {
  const postings = new Map<string, Postings>();
  const docs = new Map<number, { path: string; len: number }>();
  const ids = new Map<string, number>();
  let nextId = 0;
  let totalLen = 0;
  /** Notes removed or replaced since the last sweep: their postings are still in the lists. */
  let dead = 0;
  /** The words of notes changed since the last `takeChanges`, for the journal; null while not tracked. */
  let pending: Map<string, DocTerms> | null = null;

  const addTerms = (path: string, terms: DocTerms) => {
    const id = nextId++;
    const len = terms[0] as number;
    docs.set(id, { path, len });
    ids.set(path, id);
    totalLen += len;
    for (let i = 1; i < terms.length; i += 2) {
      const term = terms[i] as string;
      let list = postings.get(term);
      if (!list) {
        list = new Postings();
        postings.set(term, list);
      }
      list.add(id, terms[i + 1] as number);
    }
    pending?.set(path, terms);
  };

  const remove = (path: string) => {
    const id = ids.get(path);
    pending?.delete(path);
    if (id === undefined) return;
    totalLen -= docs.get(id)?.len ?? 0;
    docs.delete(id);
    ids.delete(path);
    dead++;
  };

  const load = (data: SerializedSearch) => {
    for (const [term, count, last, b64] of data.terms) {
      const b = base64ToBytes(b64);
      postings.set(term, new Postings(b, b.length, count, last));
    }
    for (const [id, path, len] of data.docs) {
      docs.set(id, { path, len });
      ids.set(path, id);
      totalLen += len;
      nextId = Math.max(nextId, id + 1);
    }
    for (const t of postings.values()) nextId = Math.max(nextId, t.last + 1);
    dead = 0;
    for (const rec of data.journal ?? []) {
      remove(rec[0]);
      if (rec.length === 2) addTerms(rec[0], rec[1]);
    }
  };
  if (serialized) {
    try {
      load((typeof serialized === 'string' ? JSON.parse(serialized) : serialized) as SerializedSearch);
    } catch {
      postings.clear();
      docs.clear();
      ids.clear();
      totalLen = 0;
      nextId = 0;
    }
  }

  /** Drops the postings of removed notes from one term's list (a new buffer: captures stay valid). */
  const sweepTerm = (term: string, list: Postings) => {
    const next = new Postings(new Uint8Array(Math.max(8, list.n + 12)));
    eachPosting(list.b, list.n, (id, tf) => {
      if (docs.has(id)) next.add(id, tf);
    });
    if (next.count === 0) postings.delete(term);
    else if (next.count !== list.count) postings.set(term, next);
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

  const api = {
    /** Adds or replaces one note; `counted`: its text's words from `countTextYielding`, if done ahead. */
    put(doc: SearchDoc, counted?: TextCounts): void {
      remove(doc.path);
      const tfs = new Map<string, number>();
      let len = 0;
      for (const field of ['title', 'tags', 'text'] as const) {
        const w = FIELD_WEIGHT[field];
        if (field === 'text' && counted) {
          for (const [t, n] of counted.tfs) tfs.set(t, (tfs.get(t) ?? 0) + n * w);
          len += counted.len * w;
          continue;
        }
        for (const t of tokenize(doc[field])) {
          tfs.set(t, (tfs.get(t) ?? 0) + w);
          len += w;
        }
      }
      const terms: DocTerms = [len];
      for (const [t, tf] of tfs) terms.push(t, tf);
      addTerms(doc.path, terms);
    },
    /** Removes one note; no error when absent. */
    remove,
    has(path: string): boolean {
      return ids.has(path);
    },
    /** How many notes were removed or replaced since the last sweep (their postings linger). */
    get dead(): number {
      return dead;
    },
    get size(): number {
      return docs.size;
    },
    /**
     * Drops the postings of removed notes (or, when there are none, the unused end of each list's
     * buffer), a term at a time, yielding between terms so a caller can pause (each step copies one
     * list). Queries skip removed notes' postings meanwhile.
     */
    *sweep(): Generator<void> {
      const filter = dead > 0;
      dead = 0;
      for (const [term, list] of [...postings]) {
        if (postings.get(term) !== list) continue;
        if (filter) sweepTerm(term, list);
        else if (list.b.length > list.n + (list.n >> 2) + 16) {
          // Growing doubles a buffer: give back the unused end (a copy, so captures stay valid).
          postings.set(term, new Postings(list.b.slice(0, list.n), list.n, list.count, list.last));
        }
        yield;
      }
    },
    /** Starts (or stops) recording the words of changed notes for the journal. */
    track(on: boolean): void {
      pending = on ? new Map() : null;
    },
    /** The recorded words of `path` (replaced since tracking began), or undefined. */
    termsOf(path: string): DocTerms | undefined {
      return pending?.get(path);
    },
    /** Forgets the recorded words (they were journaled or captured). */
    clearTracked(): void {
      pending?.clear();
    },
    /** A consistent picture for the cache, in work proportional to the terms and notes (no copying of lists). */
    capture(): SearchCapture {
      return {
        docs: [...docs].map(([id, d]) => [id, d.path, d.len]),
        terms: [...postings].map(([term, l]) => [term, l.b.subarray(0, l.n), l.count, l.last]),
      };
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
          const df = list.count;
          const idf = Math.log(1 + (docs.size - df + 0.5) / (df + 0.5));
          const penalty = term === qt ? 1 : 0.5;
          eachPosting(list.b, list.n, (id, tf) => {
            const doc = docs.get(id);
            if (!doc) return;
            const len = doc.len;
            const part = penalty * idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg)));
            const s = scores.get(id) ?? { score: 0, hits: 0, terms: new Set<string>() };
            s.score += part;
            s.terms.add(term);
            if (!seenThisTerm.has(id)) {
              seenThisTerm.add(id);
              s.hits++;
            }
            scores.set(id, s);
          });
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
      for (const _ of api.sweep());
      return [...serializeSearchParts(api.capture())].join('');
    },
  };
  return api;
}

/**
 * The JSON of a capture (a `SerializedSearch` without journal), in pieces of a few thousand terms
 * so a caller can yield to the event loop between them.
 */
export function* serializeSearchParts(c: SearchCapture): Generator<string> {
  const DOCS = 2048;
  yield '{"docs":[';
  for (let i = 0; i < c.docs.length; i += DOCS) {
    yield (i ? ',' : '') + JSON.stringify(c.docs.slice(i, i + DOCS)).slice(1, -1);
  }
  yield '],"terms":[';
  let batch: string[] = [];
  let bytes = 0;
  let first = true;
  for (const [term, b, count, last] of c.terms) {
    batch.push(`[${JSON.stringify(term)},${count},${last},"${bytesToBase64(b)}"]`);
    bytes += b.length;
    if (batch.length === 1024 || bytes > 128 * 1024) {
      yield (first ? '' : ',') + batch.join(',');
      first = false;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length) yield (first ? '' : ',') + batch.join(',');
  yield ']}';
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
