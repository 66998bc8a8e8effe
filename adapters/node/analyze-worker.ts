import { parentPort } from 'node:worker_threads';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';

/** Worker side of the analyze pool: `{id, texts}` in, `{id, results}` out. */
parentPort?.on('message', (msg: { id: number; texts: string[] }) => {
  parentPort?.postMessage({ id: msg.id, results: msg.texts.map((t) => analyzeNote(t)) });
});
