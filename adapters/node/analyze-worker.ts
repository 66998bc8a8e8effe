import { parentPort } from 'node:worker_threads';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import { packTerms } from '../../core/search/lexical/doc-terms.ts';
import { noteTerms } from '../../core/search/lexical/note-terms.ts';
import { LINKS_PER_PIECE, PACK_TERMS_OVER, type WireAnalysis } from './analyze-wire.ts';

/**
 * Worker side of the analyze pool: `{id, texts, paths?}` in, `{id, results}` out (with paths, each
 * result carries its search terms and no plain text). A note with many
 * links sends them as JSON pieces (`linkPieces`) instead of objects: a structured clone of
 * 200,000 link objects is read back in one piece on the main thread (hundreds of ms), while
 * strings are copied whole and parsed there a piece at a time, yielding between pieces.
 */
parentPort?.on('message', (msg: { id: number; texts: string[]; paths?: string[] }) => {
  const transfer: ArrayBuffer[] = [];
  const results = msg.texts.map((t, i): WireAnalysis => {
    let a: WireAnalysis = analyzeNote(t);
    // Paths given (a load, or a large note written): the search terms are made here, and the
    // plain text stays here. Many terms go packed (one string, one buffer moved, not copied).
    const path = msg.paths?.[i];
    if (path !== undefined) {
      const terms = noteTerms(path, a, t);
      if (terms.length > 2 * PACK_TERMS_OVER) {
        const packed = packTerms(terms);
        transfer.push(packed.vals.buffer as ArrayBuffer);
        a = { ...a, terms: packed, text: '' };
      } else a = { ...a, terms, text: '' };
    }
    if (a.links.length <= LINKS_PER_PIECE) return a;
    const linkPieces: string[] = [];
    for (let i = 0; i < a.links.length; i += LINKS_PER_PIECE)
      linkPieces.push(JSON.stringify(a.links.slice(i, i + LINKS_PER_PIECE)));
    return { ...a, links: [], linkPieces };
  });
  parentPort?.postMessage({ id: msg.id, results }, transfer);
});
