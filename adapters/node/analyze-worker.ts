import { parentPort } from 'node:worker_threads';
import { analyzeMarkdown } from '../../core/markdown.ts';

/** Worker side of the analyze pool: `{id, texts}` in, `{id, results}` out. */
parentPort?.on('message', (msg: { id: number; texts: string[] }) => {
  parentPort?.postMessage({ id: msg.id, results: msg.texts.map(analyzeMarkdown) });
});
