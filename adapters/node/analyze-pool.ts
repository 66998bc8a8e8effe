import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { MarkdownAnalysis } from '../../core/notes/markdown/types.ts';
import type { BatchAnalyzer } from '../../core/notes/service.ts';
import type { DocTerms, PackedTerms } from '../../core/search/lexical/doc-terms.ts';
import { fromWire, type WireAnalysis } from './analyze-wire.ts';

/** URL of tsx's ESM register API (import.meta.resolve is missing under some test runners). */
function tsxApi(): string {
  if (typeof import.meta.resolve === 'function') return import.meta.resolve('tsx/esm/api');
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  return pathToFileURL(join(dirname(pkg), 'dist/esm/api/index.mjs')).href;
}

type Analysis = MarkdownAnalysis & { terms?: DocTerms | PackedTerms };

/** A batch with at least this many characters goes to a thread however few notes it holds. */
const LARGE_CHARS = 128 * 1024;

/**
 * Parses markdown on worker threads. Small batches (one ordinary note being saved) are not worth
 * a thread hop and are parsed by the caller's fallback; a large note (a batch of 128 Ki
 * characters or more) goes to a thread, so its parse never stalls the event loop. Threads start
 * on first use and stop after `idleMs` without work (default 2 s): no worker heap stays alive
 * once indexing is over.
 */
export function analyzePool(opts: {
  threads?: number;
  fallback: BatchAnalyzer;
  minBatch?: number;
  idleMs?: number;
}) {
  const threads = Math.max(1, opts.threads ?? Math.min(4, availableParallelism()));
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./analyze-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  // From TypeScript sources (npm start, tests) the worker registers tsx before loading the module.
  const bootstrap = fromSource
    ? `import(${JSON.stringify(tsxApi())})` +
      `.then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`
    : null;
  let workers: Worker[] | null = null;
  let idleTimer: ReturnType<typeof setTimeout> | null = null;
  let nextId = 0;
  /** Set by `loadDone` while batches are in flight: stop once they are answered. */
  let stopWhenIdle = false;
  const stopIdle = () => {
    const ws = workers ?? [];
    workers = null;
    for (const w of ws) void w.terminate();
  };
  const pending = new Map<number, { resolve: (r: WireAnalysis[]) => void; reject: (e: unknown) => void }>();

  const start = (): Worker[] => {
    stopWhenIdle = false;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    workers ??= Array.from({ length: threads }, () => {
      const w = bootstrap ? new Worker(bootstrap, { eval: true }) : new Worker(url);
      w.on('message', (m: { id: number; results: WireAnalysis[] }) => {
        pending.get(m.id)?.resolve(m.results);
        pending.delete(m.id);
        // An idle pool must not keep the process alive; a busy one must.
        if (pending.size === 0) {
          for (const x of workers ?? []) x.unref();
          if (stopWhenIdle) {
            stopWhenIdle = false;
            stopIdle();
            return;
          }
          idleTimer = setTimeout(stopIdle, opts.idleMs ?? 2000);
          idleTimer.unref();
        }
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

  const run = async (w: Worker, texts: string[], paths?: string[]): Promise<Analysis[]> => {
    const wire = await new Promise<WireAnalysis[]>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage(paths ? { id, texts, paths } : { id, texts });
    });
    const out: Analysis[] = [];
    for (const a of wire) out.push(a.linkPieces ? await fromWire(a) : a);
    return out;
  };

  const analyze: BatchAnalyzer = async (texts, paths) => {
    let chars = 0;
    for (const t of texts) chars += t.length;
    if (texts.length < (opts.minBatch ?? 8) && chars < LARGE_CHARS) return opts.fallback(texts);
    const all = start();
    const ws = all.slice(0, Math.min(all.length, texts.length));
    const size = Math.ceil(texts.length / ws.length);
    const parts = await Promise.all(
      ws.map((w, i) => {
        const slice = texts.slice(i * size, (i + 1) * size);
        return slice.length ? run(w, slice, paths?.slice(i * size, (i + 1) * size)) : Promise.resolve([]);
      }),
    );
    return parts.flat();
  };

  // A load is over: the threads stop as soon as they have nothing to do, not after `idleMs`.
  analyze.loadDone = () => {
    if (pending.size === 0) {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      stopIdle();
    } else stopWhenIdle = true;
  };

  return {
    analyze,
    /** How many threads are up (0 when idle). */
    running: () => workers?.length ?? 0,
    /** Stops the worker threads. */
    async close(): Promise<void> {
      if (idleTimer) clearTimeout(idleTimer);
      const ws = workers ?? [];
      workers = null;
      await Promise.all(ws.map((w) => w.terminate()));
    },
  };
}
