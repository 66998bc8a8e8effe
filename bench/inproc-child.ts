/**
 * The index work alone, without HTTP or disk: the generated vault is loaded into
 * memoryNoteStore and createNoteService is driven directly. Env: VAULT_DIR (a generated vault
 * with its `<dir>.json` manifest), SEED, UPDATES. Reports `result` over IPC.
 */
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../adapters/store/memory-state-store.ts';
import { analyzeMarkdown } from '../core/notes/markdown/remark.ts';
import { createNoteService } from '../core/notes/service.ts';
import { exitWithParent, memory, report } from './children.ts';
import { readVaultFiles } from './generate-vault.ts';
import { planUpdates, timing } from './update.ts';

exitWithParent();
try {
  const dir = process.env.VAULT_DIR ?? '';
  const seed = Number(process.env.SEED ?? 42);
  const count = Number(process.env.UPDATES ?? 200);
  const { manifest, files } = await readVaultFiles(dir);

  let t = performance.now();
  for (const p of manifest.paths) analyzeMarkdown(files[p]!);
  const parseAllMs = performance.now() - t;

  const clock = { now: () => Date.now() };
  const state = memoryStateStore();
  const notes = createNoteService({ store: memoryNoteStore({ files, clock }), clock, state });
  t = performance.now();
  await notes.load();
  const loadMs = performance.now() - t;
  // Live heap only: the runner starts this child with --expose-gc.
  (globalThis as { gc?: () => void }).gc?.();
  const afterLoad = memory();
  // What the server's 10 s saver does on the event loop whenever something changed.
  t = performance.now();
  await notes.saveCache();
  const saveCacheMs = performance.now() - t;

  // The first WARMUP updates only warm the JIT (a small vault leaves the write path cold).
  const WARMUP = 100;
  const all = planUpdates(manifest.notes, seed, count + WARMUP);
  for (const u of all.slice(count)) await notes.update(u.path, { content: u.content });
  const updates = all.slice(0, count);
  const updateMs: number[] = [];
  for (const u of updates) {
    t = performance.now();
    await notes.update(u.path, { content: u.content });
    updateMs.push(performance.now() - t);
  }
  const parseMs: number[] = [];
  for (const u of updates) {
    t = performance.now();
    analyzeMarkdown(u.content);
    parseMs.push(performance.now() - t);
  }
  // What the first GET /notes after a write pays in the core (the route then assembles the body).
  const listMs: number[] = [];
  for (const u of updates.slice(0, 20)) {
    await notes.update(u.path, { content: `${u.content}\nEdited again.\n` });
    t = performance.now();
    notes.list();
    listMs.push(performance.now() - t);
  }
  await report({
    type: 'result',
    notes: manifest.notes,
    parseAllMs,
    loadMs,
    heapAfterLoad: afterLoad.heapUsed,
    saveCacheMs,
    update: timing(updateMs),
    parse: timing(parseMs),
    listRebuild: timing(listMs),
  });
  process.exit(0);
} catch (err) {
  await report({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
}
