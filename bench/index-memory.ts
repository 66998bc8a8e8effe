/**
 * Issue 33: the note index's own heap, in-process. Loads a vault as the server does (fs stores,
 * analyzer threads), then reports the V8 heap the index holds after a full GC, what the first
 * full list's summaries add, the index's own estimate (`notes.memory()`, what health shows as `index.bytes`), and optionally a
 * heap snapshot (summarize it with bench/heap-classes.mjs).
 * Usage: node --expose-gc --import tsx bench/index-memory.ts <vault-dir> [out.heapsnapshot]
 */
import { analyzePool } from '../adapters/node/analyze-pool.ts';
import { fsFileStore } from '../adapters/store/fs-file-store.ts';
import { fsNoteStore } from '../adapters/store/fs-note-store.ts';
import { analyzeNote } from '../core/notes/markdown/analyzer.ts';
import { createNoteService } from '../core/notes/service.ts';

const vault = process.argv[2]!;
const gc = (globalThis as { gc?: () => void }).gc!;
gc();
const before = process.memoryUsage().heapUsed;
const pool = analyzePool({ fallback: async (t) => t.map((x) => analyzeNote(x)) });
const store = fsNoteStore({ dir: vault, watch: false });
const notes = createNoteService({
  store,
  files: fsFileStore({ dir: vault }),
  clock: { now: () => Date.now() },
  analyze: pool.analyze,
});
const t = performance.now();
await notes.load();
const loadMs = performance.now() - t;
await pool.close();
gc();
gc();
const afterLoad = process.memoryUsage().heapUsed;
notes.list();
gc();
const afterList = process.memoryUsage().heapUsed;
const MB = 1024 * 1024;
const m0 = performance.now();
const estimate = notes.memory();
const estimateMs = performance.now() - m0;
console.log(
  JSON.stringify({
    loadMs: Math.round(loadMs),
    indexMB: +((afterLoad - before) / MB).toFixed(1),
    summariesMB: +((afterList - afterLoad) / MB).toFixed(1),
    status: notes.status(),
    estimateMB: Object.fromEntries(Object.entries(estimate).map(([k, n]) => [k, +(n / MB).toFixed(1)])),
    estimateMs: +estimateMs.toFixed(1),
  }),
);
if (process.argv[3]) (await import('node:v8')).writeHeapSnapshot(process.argv[3]);
