/**
 * The engines the search evaluation compares, each built over the same notes: Quire's note
 * service (its real search path), and MiniSearch, Orama and FlexSearch with default options
 * (title = file name, text = the note's markdown).
 */
import { create, insert, search as oramaSearch } from '@orama/orama';
import FlexSearch from 'flexsearch';
import MiniSearch from 'minisearch';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../core/notes/service.ts';

/** One engine over one vault: the paths of the best notes for a query, best first. */
export interface Engine {
  name: string;
  search(q: string, limit: number): Promise<string[]> | string[];
}

const titleOf = (path: string) => path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');

/** Quire: the note service over an in-memory store, loaded like a server loads a vault. */
export async function quire(files: Record<string, string>): Promise<Engine> {
  const notes = createNoteService({
    store: memoryNoteStore({ files }),
    state: memoryStateStore(),
    clock: { now: () => Date.now() },
  });
  await notes.load();
  return {
    name: 'Quire',
    search: async (q, limit) => (await notes.search(q, limit)).map((h) => h.path),
  };
}

export function minisearch(files: Record<string, string>): Engine {
  const m = new MiniSearch({ fields: ['title', 'text'] });
  m.addAll(Object.entries(files).map(([id, text]) => ({ id, title: titleOf(id), text })));
  return {
    name: 'MiniSearch 7',
    search: (q, limit) =>
      m
        .search(q)
        .slice(0, limit)
        .map((r) => String(r.id)),
  };
}

export async function orama(files: Record<string, string>): Promise<Engine> {
  const db = create({ schema: { title: 'string', text: 'string' } as const });
  for (const [id, text] of Object.entries(files)) await insert(db, { id, title: titleOf(id), text });
  return {
    name: 'Orama 3',
    search: async (q, limit) => (await oramaSearch(db, { term: q, limit })).hits.map((h) => h.id),
  };
}

export function flexsearch(files: Record<string, string>): Engine {
  const index = new FlexSearch.Index();
  const paths = Object.keys(files);
  paths.forEach((p, i) => {
    index.add(i, `${titleOf(p)}\n${files[p]}`);
  });
  return {
    name: 'FlexSearch 0.8',
    search: (q, limit) => (index.search(q, limit) as number[]).map((i) => paths[i]!),
  };
}
