/**
 * The key of the note list: a digest of everything the index's note summaries are made
 * of, so that a list encoded by one run can be answered by the next without building a summary.
 *
 * A summary (`NoteIndex.summary`) is a function of the note's entry, the link graph and the
 * titles of the notes that link to it. An entry's title, tags, links, word count and `created`
 * come from the note's bytes (named by its checksum) through the analysis of CACHE_VERSION; its
 * `updatedAt` is the mtime and `createdAt` falls back to the first-seen time; links resolve
 * against the set of note paths (and their aliases, from the bytes again) and the vault's other
 * files. So the sorted (path, checksum, mtime, first seen) of every note and the sorted paths of
 * the other files, with CACHE_VERSION and SUMMARY_FORM, fix every byte of the list. SUMMARY_FORM
 * is raised whenever the summary's fields or their derivation change in code.
 */
import { sha256Pieces } from '../crypto.ts';
import { CACHE_VERSION, type NoteIndex } from './note-index.ts';
import { yieldToEventLoop } from './slices.ts';

/** Raised when `NoteSummary`'s shape or how it is derived from an entry changes. */
export const SUMMARY_FORM = 1;
/** The layout of the hashed bytes (2: binary records). */
const KEY_FORM = 2;
const PIECE = 1 << 20;
/** Longest run of hashing between two yields to the event loop, in ms. */
const SLICE_MS = 8;
/** Everything in code a list key depends on: a key made under another form is not this one's. */
export const LIST_KEY_FORM = `${CACHE_VERSION} ${SUMMARY_FORM} ${KEY_FORM}`;
const encoder = new TextEncoder();

/**
 * The list key of `index` as it is now, or null when the index changed while the key was being
 * computed (the work yields to the event loop: 100,000 notes hash about 12 MB of binary records).
 */
export async function listKey(index: NoteIndex): Promise<string | null> {
  const generation = index.generation;
  const hash = sha256Pieces();
  hash.update(`quire-list ${LIST_KEY_FORM}\n`);
  // Each note as bytes in one reused buffer (no string per note): the path's length and UTF-8,
  // the checksum's 64 hex digits, mtime and first-seen time as float64; hashed a buffer at a time.
  const buf = new Uint8Array(PIECE);
  const view = new DataView(buf.buffer);
  let at = 0;
  // A plain loop that looks at the clock every 256 notes and yields after 8 ms: an async generator
  // step per note (`sliced`) cost more than the note's own bytes and hash (10,000 awaits).
  const paths = index.sortedPaths();
  let slice = performance.now();
  for (let i = 0; i < paths.length; i++) {
    if ((i & 255) === 255 && performance.now() - slice > SLICE_MS) {
      await yieldToEventLoop();
      slice = performance.now();
    }
    const path = paths[i]!;
    const e = index.entries.get(path);
    if (!e || index.generation !== generation) return null;
    if (at + 4 + path.length * 3 + e.checksum.length * 3 + 16 > PIECE) {
      hash.update(buf.subarray(0, at));
      at = 0;
    }
    const p = encoder.encodeInto(path, buf.subarray(at + 4)).written;
    view.setUint32(at, p, true);
    at += 4 + p;
    at += encoder.encodeInto(e.checksum, buf.subarray(at)).written;
    view.setFloat64(at, e.mtimeMs, true);
    view.setFloat64(at + 8, e.firstSeen, true);
    at += 16;
  }
  hash.update(buf.subarray(0, at));
  // The vault's other files, sorted, one per line.
  let files = 'files\n';
  for (const f of index.graph.filesUnder('').sort()) files += `${f}\n`;
  hash.update(files);
  if (index.generation !== generation) return null;
  const key = await hash.digest();
  return index.generation === generation ? key : null;
}
