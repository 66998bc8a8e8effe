/**
 * What every kind of search shares (lexical, semantic, retrieval): the hit it answers and the
 * visibility a folder-limited key searches with. Types only, so any module may import them.
 */

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

/**
 * Which notes a query may see (a folder-limited key's): called with a note's path. The
 * same function object should be passed query after query (its visible set is cached per index
 * change, keyed by the function).
 */
export type Visibility = (path: string) => boolean;
