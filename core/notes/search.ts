import { fromBase64, toBase64 } from '../crypto.ts';
import { type ParsedQuery, parseQuery } from './search/query.ts';
import { ShardedMap } from './search/sharded.ts';
import { eachTerm, pathWords, stem, terms as termsOf, tokenize } from './search/text.ts';
import {
  createVocabulary,
  MAX_TYPO,
  oneEdit,
  spend,
  TYPO_WORDS,
  type TypoBudget,
  typoBudget,
  typoWork,
} from './search/vocabulary.ts';

export { tokenize };

/** One search result: a note, or an attachment found by its file name (`type: 'file'`). */
export interface SearchHit {
  path: string;
  title: string;
  snippet: string;
  score: number;
  tags: string[];
  /** 'note' for a markdown note, 'file' for an attachment matched by its name. */
  type: 'note' | 'file';
}

/** The fields indexed for one note (aliases and headings optional). */
export interface SearchDoc {
  path: string;
  title: string;
  aliases?: string[];
  headings?: string[];
  tags: string;
  text: string;
}

/** Field bits kept with each posting beside the body's term count (`tf * 16 + bits`). */
const TITLE = 1;
const HEADING = 2;
const PATH = 4;
const TAG = 8;
/**
 * The ranking's weights (tuned on bench/search-eval, see docs/reference/search.md). What a word in each field
 * adds (the body's count goes through BM25: at most k1 + 1); `coverage`: the power of the share of
 * the query a note covers; `wholeTitle`: the lift when every title word is in the query; `depth`:
 * the discount per folder level; `prefix`: the weight of a word matched as a prefix.
 */
export const RANKING = {
  title: 1.25,
  heading: 0.5,
  path: 0.9,
  tag: 1,
  k1: 1.35,
  b: 0.55,
  prefix: 0.2,
  coverage: 0.5,
  wholeTitle: 1,
  depth: 0.06,
  proximity: 0.4,
};
/** A word matched as a misspelling counts less than the word itself (by edits). */
const W_TYPO = [1, 0.6, 0.4];

/**
 * The search index as the cache stores it (inside the index cache's JSON, see note-index.ts):
 * `docs` as `[id, path, body length, title words]`, `terms` as `[term, postings, last id, base64 of the encoded list]`
 * (the list's bytes exactly as memory holds them, see `Postings`), and `journal`: the notes changed
 * since, each `[path]` (removed) or `[path, terms]` (`terms` as `termsOf` gives them).
 */
export interface SerializedSearch {
  docs: [number, string, number, number][];
  terms: [string, number, number, string][];
  journal?: ([string] | [string, DocTerms])[];
}

/**
 * A search index whose terms and posting lists are read on first use (a binary snapshot's TERMS and
 * POSTINGS sections, see snapshot.ts): the notes' table is given now, `terms` reads the rest once
 * `ready()` is first awaited. Notes changed meanwhile keep their words aside until then.
 */
export interface LazySearch {
  lazy: true;
  nextId: number;
  docs: [number, string, number, number][];
  journal?: ([string] | [string, DocTerms])[];
  terms: () => Promise<LoadedTerms>;
}

/** Every term, its list's posting count, last id, and bytes (`offset`, `length` into `blob`). */
export interface LoadedTerms {
  terms: string[];
  count: ArrayLike<number>;
  last: ArrayLike<number>;
  offset: ArrayLike<number>;
  length: ArrayLike<number>;
  blob: Uint8Array;
}

/** One note's words for the journal: `[body length, title words, term, tf * 16 + field bits, ...]`. */
export type DocTerms = (string | number)[];

/**
 * A note's words packed for a hop between threads: `keys` the terms joined by `\n` (no term holds
 * white space), `vals` their values. A structured clone of half a million short strings is read
 * back in one piece, and each becomes an object to collect; packed, the copy is one string and
 * one buffer, and the index makes a string only for each term it looks up (`putSteps`).
 */
export interface PackedTerms {
  len: number;
  tlen: number;
  keys: string;
  vals: Uint32Array;
}

/** `terms` packed (`PackedTerms`). */
export function packTerms(terms: DocTerms): PackedTerms {
  const n = (terms.length - 2) / 2;
  const keys: string[] = new Array(n);
  const vals = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = terms[2 + 2 * i] as string;
    vals[i] = terms[3 + 2 * i] as number;
  }
  return { len: terms[0] as number, tlen: terms[1] as number, keys: keys.join('\n'), vals };
}

/** The `DocTerms` of packed terms (for the journal, which stores that form). */
export function unpackTerms(p: PackedTerms): DocTerms {
  const out: DocTerms = [p.len, p.tlen];
  eachPacked(p, 0, p.vals.length, 0, (t, v) => out.push(t, v));
  return out;
}

/** Calls `fn` with the terms `from..to` of `p` (`at`: where term `from` starts in `p.keys`); returns where `to` starts. */
function eachPacked(
  p: PackedTerms,
  from: number,
  to: number,
  at: number,
  fn: (term: string, value: number) => void,
): number {
  const { keys, vals } = p;
  for (let i = from; i < to; i++) {
    let end = keys.indexOf('\n', at);
    if (end < 0) end = keys.length;
    fn(keys.slice(at, end), vals[i]!);
    at = end + 1;
  }
  return at;
}

const isPacked = (t: SearchDoc | DocTerms | PackedTerms): t is PackedTerms =>
  !Array.isArray(t) && 'vals' in t;

/** The buffer of a list with no postings yet (never written: `add` grows it before writing). */
const NO_BYTES = new Uint8Array(0);

