/**
 * The index snapshot in binary, on stores that read by byte range (`StateStore.getRange`).
 *
 * Layout 1 (`index-snapshot.bin`):
 *
 *     header   "QUIRESNP" (8 bytes), u32 layout (1), u32 0, f64 generation                  24 bytes
 *     sections one after another (below), each checked by its own checksum (`Checksum`)
 *     table    per section: u32 id, u32 checksum, f64 offset, f64 length                      24 bytes each
 *     trailer  f64 offset of the table, u32 sections, u32 checksum of header and table      16 bytes
 *
 * All numbers little-endian. A string list is `u32 n, u32 UTF-16 length × n, u32 bytes, UTF-8 of the
 * strings joined` (decoded in one step, cut by length). Sections, in this order:
 *
 * 1. NOTES, the note table as columns: `u32 n, f64 size × n, f64 mtime × n, f64 firstSeen × n`,
 *    the paths (a string list), and the rest of each entry as JSON arrays (`REST_FIELDS`), each
 *    `u32 bytes, UTF-8` after a `u32 n` (written as they are built, parsed one entry at a time).
 * 2. GRAPH, the link graph's resolutions: the vault's files (a string list), then per note `u32`
 *    its resolved links' count (`0xffffffff`: resolve on load) and per link a `u32` (0 unresolved,
 *    1 + a note's row, 1 + notes + a file's row): a warm start whose notes and files are those of
 *    the snapshot takes them as they are, without resolving a link.
 * 3. DOCS, the search index's notes: `u32 next id, u32 n, u32 id × n, u32 length × n, u32 title
 *    words × n, u32 note row × n` (`0xffffffff`: the path is in the list of strings that follows).
 * 4. TERMS, the search terms: `u32 n, u32 count × n, u32 last id × n, u32 offset × n, u32 bytes × n`,
 *    the terms (a string list). Read on first search only.
 * 5. POSTINGS, every term's posting list as memory holds it (varints), one after another. Read with
 *    TERMS, on first search only.
 * Sections of other ids (6 and 7 held the vault's folders and name until 2026-12-06: the load
 * takes both from its walk of the vault) are skipped: they are found through the table.
 *
 * The warm start reads the header, table, NOTES, GRAPH and DOCS (one range); TERMS and POSTINGS
 * when a search (or a save) first needs them. Any failed check means a cold index.
 */
import type { IndexEntry } from './index-entry.ts';

export const SNAPSHOT_MAGIC = 'QUIRESNP';
/** Bump when the binary layout (or what an entry holds) changes; other layouts are never trusted. */
export const SNAPSHOT_LAYOUT = 1;

export const SECTION = { NOTES: 1, GRAPH: 2, DOCS: 3, TERMS: 4, POSTINGS: 5 } as const;
const HEADER = 24;
const TRAILER = 16;
const ROW = 24;
const NONE = 0xffffffff;

/** What an entry holds beside path, size, mtime and firstSeen, in this order (JSON per entry). */
const REST_FIELDS = [
  'checksum',
  'titleExplicit',
  'tags',
  'links',
  'wordCount',
  'created',
  'warnings',
  'frontmatter',
  'bodyStart',
] as const;

// ---------------------------------------------------------------------------------------------
// Checksum

/**
 * A 32-bit checksum (FNV-1a over little-endian 32-bit words, then the last bytes and the length):
 * each step is a bijection of the running value, so one changed word always changes the sum, and a
 * cut always does (the length). Several times faster than a table CRC-32 in JavaScript, which
 * matters: the warm start checks every byte it reads. Fed in pieces of any cut.
 */
export class Checksum {
  private h = 0x811c9dc5;
  private n = 0;
  /** Bytes of a word begun by the last piece. */
  private carry = new Uint8Array(4);
  private k = 0;
  update(b: Uint8Array): this {
    let i = 0;
    this.n += b.length;
    while (this.k > 0 && this.k < 4 && i < b.length) this.carry[this.k++] = b[i++]!;
    if (this.k === 4) {
      const c = this.carry;
      this.h = Math.imul(this.h ^ (c[0]! | (c[1]! << 8) | (c[2]! << 16) | (c[3]! << 24)), 0x01000193);
      this.k = 0;
    }
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    let h = this.h;
    for (; i + 4 <= b.length; i += 4) h = Math.imul(h ^ v.getInt32(i, true), 0x01000193);
    this.h = h;
    while (i < b.length) this.carry[this.k++] = b[i++]!;
    return this;
  }
  digest(): number {
    let h = this.h;
    for (let i = 0; i < this.k; i++) h = Math.imul(h ^ (this.carry[i]! | 0x100), 0x01000193);
    return Math.imul(h ^ this.n, 0x01000193) >>> 0;
  }
}

