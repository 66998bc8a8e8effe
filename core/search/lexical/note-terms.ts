import type { MarkdownAnalysis } from '../../notes/markdown/types.ts';
import { noteTitle } from '../../notes/title.ts';
import { type DocTerms, docTerms } from './doc-terms.ts';
import { searchDocOf } from './fields.ts';

/**
 * A note's search terms from its analysis and raw text, exactly as a load puts it into the index
 * (title from the analysis or the file name, aliases, headings, tags, body). Pure: an analyzer
 * thread computes them beside the parse, so the cold start's main thread does not
 * tokenize and stem the vault.
 */
export function noteTerms(path: string, a: MarkdownAnalysis, raw: string): DocTerms {
  const entry = { path, tags: a.tags, frontmatter: a.frontmatter, bodyStart: a.bodyStart };
  return docTerms(searchDocOf(entry, noteTitle(path, a.title), a.text, raw));
}
