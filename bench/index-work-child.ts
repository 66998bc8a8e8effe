/**
 * The index work of one update, without HTTP or disk. The generated vault is loaded into
 * memoryNoteStore; then UPDATES planned updates go through `notes.update` (hash, parse, index:
 * everything but the file write). Two index-cache saves are timed beside the event loop: the first
 * (a whole snapshot, built in slices) and one after the updates (the journal of the changed notes).
 * Env: VAULT_DIR (with its `<dir>.json` manifest), SEED, UPDATES. Reports `result` over IPC.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../adapters/store/memory-state-store.ts';
import { createNoteService } from '../core/notes/service.ts';
import { exitWithParent, report } from './children.ts';
import { readVaultFiles } from './generate-vault.ts';
import { planUpdates, timing } from './update.ts';

exitWithParent();
try {
  const dir = process.env.VAULT_DIR ?? '';
  const seed = Number(process.env.SEED ?? 42);
  const count = Number(process.env.UPDATES ?? 200);
  const { manifest, files } = await readVaultFiles(dir);
  const clock = { now: () => Date.now() };
  const notes = createNoteService({
    store: memoryNoteStore({ files, clock }),
    clock,
    state: memoryStateStore(),
  });
  await notes.load();
  // The save runs beside requests: its longest block of the event loop is what a client feels.
  const timedSave = async () => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const t = performance.now();
    await notes.saveCache();
    const ms = performance.now() - t;
    h.disable();
    return { ms, blockMs: h.max / 1e6 };
  };
  const snapshot = await timedSave();
  const WARMUP = 50;
  const all = planUpdates(manifest.notes, seed, count + WARMUP);
  for (const u of all.slice(count)) await notes.update(u.path, { content: u.content });
  const ms: number[] = [];
  for (const u of all.slice(0, count)) {
    const t = performance.now();
    await notes.update(u.path, { content: u.content });
    ms.push(performance.now() - t);
  }
  const journal = await timedSave();
  await report({
    type: 'result',
    update: timing(ms),
    saveCacheMs: snapshot.ms,
    saveBlockMs: snapshot.blockMs,
    journalSaveMs: journal.ms,
    journalBlockMs: journal.blockMs,
  });
  process.exit(0);
} catch (err) {
  await report({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
}
