/**
 * The semantic index on disk: one JSON document in the state store (`semantic-index.json` in
 * DATA_DIR on Node) holding, per note, its checksum and its passages' headings and hashes, and
 * per passage hash its int8 vector. Written whole, atomically, after embedding work.
 */
import type { StateStore } from '../../ports.ts';
import { decodeVector, encodeVector, type QVector } from './vectors.ts';

/** State store key of the semantic index. */
export const SEMANTIC_KEY = 'semantic-index.json';

/** What the index keeps of one note: enough to know what changed without reading it. */
export interface NoteEntry {
  checksum: string;
  passages: { heading: string; hash: string }[];
}

/** The whole semantic index in memory. */
export interface SemanticData {
  model: string;
  notes: Map<string, NoteEntry>;
  vectors: Map<string, QVector>;
}

interface Stored {
  v: 1;
  model: string;
  notes: Record<string, [string, [string, string][]]>;
  vectors: Record<string, string>;
}

/** Reads the stored index for `model`; a missing, unreadable or other-model one gives an empty index. */
export async function loadSemantic(state: StateStore | undefined, model: string): Promise<SemanticData> {
  const empty: SemanticData = { model, notes: new Map(), vectors: new Map() };
  const text = await state?.get(SEMANTIC_KEY).catch(() => null);
  if (!text) return empty;
  try {
    const s = JSON.parse(text) as Stored;
    if (s.v !== 1 || s.model !== model) return empty;
    for (const [path, [checksum, ps]] of Object.entries(s.notes)) {
      empty.notes.set(path, { checksum, passages: ps.map(([heading, hash]) => ({ heading, hash })) });
    }
    for (const [hash, enc] of Object.entries(s.vectors)) {
      const v = decodeVector(enc);
      if (v) empty.vectors.set(hash, v);
    }
    return empty;
  } catch {
    return { model, notes: new Map(), vectors: new Map() };
  }
}

/** Writes the index (only vectors some note still uses). */
export async function saveSemantic(state: StateStore, data: SemanticData): Promise<void> {
  const used = new Set<string>();
  const notes: Stored['notes'] = {};
  for (const [path, e] of data.notes) {
    notes[path] = [e.checksum, e.passages.map((p) => [p.heading, p.hash])];
    for (const p of e.passages) used.add(p.hash);
  }
  const vectors: Stored['vectors'] = {};
  for (const [hash, v] of data.vectors) if (used.has(hash)) vectors[hash] = encodeVector(v);
  const doc: Stored = { v: 1, model: data.model, notes, vectors };
  await state.put(SEMANTIC_KEY, JSON.stringify(doc));
}
