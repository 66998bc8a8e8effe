import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { MarkdownAnalysis } from '../../core/markdown.ts';
import type { BatchAnalyzer } from '../../core/notes.ts';

/** URL of tsx's ESM register API (import.meta.resolve is missing under some test runners). */
function tsxApi(): string {
  if (typeof import.meta.resolve === 'function') return import.meta.resolve('tsx/esm/api');
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  return pathToFileURL(join(dirname(pkg), 'dist/esm/api/index.mjs')).href;
}

/**
 * Parses markdown on worker threads, so a cold index uses every core. Small batches
 * (one note being saved) are not worth a thread hop and are parsed by the caller's fallback.
 */
export function analyzePool(opts: { threads?: number; fallback: BatchAnalyzer; minBatch?: number }) {
  const threads = Math.max(1, opts.threads ?? Math.min(4, availableParallelism()));
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./analyze-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  // From TypeScript sources (npm start, tests) the worker registers tsx before loading the module.
  const bootstrap = fromSource
    ? `import(${JSON.stringify(tsxApi())})` +
      `.then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`
    : null;
  let workers: Worker[] | null = null;
  let nextId = 0;
  const pending = new Map<
    number,
    { resolve: (r: MarkdownAnalysis[]) => void; reject: (e: unknown) => void }
  >();

  const start = (): Worker[] => {
    workers ??= Array.from({ length: threads }, () => {
      const w = bootstrap ? new Worker(bootstrap, { eval: true }) : new Worker(url);
      w.on('message', (m: { id: number; results: MarkdownAnalysis[] }) => {
        pending.get(m.id)?.resolve(m.results);
        pending.delete(m.id);
        // An idle pool must not keep the process alive; a busy one must.
        if (pending.size === 0) for (const x of workers ?? []) x.unref();
      });
      w.on('error', (err) => {
        for (const p of pending.values()) p.reject(err);
        pending.clear();
      });
      w.unref();
      return w;
    });
    return workers;
  };

  const run = (w: Worker, texts: string[]) =>
    new Promise<MarkdownAnalysis[]>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage({ id, texts });
    });

  const analyze: BatchAnalyzer = async (texts) => {
    if (texts.length < (opts.minBatch ?? 8)) return opts.fallback(texts);
    const ws = start();
    const size = Math.ceil(texts.length / ws.length);
    const parts = await Promise.all(
      ws.map((w, i) => {
        const slice = texts.slice(i * size, (i + 1) * size);
        return slice.length ? run(w, slice) : Promise.resolve([]);
      }),
    );
    return parts.flat();
  };

  return {
    analyze,
    /** Stops the worker threads. */
    async close(): Promise<void> {
      const ws = workers ?? [];
      workers = null;
      await Promise.all(ws.map((w) => w.terminate()));
    },
  };
}
