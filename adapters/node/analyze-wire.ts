import type { LinkOccurrence, MarkdownAnalysis } from '../../core/notes/markdown/types.ts';
import type { DocTerms, PackedTerms } from '../../core/search/lexical/doc-terms.ts';

/** Links sent as one JSON piece by the analyze worker (parsing one takes a few ms). */
export const LINKS_PER_PIECE = 4096;

/** An analysis as it crosses the thread boundary: a large link list travels as JSON pieces. */
export type WireAnalysis = MarkdownAnalysis & { linkPieces?: string[]; terms?: DocTerms | PackedTerms };

/** A note with more terms than this sends them packed (`PackedTerms`): one string and one buffer. */
export const PACK_TERMS_OVER = 8192;

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The analysis back from its wire form: link pieces are parsed one per event-loop turn, so a
 * note with 200,000 links never holds the loop for longer than one piece.
 */
export async function fromWire(
  w: WireAnalysis,
): Promise<MarkdownAnalysis & { terms?: DocTerms | PackedTerms }> {
  const { linkPieces, ...a } = w;
  if (!linkPieces) return a;
  const links: LinkOccurrence[] = [];
  for (const piece of linkPieces) {
    await nextTask();
    for (const l of JSON.parse(piece) as LinkOccurrence[]) links.push(l);
  }
  return { ...a, links };
}
