import { fileURLToPath } from 'node:url';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import { nodeResolveHost } from '../../adapters/node/resolve-host.ts';
import { fsFileStore } from '../../adapters/store/fs-file-store.ts';
import { fsHistoryStore } from '../../adapters/store/fs-history-store.ts';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import type { BatchAnalyzer } from '../../core/notes/service.ts';
import type { Logger } from '../../core/ports.ts';
import type { RuntimeParts } from './compose.ts';
import type { ServerConfig } from './config/index.ts';
import { type LifecycleParts, startLifecycle } from './lifecycle.ts';
import { composeQuire } from './quire.ts';

/** The built client UI a server with a filesystem serves at /link and /workspace. */
export const CLIENT_DIST_DIR = fileURLToPath(new URL('../../client-link/dist', import.meta.url));

/**
 * The start of a runtime with a filesystem (Node, Bun, Deno): the fs stores with their watcher,
 * the core and the app. The caller serves `quire.app.fetch`, calls `quire.listening(port)`, then
 * `lifecycle()` (index, watch, timers; the ordered stop), and adds its server as a door.
 */
export async function composeFsServer(
  config: ServerConfig,
  parts: RuntimeParts & {
    logger: Logger;
    analyze?: BatchAnalyzer;
    busy?: () => boolean;
    relayStatus?: () => unknown;
  },
) {
  const { logger } = parts;
  // The state store first: it creates DATA_DIR 0700, before the vault inside it is made.
  const state = fsStateStore({ dir: config.dataDir });
  const notes = fsNoteStore({ dir: config.vaultDir, fsync: config.fsync });
  const quire = await composeQuire(config, {
    resolveHost: nodeResolveHost,
    clientAssets: fsClientAssets(CLIENT_DIST_DIR),
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
  });
  return {
    quire,
    logger,
    /** Starts the shared lifecycle; its `stop` is the server's ordered stop (SHUTDOWN_GRACE_MS). */
    lifecycle: (extra: Pick<LifecycleParts, 'afterIndex' | 'onStopStep'> = {}) => ({
      ...startLifecycle({
        ...extra,
        notes: quire.core.notes,
        store: notes,
        logger,
        reconcileSeconds: config.reconcileSeconds,
        shutdownGraceMs: config.shutdownGraceMs,
        app: quire,
      }),
      shutdownGraceMs: config.shutdownGraceMs,
    }),
  };
}