export const checksum32 = (...parts: Uint8Array[]): number => {
  const c = new Checksum();
  for (const p of parts) c.update(p);
  return c.digest();
};

// ---------------------------------------------------------------------------------------------
// Writing

/** Grows a byte buffer; numbers little-endian. */
class Writer {
  b = new Uint8Array(1 << 12);
  v = new DataView(this.b.buffer);
  n = 0;
  private room(k: number) {
    if (this.n + k <= this.b.length) return;
    const next = new Uint8Array(Math.max(this.b.length * 2, this.n + k));
    next.set(this.b.subarray(0, this.n));
    this.b = next;
    this.v = new DataView(next.buffer);
  }
  u32(x: number) {
    this.room(4);
    this.v.setUint32(this.n, x >>> 0, true);
    this.n += 4;
  }
  f64(x: number) {
    this.room(8);
    this.v.setFloat64(this.n, x, true);
    this.n += 8;
  }
  bytes(x: Uint8Array) {
    this.room(x.length);
    this.b.set(x, this.n);
    this.n += x.length;
  }
  take(): Uint8Array {
    const out = this.b.slice(0, this.n);
    this.n = 0;
    return out;
  }
}

const encoder = new TextEncoder();

/** A string list's pieces: the count and lengths, the text's byte length, then its UTF-8 in pieces of about 256 KiB. */
function* stringList(list: readonly string[]): Generator<Uint8Array> {
  const text: Uint8Array[] = [];
  let bytes = 0;
  let batch: string[] = [];
  let size = 0;
  const flush = () => {
    const b = encoder.encode(batch.join(''));
    text.push(b);
    bytes += b.length;
    batch = [];
    size = 0;
  };
  for (const s of list) {
    batch.push(s);
    size += s.length;
    if (size > 1 << 18) flush();
  }
  if (batch.length) flush();
  const w = new Writer();
  w.u32(list.length);
  for (const s of list) w.u32(s.length);
  w.u32(bytes);
  yield w.take();
  yield* text;
}

/** What a binary snapshot is written from: taken at once (see `NoteIndex.capture`). */
export interface SnapshotCapture {
  gen: number;
  entries: IndexEntry[];
  /** Per entry, where each of its links points (null: resolve on load). */
  resolutions: (readonly (string | null)[] | null)[];
  /** The vault's other files known to the link graph. */
  files: string[];
  search: {
    nextId: number;
    docs: [number, string, number, number][];
    terms: [string, Uint8Array, number, number][];
  };
}

