/**
 * What a language model is handed before its first step: the passages search ranks first for the
 * message, cleaned of markup, so it answers from what the search box would show and cites it even
 * when it calls no tool. The offline provider gets the same passages from its own search call.
 */
import type { Logger } from '../ports.ts';
import { readablePassage } from '../search/cite.ts';
import type { Retrieval } from '../search/retrieval.ts';
import { searchQuery } from './local-commands.ts';
import type { Citation } from './types.ts';

/** How many passages go into the context, and most characters of each. */
export const CONTEXT_PASSAGES = 3;
const PASSAGE_CHARS = 700;

/** The context text for the system prompt, and the passages as citations ('' and none when nothing is found). */
export async function contextPassages(
  retrieval: Retrieval,
  message: string,
  hint: string | undefined,
  logger?: Logger,
): Promise<{ text: string; cited: Citation[] }> {
  const q = searchQuery(message);
  if (!q) return { text: '', cited: [] };
  try {
    const { hits } = await retrieval.search(q, { limit: CONTEXT_PASSAGES, hint });
    if (!hits.length) return { text: '', cited: [] };
    const cites = await retrieval.cite(hits, q);
    const cited: Citation[] = [];
    const parts = hits.map((h, i) => {
      const c = cites.find((x) => x.path === h.path);
      const heading = c?.heading ?? h.heading ?? '';
      cited.push({ path: h.path, title: h.title, heading });
      const where = heading && heading !== h.title ? `${h.path} › ${heading}` : h.path;
      return `[${i + 1}] ${where}\n${c ? readablePassage(c.text, PASSAGE_CHARS) : h.snippet}`;
    });
    return {
      text: `\n\nThe passages of the user's notes that search ranks first for this message (markup taken out). Answer from them when they hold the answer and cite them as path › heading; search for more when they do not:\n\n${parts.join('\n\n')}`,
      cited,
    };
  } catch (err) {
    // The model can still search with its tools: a failed look-up only leaves the context out.
    logger?.warn('agent context search failed', { error: String(err) });
    return { text: '', cited: [] };
  }
}
