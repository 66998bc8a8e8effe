import { parentPort } from 'node:worker_threads';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import type { MarkdownAnalysis } from '../../core/notes/markdown/types.ts';
import { LINKS_PER_PIECE, type WireAnalysis } from './analyze-wire.ts';

/**
 * Worker side of the analyze pool: `{id, texts}` in, `{id, results}` out. A note with many
 * links sends them as JSON pieces (`linkPieces`) instead of objects: a structured clone of
 * 200,000 link objects is read back in one piece on the main thread (hundreds of ms), while
 * strings are copied whole and parsed there a piece at a time, yielding between pieces.
 */
parentPort?.on('message', (msg: { id: number; texts: string[] }) => {
  const results = msg.texts.map((t): WireAnalysis => {
    const a: MarkdownAnalysis = analyzeNote(t);
    if (a.links.length <= LINKS_PER_PIECE) return a;
    const linkPieces: string[] = [];
    for (let i = 0; i < a.links.length; i += LINKS_PER_PIECE)
      linkPieces.push(JSON.stringify(a.links.slice(i, i + LINKS_PER_PIECE)));
    return { ...a, links: [], linkPieces };
  });
  parentPort?.postMessage({ id: msg.id, results });
});
