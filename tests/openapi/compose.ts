import { memoryFileStore } from '../../adapters/store/memory-file-store.ts';
import { memoryHistoryStore } from '../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { composeApp } from '../../deploy/shared/node-parts.ts';
import { silentLogger } from '../helpers/logger.ts';

/** The Node root's whole app (auth, agent, channels, plugins, client, docs) over memory stores. */
export async function composedApp(files: Record<string, string> = {}, env: Record<string, string> = {}) {
  const clock = { now: () => Date.now() };
  const config = loadConfig({ DATA_DIR: '/nonexistent-quire-test', RATE_LIMIT: '0', ...env });
  const composed = await composeApp({
    config,
    store: memoryNoteStore({ files }),
    fileStore: memoryFileStore({ files: { 'seed.png': new Uint8Array([137, 80, 78, 71]) } }),
    state: memoryStateStore(),
    historyStore: memoryHistoryStore(),
    clock,
    logger: silentLogger,
    version: '1.2.3',
  });
  await composed.core.load();
  return { ...composed, config };
}
