/**
 * What every runtime root does between reading its environment and serving: validate the
 * configuration, build the core over the runtime's stores, compose the HTTP app, and record the
 * port once the runtime listens. Runtime-neutral (no `node:*` import): Node, Bun, Deno and the
 * Worker call it with their own adapters (docs/reference/architecture.md "Runtime roots").
 */
import type { BatchAnalyzer } from '../../core/notes/service.ts';
import type { Clock, FileStore, HistoryStore, Logger, NoteStore, StateStore } from '../../core/ports.ts';
import pkg from '../../package.json' with { type: 'json' };
import { composeApp, type RuntimeParts, selfOrigins } from './compose.ts';
import { ConfigError, type Env, loadConfig, type ServerConfig } from './config/index.ts';

/**
 * The validated configuration of a runtime. Where the runtime has no relay connector (Bun, Deno,
 * the Worker), pairing defaults to open-port and relay pairing is refused with one line.
 */
export function readConfig(
  env: Env,
  runtime: { name: string; relayConnector: boolean; defaults?: Env; cwd?: string },
): ServerConfig {
  const defaults = runtime.relayConnector
    ? runtime.defaults
    : { PAIRING_MODE: 'open-port', ...runtime.defaults };
  const config = loadConfig({ ...defaults, ...env }, runtime.cwd);
  if (!runtime.relayConnector && config.pairingMode !== 'open-port') {
    throw new ConfigError(
      `PAIRING_MODE must be open-port on ${runtime.name}: the relay connector runs on Node only.`,
    );
  }
  return config;
}

/** The package version, for system/info and the setup payload. */
export const VERSION: string = pkg.version;

/** A runtime's adapters: its stores and its parts of the HTTP app. */
export interface QuireAdapters extends RuntimeParts {
  notes: NoteStore;
  state: StateStore;
  files?: FileStore;
  /** Versions and trash; absent: deletes are for good. */
  history?: HistoryStore;
  logger: Logger;
  clock?: Clock;
  /** Parses many notes at once (Node spreads this over threads). */
  analyze?: BatchAnalyzer;
  /** True while the runtime answers requests: background work after a start waits (core `busy`). */
  busy?: () => boolean;
  /** The HTTP client of the agent, channels and plugins (tests inject one; default: global fetch). */
  fetch?: typeof globalThis.fetch;
  relayStatus?: () => unknown;
}

/** Builds the whole domain (`createCore`) and the HTTP app from the configuration and the runtime's adapters. */
export async function composeQuire(config: ServerConfig, adapters: QuireAdapters) {
  const { notes: store, state, files, history, logger, analyze, ...parts } = adapters;
  const clock = adapters.clock ?? { now: () => Date.now() };
  const composed = await composeApp({
    ...parts,
    config,
    store,
    analyze,
    fileStore: files,
    historyStore: history,
    state,
    clock,
    logger,
    version: VERSION,
  });
  // Versions and trash past their retention go in the background, hourly (docs/reference/history.md).
  const pruning = setInterval(() => {
    composed.core.prune().then(
      (r) => (r.versions || r.trash ? logger.info('history pruned', r) : undefined),
      (err) => logger.warn('history prune failed', { error: String(err) }),
    );
  }, 3_600_000);
  (pruning as { unref?: () => void }).unref?.();
  return {
    ...composed,
    /** Records the port the runtime listens on (setup payload, CORS) and logs `listening`. */
    listening(port: number): string {
      composed.setupConfig.port = port;
      for (const o of selfOrigins(config, port))
        if (!config.corsOrigins.includes(o)) config.corsOrigins.push(o);
      const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
      logger.info('listening', {
        url,
        runtime: parts.runtime.name,
        vault: config.vaultDir,
        version: VERSION,
        authMode: config.authMode,
        pid: (globalThis as { process?: { pid?: number } }).process?.pid,
      });
      return url;
    },
  };
}