/** One section's pieces. */
function* sectionPieces(c: SnapshotCapture, id: number): Generator<Uint8Array> {
  const w = new Writer();
  const n = c.entries.length;
  if (id === SECTION.NOTES) {
    w.u32(n);
    for (const e of c.entries) w.f64(e.size);
    for (const e of c.entries) w.f64(e.mtimeMs);
    for (const e of c.entries) w.f64(e.firstSeen);
    yield w.take();
    yield* stringList(c.entries.map((e) => e.path));
    // The rest of each entry as length-prefixed JSON, built and written a few hundred KiB a step.
    w.u32(n);
    for (const e of c.entries) {
      const json = encoder.encode(JSON.stringify(REST_FIELDS.map((f) => e[f])));
      w.u32(json.length);
      w.bytes(json);
      if (w.n > 1 << 16) yield w.take();
    }
    yield w.take();
  } else if (id === SECTION.GRAPH) {
    yield* stringList(c.files);
    const row = new Map<string, number>();
    for (let i = 0; i < n; i++) row.set(c.entries[i]!.path, i + 1);
    for (let i = 0; i < c.files.length; i++) row.set(c.files[i]!, n + i + 1);
    for (let i = 0; i < n; i++) {
      const paths = c.resolutions[i];
      let rows: number[] | null = null;
      if (paths && paths.length === c.entries[i]!.links.length) {
        rows = [];
        for (const p of paths) {
          const r = p === null ? 0 : row.get(p);
          if (r === undefined) {
            rows = null;
            break;
          }
          rows.push(r);
        }
      }
      if (!rows) w.u32(NONE);
      else {
        w.u32(rows.length);
        for (const r of rows) w.u32(r);
      }
      if (w.n > 1 << 18) yield w.take();
    }
    yield w.take();
  } else if (id === SECTION.DOCS) {
    const row = new Map<string, number>();
    for (let i = 0; i < n; i++) row.set(c.entries[i]!.path, i);
    const docs = c.search.docs;
    w.u32(c.search.nextId);
    w.u32(docs.length);
    for (const d of docs) w.u32(d[0]);
    for (const d of docs) w.u32(d[2]);
    for (const d of docs) w.u32(d[3]);
    const extra: string[] = [];
    for (const d of docs) {
      const r = row.get(d[1]);
      if (r === undefined) extra.push(d[1]);
      w.u32(r ?? NONE);
    }
    yield w.take();
    yield* stringList(extra);
  } else if (id === SECTION.TERMS) {
    const t = c.search.terms;
    w.u32(t.length);
    for (const x of t) w.u32(x[2]);
    for (const x of t) w.u32(x[3]);
    let off = 0;
    for (const x of t) {
      w.u32(off);
      off += x[1].length;
    }
    for (const x of t) w.u32(x[1].length);
    yield w.take();
    yield* stringList(t.map((x) => x[0]));
  } else if (id === SECTION.POSTINGS) {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (const [, b] of c.search.terms) {
      parts.push(b);
      size += b.length;
      if (size > 1 << 18) {
        yield concat(parts, size);
        parts.length = 0;
        size = 0;
      }
    }
    if (parts.length) yield concat(parts, size);
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The snapshot's bytes in pieces (each a few hundred KiB at most, built in a step of a few ms), so
 * the caller can yield to the event loop between them and write them one by one.
 */
export function* snapshotBytes(c: SnapshotCapture): Generator<Uint8Array> {
  const head = new Writer();
  head.bytes(encoder.encode(SNAPSHOT_MAGIC));
  head.u32(SNAPSHOT_LAYOUT);
  head.u32(0);
  head.f64(c.gen);
  const header = head.take();
  yield header;
  let at = HEADER;
  const table = new Writer();
  const ids: number[] = [SECTION.NOTES, SECTION.GRAPH, SECTION.DOCS, SECTION.TERMS, SECTION.POSTINGS];
  for (const id of ids) {
    const start = at;
    const sum = new Checksum();
    for (const piece of sectionPieces(c, id)) {
      sum.update(piece);
      at += piece.length;
      yield piece;
    }
    const crc = sum.digest();
    table.u32(id);
    table.u32(crc);
    table.f64(start);
    table.f64(at - start);
  }
  const rows = table.take();
  const tail = new Writer();
  tail.f64(at);
  tail.u32(rows.length / ROW);
  tail.u32(checksum32(header, rows));
  yield rows;
  yield tail.take();
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Thrown for any snapshot that fails a check; the loader then indexes cold. */
export class SnapshotError extends Error {}

const fail = (why: string): never => {
  throw new SnapshotError(`index snapshot: ${why}`);
};

const utf8 = new TextDecoder('utf-8', { fatal: true });
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Reads numbers and string lists from one section's bytes, every read bounds-checked. */
class Reader {
  v: DataView;
  at = 0;
  constructor(readonly b: Uint8Array) {
    this.v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  need(k: number) {
    if (k < 0 || this.at + k > this.b.length) fail('a section ends early');
  }
  u32(): number {
    this.need(4);
    const x = this.v.getUint32(this.at, true);
    this.at += 4;
    return x;
  }
  f64(): number {
    this.need(8);
    const x = this.v.getFloat64(this.at, true);
    this.at += 8;
    return x;
  }
  // On a little-endian machine (every runtime we ship to) a column is copied as bytes: a read per
  // number through the DataView was the largest share of a warm start's CPU (profile, 10,000 notes).
  u32s(n: number): Uint32Array {
    this.need(n * 4);
    const out = new Uint32Array(n);
    if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(this.b.subarray(this.at, this.at + n * 4));
    else for (let i = 0; i < n; i++) out[i] = this.v.getUint32(this.at + i * 4, true);
    this.at += n * 4;
    return out;
  }
  f64s(n: number): Float64Array {
    this.need(n * 8);
    const out = new Float64Array(n);
    if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(this.b.subarray(this.at, this.at + n * 8));
    else for (let i = 0; i < n; i++) out[i] = this.v.getFloat64(this.at + i * 8, true);
    this.at += n * 8;
    return out;
  }
  /** A string list: the strings, cut from one decoded text. */
  strings(): string[] {
    const n = this.u32();
    const lens = this.u32s(n);
    const bytes = this.u32();
    this.need(bytes);
    const text = utf8.decode(this.b.subarray(this.at, this.at + bytes));
    this.at += bytes;
    const out = new Array<string>(n);
    let c = 0;
    for (let i = 0; i < n; i++) {
      out[i] = text.slice(c, c + lens[i]!);
      c += lens[i]!;
    }
    if (c !== text.length) fail('a string list does not match its lengths');
    return out;
  }
}

/** The header, table and trailer of a snapshot. */
export interface SnapshotIndex {
  gen: number;
  size: number;
  sections: Map<number, { crc: number; offset: number; length: number }>;
}

/** Reads and checks the header, table and trailer through `read(offset, length)`. */
export async function readSnapshotIndex(
  size: number,
  read: (offset: number, length: number) => Promise<Uint8Array | null>,
): Promise<SnapshotIndex> {
  if (size < HEADER + TRAILER) fail('too short');
  const [header, trailer] = await Promise.all([read(0, HEADER), read(size - TRAILER, TRAILER)]);
  if (!header || header.length !== HEADER || !trailer || trailer.length !== TRAILER) fail('cut short');
  const h = new Reader(header!);
  if (new TextDecoder().decode(header!.subarray(0, 8)) !== SNAPSHOT_MAGIC) fail('not a snapshot');
  h.at = 8;
  if (h.u32() !== SNAPSHOT_LAYOUT) fail('another layout');
  h.u32();
  const gen = h.f64();
  const t = new Reader(trailer!);
  const tableAt = t.f64();
  const count = t.u32();
  const crc = t.u32();
  if (count > 64 || tableAt !== size - TRAILER - count * ROW) fail('a damaged table');
  const rows = await read(tableAt, count * ROW);
  if (!rows || rows.length !== count * ROW || checksum32(header!, rows) !== crc) fail('a damaged table');
  const r = new Reader(rows!);
  const sections = new Map<number, { crc: number; offset: number; length: number }>();
  for (let i = 0; i < count; i++) {
    const id = r.u32();
    const c = r.u32();
    const offset = r.f64();
    const length = r.f64();
    if (offset < HEADER || length < 0 || offset + length > tableAt) fail('a section out of bounds');
    sections.set(id, { crc: c, offset, length });
  }
  for (const id of Object.values(SECTION)) if (!sections.has(id)) fail('a section missing');
  return { gen, size, sections };
}

/** Cuts a range read from `from` into the sections it holds, each checked against its checksum. */
export function sectionsOf(
  index: SnapshotIndex,
  ids: number[],
  bytes: Uint8Array,
  from: number,
): Map<number, Uint8Array> {
  const out = new Map<number, Uint8Array>();
  for (const id of ids) {
    const s = index.sections.get(id)!;
    const start = s.offset - from;
    if (start < 0 || start + s.length > bytes.length) fail('a section cut short');
    const b = bytes.subarray(start, start + s.length);
    if (checksum32(b) !== s.crc) fail(`section ${id} damaged`);
    out.set(id, b);
  }
  return out;
}

/** The range covering sections `ids` (they are contiguous in the layout). */
export function rangeOf(index: SnapshotIndex, ids: number[]): { offset: number; length: number } {
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const id of ids) {
    const s = index.sections.get(id)!;
    lo = Math.min(lo, s.offset);
    hi = Math.max(hi, s.offset + s.length);
  }
  return { offset: lo, length: hi - lo };
}

/** The note table: columns, with each entry's rest still JSON (parsed by `entryAt`). */
export interface NoteTable {
  n: number;
  paths: string[];
  size: Float64Array;
  mtime: Float64Array;
  firstSeen: Float64Array;
  /** The entries' JSON: row `i` is `rest[at[i], at[i + 1])`. */
  rest: Uint8Array;
  at: Uint32Array;
}

export function readNotes(b: Uint8Array): NoteTable {
  const r = new Reader(b);
  const n = r.u32();
  const size = r.f64s(n);
  const mtime = r.f64s(n);
  const firstSeen = r.f64s(n);
  const paths = r.strings();
  if (paths.length !== n || r.u32() !== n) fail('a note table of the wrong length');
  const start = r.at;
  const at = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const k = r.u32();
    at[i] = r.at - start;
    r.need(k);
    r.at += k;
  }
  at[n] = r.at - start;
  const rest = b.subarray(start, r.at);
  // Each entry's length prefix sits before it: skip it when reading row i.
  return { n, paths, size, mtime, firstSeen, rest, at };
}

/** The entry of row `i` of the table (its JSON parsed now). */
export function entryAt(t: NoteTable, i: number): IndexEntry {
  const end = i + 1 < t.n ? t.at[i + 1]! - 4 : t.at[i + 1]!;
  const rest = JSON.parse(utf8.decode(t.rest.subarray(t.at[i]!, end))) as unknown[];
  if (!Array.isArray(rest) || rest.length !== REST_FIELDS.length) fail('a damaged entry');
  // One literal in the order `toEntry` builds an entry: every entry has the same shape, whether
  // parsed here or indexed now (REST_FIELDS' order, written by `sectionPieces`).
  const entry = {
    path: t.paths[i]!,
    size: t.size[i]!,
    mtimeMs: t.mtime[i]!,
    checksum: rest[0],
    titleExplicit: rest[1],
    tags: rest[2],
    links: rest[3],
    wordCount: rest[4],
    created: rest[5],
    firstSeen: t.firstSeen[i]!,
    warnings: rest[6],
    frontmatter: rest[7],
    bodyStart: rest[8],
  } as IndexEntry;
  if (
    typeof entry.checksum !== 'string' ||
    !Array.isArray(entry.tags) ||
    !Array.isArray(entry.links) ||
    !Array.isArray(entry.warnings) ||
    typeof entry.wordCount !== 'number' ||
    typeof entry.bodyStart !== 'number' ||
    typeof entry.frontmatter !== 'object' ||
    entry.frontmatter === null
  )
    fail('a damaged entry');
  return entry;
}

/** The link graph's resolutions by row (decoded when asked, `rowsOf`) and the vault's files. */
export interface GraphTable {
  files: string[];
  /** Per note row, where its resolutions start in `b` (-1: resolve on load). */
  at: Int32Array;
  b: Uint8Array;
  max: number;
  /** A view of `b`. */
  view: DataView;
}

export function readGraph(b: Uint8Array, notes: number): GraphTable {
  const r = new Reader(b);
  const files = r.strings();
  const at = new Int32Array(notes);
  for (let i = 0; i < notes; i++) {
    const k = r.u32();
    if (k === NONE) {
      at[i] = -1;
      continue;
    }
    at[i] = r.at - 4;
    r.need(k * 4);
    r.at += k * 4;
  }
  return { files, at, b, max: notes + files.length, view: r.v };
}

/**
 * Where the links of note row `i` point, as paths (null: resolve on load). Read straight from the
 * section's bytes (their bounds were checked by `readGraph`): no typed array per note.
 */
export function resolvedPathsOf(t: NoteTable, g: GraphTable, i: number): (string | null)[] | null {
  const at = g.at[i]!;
  if (at < 0) return null;
  const v = g.view;
  const k = v.getUint32(at, true);
  const out = new Array<string | null>(k);
  for (let j = 0; j < k; j++) {
    const row = v.getUint32(at + 4 + j * 4, true);
    if (row > g.max) fail('a link to nowhere');
    out[j] = row === 0 ? null : row <= t.n ? t.paths[row - 1]! : g.files[row - 1 - t.n]!;
  }
  return out;
}

/** The search index's notes: `[id, path, body length, title words]` and the next id. */
export function readDocs(
  b: Uint8Array,
  t: NoteTable,
): { nextId: number; docs: [number, string, number, number][] } {
  const r = new Reader(b);
  const nextId = r.u32();
  const n = r.u32();
  const ids = r.u32s(n);
  const lens = r.u32s(n);
  const tlens = r.u32s(n);
  const rows = r.u32s(n);
  const extra = r.strings();
  let x = 0;
  const docs: [number, string, number, number][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    const path = row === NONE ? extra[x++] : t.paths[row];
    if (path === undefined || ids[i]! >= nextId) fail('a damaged search table');
    docs[i] = [ids[i]!, path!, lens[i]!, tlens[i]!];
  }
  return { nextId, docs };
}

/** The search terms, their lists' counts and last ids, and where each list sits in POSTINGS. */
export interface TermTable {
  terms: string[];
  count: Uint32Array;
  last: Uint32Array;
  offset: Uint32Array;
  length: Uint32Array;
}

export function readTerms(b: Uint8Array, postings: number): TermTable {
  const r = new Reader(b);
  const n = r.u32();
  const count = r.u32s(n);
  const last = r.u32s(n);
  const offset = r.u32s(n);
  const length = r.u32s(n);
  const terms = r.strings();
  if (terms.length !== n) fail('a damaged term table');
  for (let i = 0; i < n; i++) if (offset[i]! + length[i]! > postings) fail('a posting list out of bounds');
  return { terms, count, last, offset, length };
}
