import { fileURLToPath } from 'node:url';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import { jsonLogger } from '../../adapters/node/logger.ts';
import { nodeResolveHost } from '../../adapters/node/resolve-host.ts';
import { fsFileStore } from '../../adapters/store/fs-file-store.ts';
import { fsHistoryStore } from '../../adapters/store/fs-history-store.ts';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import type { RuntimeParts } from './compose.ts';
import type { Env } from './config/index.ts';
import { startLifecycle } from './lifecycle.ts';
import { composeQuire, readConfig } from './quire.ts';

export { flushLogsSync } from '../../adapters/node/logger.ts';
export { failStart } from './quire.ts';

/**
 * The start of a runtime that has a filesystem but no relay connector (Bun, Deno): the config,
 * the fs stores with their watcher, the core and the app, and the shared lifecycle. The caller
 * serves `app.fetch`, calls `listening(port)`, adds its server as a door, and calls `stop`.
 */
export async function composeFsServer(env: Env, parts: RuntimeParts) {
  const config = readConfig(env, { name: parts.runtime.name, relayConnector: false });
  const logger = jsonLogger(config.logLevel);
  // The state store first: it creates DATA_DIR 0700, before the vault inside it is made.
  const state = fsStateStore({ dir: config.dataDir });
  const notes = fsNoteStore({ dir: config.vaultDir, fsync: config.fsync });
  const quire = await composeQuire(config, {
    resolveHost: nodeResolveHost,
    clientAssets: fsClientAssets(fileURLToPath(new URL('../../client-link/dist', import.meta.url))),
    ...parts,
    notes,
    state,
    files: fsFileStore({ dir: config.vaultDir }),
    history: config.historyEnabled
      ? fsHistoryStore({
          dir: `${config.dataDir}/history`,
          fsync: config.fsync,
          vaultTrash: config.trashDir === 'vault' ? config.vaultDir : undefined,
        })
      : undefined,
    logger,
  });
  const lifecycle = startLifecycle({
    notes: quire.core.notes,
    store: notes,
    logger,
    reconcileSeconds: config.reconcileSeconds,
    shutdownGraceMs: config.shutdownGraceMs,
    app: quire,
  });
  return { config, app: quire.app, logger, listening: quire.listening, ...lifecycle };
}
