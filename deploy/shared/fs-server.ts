import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import { jsonLogger } from '../../adapters/node/logger.ts';
import { nodeResolveHost } from '../../adapters/node/resolve-host.ts';
import { fsFileStore } from '../../adapters/store/fs-file-store.ts';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { AuthStateError } from '../../core/auth/state.ts';
import { createCore } from '../../core/create-core.ts';
import { composeApp, type RuntimeParts, selfOrigins } from './compose.ts';
import type { Env } from './config/read.ts';
import { ConfigError, loadConfig } from './config/server.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/**
 * The wiring of a runtime that has a filesystem but not Node's extras (Bun, Deno): the config,
 * the fs stores with their watcher, the core and the app. The caller serves `app.fetch`, then
 * calls `listening(port)`. Pairing is open-port: the relay connector and the embedded relay
 * run on Node only.
 */
export async function composeFsServer(env: Env, parts: RuntimeParts) {
  const config = loadConfig({ PAIRING_MODE: 'open-port', ...env });
  if (config.pairingMode !== 'open-port') {
    throw new ConfigError(
      `PAIRING_MODE must be open-port on ${parts.runtime.name}: the relay connector runs on Node only.`,
    );
  }
  const logger = jsonLogger(config.logLevel);
  const clock = { now: () => Date.now() };
  // The state store first: it creates DATA_DIR 0700, before the vault inside it is made.
  const state = fsStateStore({ dir: config.dataDir });
  const store = fsNoteStore({ dir: config.vaultDir, fsync: config.fsync });
  const core = createCore({ store, state, clock, logger });
  const clientDir = fileURLToPath(new URL('../../client-link/dist', import.meta.url));
  const { app, setupConfig, channels, plugins, feed } = await composeApp({
    resolveHost: nodeResolveHost,
    ...parts,
    config,
    notes: core.notes,
    fileStore: fsFileStore({ dir: config.vaultDir }),
    state,
    clock,
    logger,
    version: pkg.version,
    clientAssets: parts.clientAssets ?? fsClientAssets(clientDir),
  });
  const watching = store.watch?.((changes) => void core.notes.applyExternalChanges(changes));
  const ready = core.load().then(async () => {
    logger.info('index ready', { notes: core.notes.status().notes });
    await core.notes.saveCache();
    void watching?.then(() => core.notes.reconcile());
  });
  ready.catch((err) => logger.error('indexing failed', { error: String(err) }));
  const saver = setInterval(() => void core.notes.saveCache().catch(() => {}), 10_000);
  return {
    config,
    app,
    logger,
    ready,
    /** Records the port the runtime listens on (setup payload, CORS) and logs `listening`. */
    listening(port: number) {
      setupConfig.port = port;
      const origins = selfOrigins(config, port);
      for (const o of origins) if (!config.corsOrigins.includes(o)) config.corsOrigins.push(o);
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      logger.info('listening', {
        url: `http://${host}:${port}`,
        runtime: parts.runtime.name,
        vault: config.vaultDir,
      });
    },
    /** Waits for writes, saves the index cache and stops the watcher. */
    async stop() {
      clearInterval(saver);
      feed.close();
      await ready.catch(() => {});
      await (await watching)?.();
      await channels.close();
      await plugins.stop();
      await core.flush();
      logger.info('stopped');
    },
  };
}

/** One clear line on stderr and exit 1 for a bad configuration; anything else is a bug. */
export function failStart(err: unknown, exit: (code: number) => never): never {
  if (err instanceof ConfigError || err instanceof AuthStateError) {
    console.error(`quire: ${err.message}`);
    return exit(1);
  }
  throw err;
}