/**
 * One term's postings: `(id - previous id, tf * 16 + field bits)` pairs as unsigned LEB128 varints in one
 * byte buffer (ids only grow, so deltas are small: 2 to 3 bytes a posting instead of 16 as a pair
 * of JS numbers). Bytes below `n` are never changed in place (growing and sweeping copy), so a
 * capture of `(b, n)` stays a consistent picture while the index goes on changing.
 */
class Postings {
  b: Uint8Array;
  n = 0;
  count = 0;
  last = 0;
  // A new list starts on a shared empty buffer: its first `add` makes the one it needs (a buffer
  // of 8 made here was dropped at once, a typed array per new term for the collector).
  constructor(b: Uint8Array = NO_BYTES, n = 0, count = 0, last = 0) {
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

/** A copy of `list` without the unused end of its buffer (growing doubles it). */
const shrunk = (list: Postings) => new Postings(list.b.slice(0, list.n), list.n, list.count, list.last);

/** A query's arrays by note id (`createSearchIndex` keeps one for the next query). */
const makeScratch = (size: number) => ({
  size,
  skip: new Uint8Array(size),
  score: new Float64Array(size),
  covered: new Float64Array(size),
  titleHits: new Uint8Array(size),
  best: new Float64Array(size),
  bestBits: new Uint8Array(size),
  /** Per note and clause (16 at most): 1 + the index of the clause's best matching term, for the snippet. */
  bestTerm: new Uint8Array(size * 16),
  coverages: new Float64Array(size),
  touched: new Int32Array(size),
  here: new Int32Array(size),
});

/** How many of a list's postings `live` accepts. */
function liveCount(list: Postings, live: (id: number) => boolean): number {
  let c = 0;
  eachPosting(list.b, list.n, (id) => {
    if (live(id)) c++;
  });
  return c;
}

/** Live document frequencies counted once per index version (a bounded cache). */
class LiveDf {
  private counts = new Map<string, number>();
  private version = -1;
  get(version: number, term: string, count: () => number): number {
    if (version !== this.version) {
      this.counts = new Map();
      this.version = version;
    }
    let n = this.counts.get(term);
    if (n === undefined) {
      n = count();
      if (this.counts.size > 20_000) this.counts.clear();
      this.counts.set(term, n);
    }
    return n;
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
  /** The id the next note will get (every id below it was given). */
  nextId: number;
  docs: [number, string, number, number][];
  terms: [string, Uint8Array, number, number][];
}

/** One ranked note of `query`. */
export interface RankedNote {
  path: string;
  score: number;
  /** Index terms that matched (for the snippet). */
  terms: string[];
  /** Share of the query's words (weighted by rarity) the note matched, 0 to 1. */
  coverage: number;
}

/**
 * Which notes a query may see (a folder-limited key's): called with a note's path. The
 * same function object should be passed query after query (its visible set is cached per index
 * change, keyed by the function).
 */
export type Visibility = (path: string) => boolean;

/** Runs `steps` to their end at once; their result. */
function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** A note's index terms: `[body length, title words, term, tf * 16 + bits, ...]`. */
export function docTerms(doc: SearchDoc): DocTerms {
  return drain(docTermsSteps(doc));
}

/**
 * `docTerms` in steps: the body `TEXT_STEP` characters a step (cut after a white space, so no word
 * is split), then the short fields and the list.
 */
function* docTermsSteps(doc: SearchDoc): Generator<void, DocTerms> {
  const vals = new Map<string, number>();
  let len = 0;
  const count = (t: string) => {
    vals.set(t, (vals.get(t) ?? 0) + 16);
    len++;
  };
  const text = doc.text;
  if (text.length <= TEXT_STEP) eachTerm(text, false, count);
  else {
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + TEXT_STEP);
      while (end < text.length && !/\s/.test(text[end - 1]!)) end++;
      eachTerm(text.slice(at, end), false, count);
      at = end;
      yield;
    }
  }
  let bit = 0;
  // Stop words count in the short fields (a title such as "To do" must stay findable).
  const mark = (t: string) => vals.set(t, (vals.get(t) ?? 0) | bit);
  const titleWords = new Set(termsOf(doc.title));
  bit = TITLE;
  eachTerm(doc.title, true, mark);
  for (const a of doc.aliases ?? []) eachTerm(a, true, mark);
  bit = HEADING;
  for (const h of doc.headings ?? []) eachTerm(h, true, mark);
  bit = PATH;
  eachTerm(pathWords(doc.path), true, mark);
  bit = TAG;
  eachTerm(doc.tags.replace(/[/_-]/g, ' '), true, mark);
  const out: DocTerms = [len, titleWords.size];
  let n = 0;
  for (const [t, v] of vals) {
    out.push(t, Math.min(v, 0x3ffff));
    if (++n % PUT_STEP === 0) yield;
  }
  return out;
}

/**
 * The notes of the index by id, as parallel arrays (grown by doubling): a query reads them per
 * posting, where a map of objects would cost a lookup and a pointer chase each.
 */
function createDocTable() {
  const t = {
    paths: [] as (string | undefined)[],
    len: new Int32Array(64),
    tlen: new Uint16Array(64),
    /** Folder levels above the note (slashes in its path, at most 255). */
    depth: new Uint8Array(64),
    /** Estimated bytes the note's postings hold (as `addPostings` counts them): what removing it leaves dead. */
    cost: new Float64Array(64),
    size: 0,
    set(id: number, path: string, len: number, tlen: number): void {
      if (id >= t.len.length) {
        const cap = Math.max(id + 1, t.len.length * 2);
        const grow = <A extends Int32Array | Uint16Array | Uint8Array | Float64Array>(a: A, b: A) => {
          b.set(a);
          return b;
        };
        t.len = grow(t.len, new Int32Array(cap));
        t.tlen = grow(t.tlen, new Uint16Array(cap));
        t.depth = grow(t.depth, new Uint8Array(cap));
        t.cost = grow(t.cost, new Float64Array(cap));
      }
      while (t.paths.length < id) t.paths.push(undefined);
      if (t.paths[id] === undefined) t.size++;
      t.paths[id] = path;
      t.len[id] = len;
      t.tlen[id] = Math.min(tlen, 0xffff);
      let slashes = 0;
      for (let i = path.indexOf('/'); i >= 0 && slashes < 255; i = path.indexOf('/', i + 1)) slashes++;
      t.depth[id] = slashes;
    },
    delete(id: number): void {
      if (t.paths[id] === undefined) return;
      t.paths[id] = undefined;
      t.len[id] = 0;
      t.cost[id] = 0;
      t.size--;
    },
    clear(): void {
      t.paths = [];
      t.size = 0;
      t.len.fill(0);
      t.cost.fill(0);
    },
    /** `[id, path, body length, title words]` of every note, by id. */
    entries(): [number, string, number, number][] {
      const out: [number, string, number, number][] = [];
      t.paths.forEach((path, id) => {
        if (path !== undefined) out.push([id, path, t.len[id]!, t.tlen[id]!]);
      });
      return out;
    },
  };
  return t;
}

/** Notes of a snapshot's search table taken per step of a restore (`restoreSteps`). */
const RESTORE_STEP = 256;
/**
 * Terms of a large note joined to the lists per step of `putSteps` (well under a ms: the caller's
 * `sliced` runs steps until its slice of a few ms is spent).
 */
const PUT_STEP = 512;
/** Characters of a large note's body turned into terms per step of `putSteps`. */
const TEXT_STEP = 8 * 1024;
/**
 * What a posting is estimated to hold: its bytes in a list, or for a term's first posting the
 * term's map slot, string and list object too (as `approxBytes` counts them).
 */
const POSTING_BYTES = 3;
const TERM_BYTES = 176;
/** Dead bytes (removed notes' postings) past which a sweep is due, or a quarter of the live ones. */
const SWEEP_MIN_BYTES = 4 * 1024 * 1024;

/**
 * A compact inverted index ranking notes for a query (see docs/reference/search.md): every query word may
 * match (notes covering more of the query rank far higher), in the body through BM25 and in the
 * title and aliases, headings, folder and file names and tags through field bonuses; English
 * stems, stop words, a prefix for the last word and typos bounded by word length. Postings are
 * varint byte lists per term (`Postings`); adding a note costs its own words.
 */
export function createSearchIndex(serialized?: string | SerializedSearch | LazySearch | null) {
  const postings = new ShardedMap<Postings>();
  /** Per note id (ids only grow; a removed note's slot keeps no path): path, body length, title words, folder depth. */
  const docs = createDocTable();
  const ids = new Map<string, number>();
  const vocab = createVocabulary(
    () => postings.keys(),
    (t) => postings.has(t),
  );
  let nextId = 0;
  let totalLen = 0;
  /**
   * Estimated bytes of the postings of notes removed or replaced since the last sweep (they are
   * still in the lists, and words only they held are still terms), and of the live notes': a
   * sweep is due when the dead ones pass `SWEEP_MIN_BYTES` or a quarter of the live ones.
   */
  let deadBytes = 0;
  let liveBytes = 0;
  let swept = 0;
  /** Ids of large notes whose postings are being added (`putSteps`): not notes yet, kept by sweeps. */
  const building = new Set<number>();
  /** The last query's typo look-ups: words looked up and rows spent (`TypoBudget`). */
  let lastTypo = { words: 0, rows: 0 };
  /** The words of notes changed since the last `takeChanges`, for the journal; null while not tracked. */
  let pending: Map<string, DocTerms | PackedTerms> | null = null;
  /** Bumped by every change of the notes (visible sets are cached per version). */
  let version = 0;
  /** `[id, body length]` of each note removed, for visible sets to catch up; entry 0 is removal number `logBase`. */
  const removedLog: number[] = [];
  let logBase = 0;
  /** Reads the terms and postings of a lazy index (null once read, or for an eager one). */
  let lazy: (() => Promise<LoadedTerms>) | null = null;
  let loading: Promise<void> | null = null;
  /** Notes added while the postings were not read yet: their words join the lists once read. */
  const deferred: [number, DocTerms][] = [];
  const needLoaded = () => {
    if (lazy) throw new Error('the search postings are not read yet (await ready() first)');
  };

  /** Adds the postings of `terms[from..to)` (term, value pairs from index 2); returns their estimated bytes. */
  const addPostings = (id: number, terms: DocTerms, from = 2, to = terms.length): number => {
    let bytes = 0;
    for (let i = from; i < to; i += 2) bytes += addPosting(id, terms[i] as string, terms[i + 1] as number);
    return bytes;
  };
  /** Adds one posting of note `id`; returns its estimated bytes. */
  const addPosting = (id: number, term: string, value: number): number => {
    let bytes = POSTING_BYTES;
    let list = postings.get(term);
    if (!list) {
      list = new Postings();
      postings.set(term, list);
      vocab.added(term);
      bytes += TERM_BYTES + term.length;
    }
    list.add(id, value);
    return bytes;
  };
  /** Makes `id` the note at `path` (its postings are in, or deferred), costing `bytes`. */
  const enter = (id: number, path: string, terms: DocTerms | PackedTerms, bytes: number) => {
    version++;
    const len = isPacked(terms) ? terms.len : (terms[0] as number);
    docs.set(id, path, len, isPacked(terms) ? terms.tlen : (terms[1] as number));
    docs.cost[id] = bytes;
    liveBytes += bytes;
    ids.set(path, id);
    totalLen += len;
    pending?.set(path, terms);
  };

  const addTerms = (path: string, terms: DocTerms) => {
    const id = nextId++;
    let bytes = 0;
    if (lazy) deferred.push([id, terms]);
    else bytes = addPostings(id, terms);
    enter(id, path, terms, bytes || costOf(terms[0] as number));
  };
  /** The bytes a note of `len` body words is taken to hold when its postings were not counted (read from a cache). */
  const costOf = (len: number) => 64 + len * POSTING_BYTES;

  const remove = (path: string) => {
    const id = ids.get(path);
    pending?.delete(path);
    if (id === undefined) return;
    version++;
    if (removedLog.length >= 200_000) {
      logBase += removedLog.length / 2;
      removedLog.length = 0;
    }
    removedLog.push(id, docs.len[id]!);
    totalLen -= docs.len[id]!;
    const bytes = docs.cost[id] || costOf(docs.len[id]!);
    deadBytes += bytes;
    liveBytes -= docs.cost[id]!;
    docs.delete(id);
    ids.delete(path);
  };

  const load = (data: SerializedSearch) => {
    for (const [term, count, last, b64] of data.terms) {
      const b = base64ToBytes(b64);
      postings.set(term, new Postings(b, b.length, count, last));
    }
    for (const [id, path, len, tlen] of data.docs) {
      if (typeof tlen !== 'number') throw new Error('an older layout');
      docs.set(id, path, len, tlen);
      docs.cost[id] = costOf(len);
      liveBytes += docs.cost[id]!;
      ids.set(path, id);
      totalLen += len;
      nextId = Math.max(nextId, id + 1);
    }
    for (const t of postings.values()) nextId = Math.max(nextId, t.last + 1);
    deadBytes = 0;
    for (const rec of data.journal ?? []) {
      remove(rec[0]);
      if (rec.length === 2) addTerms(rec[0], rec[1]);
    }
  };
  /**
   * Takes a snapshot's lazy search: its notes table `RESTORE_STEP` notes a step (10,000 notes are
   * 10 to 25 ms in one go), then the journal's words. The caller may yield between steps; the
   * index is not used until they are done.
   */
  function* lazySteps(data: LazySearch): Generator<void> {
    lazy = data.terms;
    const list = data.docs;
    for (let i = 0; i < list.length; ) {
      const end = Math.min(list.length, i + RESTORE_STEP);
      for (; i < end; i++) {
        const [id, path, len, tlen] = list[i]!;
        docs.set(id, path, len, tlen);
        docs.cost[id] = costOf(len);
        liveBytes += docs.cost[id]!;
        ids.set(path, id);
        totalLen += len;
      }
      yield;
    }
    nextId = data.nextId;
    deadBytes = 0;
    for (const rec of data.journal ?? []) {
      remove(rec[0]);
      if (rec.length === 2) addTerms(rec[0], rec[1]);
    }
  }
  const loadLazy = (data: LazySearch) => {
    for (const _ of lazySteps(data));
  };
  /** The lists as read, then the words of the notes added since (ids only grow: order is kept). */
  const materialize = (t: LoadedTerms) => {
    for (let i = 0; i < t.terms.length; i++) {
      const at = t.offset[i]!;
      const n = t.length[i]!;
      postings.set(t.terms[i]!, new Postings(t.blob.subarray(at, at + n), n, t.count[i]!, t.last[i]!));
    }
    for (const [id, terms] of deferred) addPostings(id, terms);
    deferred.length = 0;
    lazy = null;
    vocab.reset();
    version++;
  };
  if (serialized && typeof serialized === 'object' && 'lazy' in serialized) {
    loadLazy(serialized);
  } else if (serialized) {
    try {
      load((typeof serialized === 'string' ? JSON.parse(serialized) : serialized) as SerializedSearch);
    } catch {
      postings.clear();
      docs.clear();
      ids.clear();
      totalLen = 0;
      liveBytes = 0;
      nextId = 0;
    }
  }
  vocab.reset();
  version++;

  /**
   * The notes `see` lets a query see, and the statistics of a vault holding only them (note count,
   * body lengths, each term's document frequency, counted lazily): a scoped query ranks as a vault
   * of its own would, so no score or rank reveals a hidden note. Cached per `see`;
   * after changes it catches up with the notes added and removed since (not a pass over all).
   */
  interface Visible {
    version: number;
    /** `nextId` and the removal count when last brought up to date. */
    next: number;
    removed: number;
    allowed: Uint8Array;
    count: number;
    totalLen: number;
    df: Map<string, number>;
  }
  const visibles = new WeakMap<Visibility, Visible>();
  const visibleFor = (see: Visibility): Visible => {
    let v = visibles.get(see);
    if (v && v.version === version) return v;
    if (!v || v.removed < logBase) {
      v = {
        version,
        next: 0,
        removed: logBase,
        allowed: new Uint8Array(nextId),
        count: 0,
        totalLen: 0,
        df: new Map(),
      };
      visibles.set(see, v);
    }
    // Removed notes it counted (ids from before its last update), then the notes added since.
    for (let i = (v.removed - logBase) * 2; i < removedLog.length; i += 2) {
      const id = removedLog[i]!;
      if (id < v.next && v.allowed[id]) {
        v.allowed[id] = 0;
        v.count--;
        v.totalLen -= removedLog[i + 1]!;
      }
    }
    if (v.allowed.length < nextId) {
      const grown = new Uint8Array(Math.max(nextId, v.allowed.length * 2));
      grown.set(v.allowed);
      v.allowed = grown;
    }
    // Up to the first note still being added (`putSteps`): it and those after are taken once it is in.
    let upto = nextId;
    for (const b of building) upto = Math.min(upto, b);
    for (let id = v.next; id < upto; id++) {
      const path = docs.paths[id];
      if (path !== undefined && see(path)) {
        v.allowed[id] = 1;
        v.count++;
        v.totalLen += docs.len[id]!;
      }
    }
    v.next = upto;
    v.removed = logBase + removedLog.length / 2;
    v.version = version;
    v.df.clear();
    return v;
  };
  /** In how many visible notes the term `t` is (its postings counted once per version). */
  const visibleDf = (v: Visible, t: string): number => {
    let n = v.df.get(t);
    if (n === undefined) {
      const list = postings.get(t);
      n = list ? liveCount(list, (id) => v.allowed[id] === 1) : 0;
      if (v.df.size > 20_000) v.df.clear();
      v.df.set(t, n);
    }
    return n;
  };

  /**
   * Drops the postings of removed notes from one term's list (a new buffer: captures stay valid),
   * and the term itself when no note holds it any more.
   */
  const sweepTerm = (term: string, list: Postings) => {
    const next = new Postings(new Uint8Array(Math.max(8, list.n + 12)));
    eachPosting(list.b, list.n, (id, tf) => {
      if (docs.paths[id] !== undefined || building.has(id)) next.add(id, tf);
    });
    if (next.count === 0) {
      postings.delete(term);
      vocab.dropped();
    } else if (next.count !== list.count) {
      postings.set(term, next.b.length > next.n + (next.n >> 2) + 16 ? shrunk(next) : next);
    }
  };

  // Positive even when a list still counts removed notes (more postings than notes).
  const idfOf = (df: number, n: number = docs.size) =>
    Math.max(1e-6, Math.log(1 + (n - df + 0.5) / (df + 0.5)));

  /**
   * In how many live notes the term `t` is. A list's count also holds the postings of notes removed
   * since the last sweep and of a large note still being added: counted as they are, a rewritten
   * note would rank lower than after a restart. While any such linger, the live ones are counted.
   */
  const liveDf = new LiveDf();
  const dfAll = (t: string): number => {
    const list = postings.get(t);
    if (!list) return 0;
    if (deadBytes === 0 && building.size === 0) return list.count;
    return liveDf.get(version, t, () => liveCount(list, (id) => docs.paths[id] !== undefined));
  };
  /** The document frequency a query sees: the live notes', or the visible notes' (`vis`). */
  const dfIn = (vis: Visible | null, t: string): number => (vis ? visibleDf(vis, t) : dfAll(t));

  /**
   * Index terms standing for one query word, each with its weight (exact 1, prefix, typo); with
   * `vis`, only words some visible note holds (a word only hidden notes hold is never offered).
   * Typo look-ups spend the query's `budget` (`TYPO_WORDS` words, `TYPO_WORK` rows).
   */
  const alternatives = (
    q: string,
    word: string,
    prefix: boolean,
    vis: Visible | null,
    stats: { words: number; used: number },
  ): [string, number][] => {
    const has = vis ? (t: string) => visibleDf(vis, t) > 0 : undefined;
    const out: [string, number][] = (has ? has(q) : postings.has(q)) ? [[q, 1]] : [];
    if (prefix && q.length >= 2) {
      for (const t of vocab.prefixed(q, undefined, has)) out.push([t, RANKING.prefix]);
      if (word !== q && word.length > q.length) {
        for (const t of vocab.prefixed(word, undefined, has))
          if (!out.some(([x]) => x === t)) out.push([t, RANKING.prefix]);
      }
    }
    const k = /^[a-z]+$/.test(word) ? typoBudget(word.length) : 0;
    if (!out.length && k > 0 && stats.words < TYPO_WORDS) {
      stats.words++;
      const budget: TypoBudget = typoWork();
      const forms = new Set([q, word]);
      for (let cut = 1; cut <= 3 && word.length - cut >= Math.max(4, q.length); cut++)
        forms.add(word.slice(0, -cut));
      // The word one edit away, then stemmed ("hotkyes" -> "hotkeys" -> "hotkei"): the index holds
      // stems. First (cheap, and what most typos are); a stem costs about as much as a few rows.
      const edits = oneEdit(word);
      spend(budget, edits.size * 4);
      const close: string[] = [];
      for (const v of edits) {
        const t = stem(v);
        if ((has ? has(t) : postings.has(t)) && !close.includes(t)) close.push(t);
      }
      const near = vocab.near(
        [...forms].filter((f) => f.length >= 3),
        k,
        undefined,
        has,
        budget,
      );
      for (const t of close) if (!near.some((n) => n.term === t)) near.push({ term: t, distance: 1 });
      stats.used += budget.used;
      near.sort((a, b) => a.distance - b.distance || dfIn(vis, b.term) - dfIn(vis, a.term));
      for (const n of near.slice(0, MAX_TYPO)) out.push([n.term, W_TYPO[n.distance] ?? 0.3]);
    }
    return out;
  };

  /**
   * The index terms standing for each of the query's clauses (the first 16), in steps: one after
   * each clause whose words were looked up as misspellings, so a caller can yield between them.
   */
  function* expandSteps(p: ParsedQuery, vis: Visible | null): Generator<void, [string, number][][]> {
    const out: [string, number][][] = [];
    const budget = { words: 0, used: 0 };
    const nc = Math.min(p.clauses.length, 16);
    for (let ci = 0; ci < nc; ci++) {
      const clause = p.clauses[ci]!;
      const last = ci === nc - 1 && p.prefixLast;
      const alts: [string, number][] = [];
      const looked = budget.words;
      for (let i = 0; i < clause.alts.length && alts.length < 250; i++) {
        const word = clause.words[i] ?? clause.alts[i]!;
        for (const alt of alternatives(clause.alts[i]!, word, last, vis, budget)) {
          if (alts.length < 250 && !alts.some(([t]) => t === alt[0])) alts.push(alt);
        }
      }
      out.push(alts);
      lastTypo = { words: budget.words, rows: budget.used };
      if (budget.words > looked && ci < nc - 1) yield;
    }
    return out;
  }

  /** A query's arrays by note id, kept for the next (a query runs synchronously: never shared). */
  let scratch: ReturnType<typeof makeScratch> | null = null;
  const scratchFor = (size: number) => {
    if (!scratch || scratch.size < size) scratch = makeScratch(Math.max(64, size + (size >> 3)));
    return scratch;
  };

  const api = {
    /** True once the terms and posting lists are in memory (always, unless read lazily). */
    get loaded(): boolean {
      return lazy === null;
    },
    /**
     * `createSearchIndex(data)` in steps, for a start that yields to the event loop between them
     * (core/notes/warm-start.ts `indexFromCache`). Only on an index made empty; use it once done.
     */
    *restoreSteps(data: LazySearch): Generator<void> {
      if (ids.size > 0 || nextId > 0 || lazy) throw new Error('restoreSteps: the search index is not empty');
      yield* lazySteps(data);
      vocab.reset();
      version++;
    },
    /**
     * Resolves once the terms and posting lists are in memory (read on the first call for a lazy
     * index); rejects when they cannot be read or fail their check (the caller rebuilds).
     */
    ready(): Promise<void> {
      if (!lazy) return Promise.resolve();
      const read = lazy;
      loading ??= read().then(materialize, (err: unknown) => {
        loading = null;
        throw err;
      });
      return loading;
    },
    /** Adds or replaces one note (`putSteps` for a large one). */
    put(doc: SearchDoc): void {
      remove(doc.path);
      addTerms(doc.path, docTerms(doc));
    },
    /** Adds or replaces one note by its terms as `docTerms` gives them (computed elsewhere, e.g. a thread). */
    putTerms(path: string, terms: DocTerms | PackedTerms): void {
      remove(path);
      addTerms(path, isPacked(terms) ? unpackTerms(terms) : terms);
    },
    /**
     * `put` in steps, for a large note (a 4 MiB note of distinct words is hundreds of ms in one
     * go), from its fields (`SearchDoc`: the body turned into terms `TEXT_STEP` characters a step)
     * or its terms made elsewhere (a thread); then its postings joined `PUT_STEP` terms a step
     * under a fresh id no query sees yet; the last step swaps it in for the old version at once.
     * The caller yields between steps (queries meanwhile see the old version); one caller per
     * path at a time.
     */
    *putSteps(path: string, source: SearchDoc | DocTerms | PackedTerms): Generator<void> {
      const terms = Array.isArray(source) || isPacked(source) ? source : yield* docTermsSteps(source);
      if (lazy) {
        api.putTerms(path, isPacked(terms) ? unpackTerms(terms) : terms);
        return;
      }
      const id = nextId++;
      building.add(id);
      let bytes = 0;
      let entered = false;
      try {
        if (isPacked(terms)) {
          const add = (term: string, v: number) => {
            bytes += addPosting(id, term, v);
          };
          for (let i = 0, at = 0; i < terms.vals.length; i += PUT_STEP) {
            at = eachPacked(terms, i, Math.min(terms.vals.length, i + PUT_STEP), at, add);
            yield;
          }
        } else {
          for (let i = 2; i < terms.length; i += 2 * PUT_STEP) {
            bytes += addPostings(id, terms, i, Math.min(terms.length, i + 2 * PUT_STEP));
            yield;
          }
        }
        remove(path);
        enter(id, path, terms, bytes);
        entered = true;
      } finally {
        building.delete(id);
        // A build left half done (its caller stopped): its postings linger like a removed note's.
        if (!entered) deadBytes += bytes;
      }
    },
    /** Removes one note; no error when absent. */
    remove,
    has(path: string): boolean {
      return ids.has(path);
    },
    /** How many sweeps have begun (a cached memory figure is stale once it changes). */
    get swept(): number {
      return swept;
    },
    /** Estimated bytes of the postings of notes removed or replaced since the last sweep (they linger). */
    get deadBytes(): number {
      return deadBytes;
    },
    /** Whether the index wants its upkeep (`upkeep`): a sweep of dead postings, or a vocabulary rebuild. */
    get needsUpkeep(): boolean {
      return lazy === null && (deadBytes > Math.max(SWEEP_MIN_BYTES, liveBytes / 4) || vocab.stale);
    },
    /** How many words the typo and prefix look-ups walk (dropped ones included until a rebuild). */
    get vocabularySize(): number {
      return vocab.size;
    },
    /** The last query's typo look-ups: how many words, and rows of the budget spent. */
    get lastTypo(): { words: number; rows: number } {
      return lastTypo;
    },
    /**
     * What `needsUpkeep` asks for, in steps (the caller yields between them): the sweep when the
     * dead postings' bytes call for it, then the vocabulary's rebuild when it is stale.
     */
    *upkeep(): Generator<void> {
      if (lazy) return;
      if (deadBytes > Math.max(SWEEP_MIN_BYTES, liveBytes / 4)) yield* api.sweep();
      if (vocab.stale) yield* vocab.rebuildSteps();
    },
    get size(): number {
      return docs.size;
    },
    /** How many notes (visible to `see`, when given) the index term `t` is in (0 when unknown); for weighting attachments' names. */
    df(t: string, see?: Visibility): number {
      needLoaded();
      return dfIn(see ? visibleFor(see) : null, t);
    },
    /** How many notes `see` lets a query see (all notes without it). */
    sizeFor(see?: Visibility): number {
      return see ? visibleFor(see).count : docs.size;
    },
    /**
     * Drops the postings of removed notes (or, when there are none, the unused end of each list's
     * buffer), a term at a time, yielding between terms so a caller can pause (each step copies one
     * list). Queries skip removed notes' postings meanwhile.
     */
    *sweep(): Generator<void> {
      needLoaded();
      const filter = deadBytes > 0;
      deadBytes = 0;
      swept++;
      // The map itself is walked (a copy of a million entries would be one long step): entries
      // set or deleted between steps are fine for a Map's iterator.
      let n = 0;
      for (const [term, list] of postings) {
        if (filter) sweepTerm(term, list);
        else if (list.b.length > list.n + (list.n >> 2) + 16) {
          // Growing doubles a buffer: give back the unused end (a copy, so captures stay valid).
          postings.set(term, shrunk(list));
        }
        if (++n % 64 === 0) yield;
      }
    },
    /**
     * Estimated bytes the index holds (`health` shows them): its doc table, and per term the map
     * slot, the word, the list object and its buffer (on the heap while small, off it once grown).
     * Work proportional to the terms.
     */
    approxBytes(): number {
      let n = docs.paths.length * 8 + docs.len.byteLength + docs.tlen.byteLength + docs.depth.byteLength;
      n += ids.size * 40;
      for (const [term, list] of postings)
        n += 112 + term.length + (list.b.length <= 64 ? 64 : 160 + list.b.length);
      return n;
    },
    /** Starts (or stops) recording the words of changed notes for the journal. */
    track(on: boolean): void {
      pending = on ? new Map() : null;
    },
    /** The recorded words of `path` (replaced since tracking began), or undefined. */
    termsOf(path: string): DocTerms | undefined {
      const t = pending?.get(path);
      return t && isPacked(t) ? unpackTerms(t) : t;
    },
    /** Forgets the recorded words (they were journaled or captured). */
    clearTracked(): void {
      pending?.clear();
    },
    /** A consistent picture for the cache, in work proportional to the terms and notes (no copying of lists). */
    capture(): SearchCapture {
      needLoaded();
      return {
        nextId,
        docs: docs.entries(),
        terms: [...postings].map(([term, l]) => [term, l.b.subarray(0, l.n), l.count, l.last]),
      };
    },
    /**
     * Notes for a query (a string in the query syntax, or parsed), best first, at most `limit`;
     * `accept` filters by path (tag:, path:, phrases are checked by the caller). Filters alone
     * (no words) rank nothing here: the caller lists them. With `see`, the notes it refuses do not
     * exist for the query: skipped before ranking, and every statistic (note count, lengths, each
     * word's frequency, the words prefixes and typos may stand for) is the visible notes' alone.
     */
    query(
      input: string | ParsedQuery,
      limit: number,
      accept?: (path: string) => boolean,
      see?: Visibility,
      expanded?: [string, number][][],
    ): RankedNote[] {
      needLoaded();
      const p = typeof input === 'string' ? parseQuery(input) : input;
      const vis = see ? visibleFor(see) : null;
      const nDocs = vis ? vis.count : docs.size;
      if (!p.clauses.length || !nDocs || limit < 1) return [];
      const R = RANKING;
      const size = nextId;
      const { paths, len: lens } = docs;
      // Scratch indexed by note id (typed arrays kept between queries: no per-note objects or maps).
      const nc = Math.min(p.clauses.length, 16);
      const sc = scratchFor(size);
      const { skip, score, covered, titleHits, best, bestBits, bestTerm, touched, here, coverages } = sc;
      skip.fill(0, 0, size);
      if (vis) {
        // `allowed` may be longer than the notes (grown by doubling): only ids below `size` exist.
        const { allowed } = vis;
        for (let id = 0; id < size; id++) if (!allowed[id]) skip[id] = 1;
      } else for (let id = 0; id < size; id++) if (paths[id] === undefined) skip[id] = 1;
      for (const t of p.exclude) {
        const list = postings.get(t);
        if (list) eachPosting(list.b, list.n, (id) => (skip[id] = 1));
      }
      const avg = (vis ? vis.totalLen : totalLen) / nDocs || 1;
      let nTouched = 0;
      try {
        /** What each field bit combination adds beside the body's BM25. */
        const bonus = new Float64Array(16);
        for (let bits = 0; bits < 16; bits++) {
          bonus[bits] =
            (bits & TITLE ? R.title : 0) +
            (bits & HEADING ? R.heading : 0) +
            (bits & PATH ? R.path : 0) +
            (bits & TAG ? R.tag : 0);
        }
        const k1 = R.k1;
        const norm0 = k1 * (1 - R.b);
        const normLen = (k1 * R.b) / avg;
        const clauseAlts = expanded ?? drain(expandSteps(p, vis));
        let totalWeight = 0;
        for (let ci = 0; ci < nc; ci++) {
          // A term swept out since an expansion done in steps is skipped.
          const alts = clauseAlts[ci]!.filter(([t]) => postings.has(t));
          clauseAlts[ci] = alts;
          let weight = 0;
          for (const [t] of alts) weight = Math.max(weight, idfOf(dfIn(vis, t), nDocs));
          if (!alts.length) weight = idfOf(0, nDocs) * 0.5;
          totalWeight += weight;
          let nHere = 0;
          for (let ai = 0; ai < alts.length; ai++) {
            const [term, w] = alts[ai]!;
            const list = postings.get(term)!;
            const wi = w * idfOf(dfIn(vis, term), nDocs);
            const b = list.b;
            const n = list.n;
            // The postings' varints decoded in line (the hot loop of a query).
            let at = 0;
            let id = 0;
            while (at < n) {
              let c = b[at++]!;
              let v = c & 0x7f;
              for (let mul = 0x80; c & 0x80; mul *= 0x80) {
                c = b[at++]!;
                v += (c & 0x7f) * mul;
              }
              id += v;
              c = b[at++]!;
              v = c & 0x7f;
              for (let mul = 0x80; c & 0x80; mul *= 0x80) {
                c = b[at++]!;
                v += (c & 0x7f) * mul;
              }
              if (skip[id]) continue;
              const tf = v >> 4;
              const bits = v & 15;
              const part =
                wi * ((tf ? (tf * (k1 + 1)) / (tf + norm0 + normLen * lens[id]!) : 0) + bonus[bits]!);
              if (best[id] === 0) here[nHere++] = id;
              if (part > best[id]!) {
                best[id] = part;
                bestBits[id] = bits;
                bestTerm[id * nc + ci] = ai + 1;
              }
            }
          }
          for (let i = 0; i < nHere; i++) {
            const id = here[i]!;
            if (score[id] === 0) touched[nTouched++] = id;
            score[id] = score[id]! + best[id]!;
            covered[id] = covered[id]! + weight;
            if (bestBits[id]! & TITLE) titleHits[id] = titleHits[id]! + 1;
            best[id] = 0;
            bestBits[id] = 0;
          }
        }
        // The best `limit` notes, kept in a min-heap (worst on top): only they become objects.
        const { tlen, depth } = docs;
        const heapIds: number[] = [];
        const heapScores: number[] = [];
        const worse = (i: number, j: number) =>
          heapScores[i]! < heapScores[j]! ||
          (heapScores[i] === heapScores[j] && paths[heapIds[i]!]! > paths[heapIds[j]!]!);
        const swap = (i: number, j: number) => {
          [heapIds[i], heapIds[j]] = [heapIds[j]!, heapIds[i]!];
          [heapScores[i], heapScores[j]] = [heapScores[j]!, heapScores[i]!];
        };
        const down = (i: number) => {
          for (;;) {
            const l = 2 * i + 1;
            const r = l + 1;
            let m = i;
            if (l < heapIds.length && worse(l, m)) m = l;
            if (r < heapIds.length && worse(r, m)) m = r;
            if (m === i) return;
            swap(i, m);
            i = m;
          }
        };
        for (let i = 0; i < nTouched; i++) {
          const id = touched[i]!;
          const coverage = totalWeight ? covered[id]! / totalWeight : 0;
          const wholeTitle = tlen[id]! > 0 && titleHits[id]! >= tlen[id]! ? R.wholeTitle : 1;
          // Among otherwise equal notes, one nearer the vault's root is the more general one.
          const s =
            Math.round(
              ((score[id]! * coverage ** R.coverage * wholeTitle) / (1 + R.depth * depth[id]!)) * 1000,
            ) / 1000;
          if (heapIds.length === limit) {
            const top = heapScores[0]!;
            if (s < top || (s === top && paths[id]! > paths[heapIds[0]!]!)) continue;
          }
          if (accept && !accept(paths[id]!)) continue;
          coverages[id] = coverage;
          if (heapIds.length < limit) {
            heapIds.push(id);
            heapScores.push(s);
            for (let j = heapIds.length - 1; j > 0; ) {
              const parent = (j - 1) >> 1;
              if (!worse(j, parent)) break;
              swap(j, parent);
              j = parent;
            }
          } else {
            heapIds[0] = id;
            heapScores[0] = s;
            down(0);
          }
        }
        const out: RankedNote[] = heapIds.map((id, i) => {
          const terms: string[] = [];
          for (let ci = 0; ci < nc; ci++) {
            const t = bestTerm[id * nc + ci]!;
            if (t) terms.push(clauseAlts[ci]![t - 1]![0]);
          }
          return { path: paths[id]!, score: heapScores[i]!, terms, coverage: coverages[id]! };
        });
        return out.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
      } finally {
        // Back to zeros for the next query: only the notes this one touched.
        for (let i = 0; i < nTouched; i++) {
          const id = touched[i]!;
          score[id] = 0;
          covered[id] = 0;
          titleHits[id] = 0;
          coverages[id] = 0;
          best[id] = 0;
          bestBits[id] = 0;
          bestTerm.fill(0, id * nc, id * nc + nc);
        }
      }
    },
    /**
     * The terms each clause of `p` stands for (exact, prefixes, misspellings), in steps a caller
     * yields between (`runSearch`): pass the result to `query` as `expanded`.
     */
    expand(p: ParsedQuery, see?: Visibility): Generator<void, [string, number][][]> {
      needLoaded();
      return expandSteps(p, see ? visibleFor(see) : null);
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
