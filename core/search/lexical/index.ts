/**
 * What the notes (the note index, its loading and cache, the note service) use of lexical search:
 * the index, the search runner, a note's search fields and terms, and the cache's shapes. The one
 * door from core/notes/ into search (the import rules hold it); re-exports only.
 */
export type { SearchHit, Visibility } from '../types.ts';
export type { DocTerms, PackedTerms } from './doc-terms.ts';
export { type SearchDoc, searchDocOf } from './fields.ts';
export type { LazySearch, LoadedTerms, SearchCapture, SerializedSearch } from './persist.ts';
export { serializeSearchParts } from './persist.ts';
export { runSearch, type SearchVault } from './run.ts';
export { createSearchIndex, SearchIndex } from './search-index.ts';
export { aliasesOf } from './text.ts';
