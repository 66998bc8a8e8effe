import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { analyzePool } from '../../adapters/node/analyze-pool.ts';
import { timeoutServerOptions } from '../../adapters/node/http-timeouts.ts';
import { jsonLogger } from '../../adapters/node/logger.ts';
import { relayConnector } from '../../adapters/relay/connector.ts';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { analyzeMarkdown } from '../../core/markdown.ts';
import { createNoteService } from '../../core/notes.ts';
import type { Logger } from '../../core/ports.ts';
import { type RunningRelay, startRelay } from '../relay/server.ts';
import { composeApp, selfOrigins } from './compose.ts';
import type { ServerConfig } from './config.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** A running note server. */
export interface RunningServer {
  url: string;
  port: number;
  logger: Logger;
  /** Resolves once the vault is indexed. */
  ready: Promise<void>;
  /** Stops accepting, lets in-flight requests and writes finish, saves the index cache. */
  stop(reason?: string): Promise<void>;
}

/** The Node composition root: config in, a listening server out. Throws on damaged state. */
export async function startServer(
  config: ServerConfig,
  opts: { logger?: Logger } = {},
): Promise<RunningServer> {
  const logger = opts.logger ?? jsonLogger(config.logLevel);
  const clock = { now: () => Date.now() };
  const store = fsNoteStore({ dir: config.vaultDir });
  const state = fsStateStore({ dir: config.dataDir });
  const pool = analyzePool({ fallback: async (texts) => texts.map(analyzeMarkdown) });
  const notes = createNoteService({ store, state, clock, logger, analyze: pool.analyze });
  let relayStatus: () => unknown = () => ({ state: 'disabled' });
  const { app, auth, setupConfig, channels, plugins } = await composeApp({
    config,
    notes,
    state,
    clock,
    logger,
    version: pkg.version,
    relayStatus: () => relayStatus(),
  });

  const server = serve({
    fetch: app.fetch,
    port: config.port,
    hostname: config.host,
    serverOptions: timeoutServerOptions(config.timeouts),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  setupConfig.port = port;
  for (const o of selfOrigins(config, port)) if (!config.corsOrigins.includes(o)) config.corsOrigins.push(o);
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info('listening', { url, vault: config.vaultDir, version: pkg.version, authMode: config.authMode });

  // Relay pairing: register with RELAY_URL, or run the relay in this process so every link works.
  let relay: RunningRelay | null = null;
  let connector: ReturnType<typeof relayConnector> | null = null;
  if (config.pairingMode === 'relay') {
    if (!config.relayUrl) {
      relay = await startRelay(
        {
          host: config.relayHost,
          port: config.relayPort,
          publicBaseUrl: config.relayPublicBaseUrl,
          redisUrl: null,
          logLevel: config.logLevel,
          timeouts: config.timeouts,
        },
        { logger },
      );
      setupConfig.relayUrl = relay.publicBaseUrl;
    }
    connector = relayConnector({
      relayUrl: config.relayUrl ?? relay!.url,
      serverId: auth.serverId,
      secret: auth.relaySecret,
      handle: (req) => Promise.resolve(app.fetch(req, { relayed: true })),
      redeemPairCode: async (code) => {
        const key = await auth.redeemPairCode(code);
        return key ? { apiKey: key.apiKey } : null;
      },
      pairCodeHash: async () => sha256Hex((await auth.pairCode()).code),
      logger,
    });
    auth.onPairCodeChange(() => void connector?.syncPairCode().catch(() => {}));
    connector.start();
    relayStatus = () => connector!.status();
  }

  // The watcher starts alongside indexing; one reconcile after both closes the gap between them.
  const watching = store.watch?.((changes) => void notes.applyExternalChanges(changes));
  const started = performance.now();
  let lastLog = 0;
  const ready = notes
    .load((done, total) => {
      const now = performance.now();
      if (now - lastLog > 1000 || done === total) {
        lastLog = now;
        const rate = Math.round(done / ((now - started) / 1000));
        logger.info('indexing', { done, total, notesPerSecond: rate });
      }
    })
    .then(async () => {
      const s = notes.status();
      logger.info('index ready', { notes: s.notes, ms: Math.round(performance.now() - started) });
      await pool.close();
      await notes.saveCache();
      void watching?.then(() => notes.reconcile());
    });
  ready.catch((err) => logger.error('indexing failed', { error: String(err) }));
  const saver = setInterval(() => void notes.saveCache().catch(() => {}), 10_000);
  saver.unref();
  // A safety net for changes a watcher can miss (network filesystems, overflowed inotify queues).
  const reconciler = setInterval(
    () => void notes.reconcile().catch(() => {}),
    config.reconcileSeconds * 1000,
  );
  reconciler.unref();

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    logger,
    ready,
    stop(reason = 'stop') {
      stopping ??= (async () => {
        logger.info('shutting down', { reason });
        clearInterval(saver);
        clearInterval(reconciler);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as import('node:http').Server).closeIdleConnections?.();
        });
        await ready.catch(() => {});
        await channels.close();
        await (await watching)?.();
        await notes.drain();
        await plugins.stop();
        await notes.saveCache();
        await pool.close();
        await connector?.stop();
        await relay?.stop();
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}
