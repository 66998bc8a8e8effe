import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createHealthBody } from '../../adapters/http/routes/system.ts';
import { errorBody } from '../../adapters/http-kit/envelope.ts';
import { analyzePool } from '../../adapters/node/analyze-pool.ts';
import { healthLane } from '../../adapters/node/health-lane.ts';
import { httpDrain } from '../../adapters/node/http-drain.ts';
import { timeoutServerOptions } from '../../adapters/node/http-timeouts.ts';
import { jsonLogger } from '../../adapters/node/logger.ts';
import { readLane } from '../../adapters/node/read-lane.ts';
import type { relayConnector } from '../../adapters/relay/connector.ts';
import { tunnelConnector } from '../../adapters/relay/tunnel-connector.ts';
import { fsFileStore } from '../../adapters/store/fs-file-store.ts';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import { createNoteService } from '../../core/notes/service.ts';
import type { Logger } from '../../core/ports.ts';
import { type RunningRelay, startRelay } from '../relay/server.ts';
import { composeApp, selfOrigins } from './compose.ts';
import type { ServerConfig } from './config.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** The answer to a request that arrives while the server shuts down. */
const shuttingDown = () =>
  Response.json(errorBody('NOT_READY', 'The server is shutting down; retry in a moment.'), {
    status: 503,
    headers: { 'retry-after': '1' },
  });

/** A running note server. */
export interface RunningServer {
  url: string;
  port: number;
  logger: Logger;
  /** Resolves once the vault is indexed. */
  ready: Promise<void>;
  /**
   * Refuses new requests (direct and relayed), lets those in flight finish (at most
   * SHUTDOWN_GRACE_MS), then saves the index cache.
   */
  stop(reason?: string): Promise<void>;
  /** Requests the note read lane answered itself (adapters/node/read-lane.ts). */
  fastLaneAnswers(): number;
}

/** The Node composition root: config in, a listening server out. Throws on damaged state. */
export async function startServer(
  config: ServerConfig,
  opts: {
    logger?: Logger;
    /** False: every request takes the app (tests compare the fast lanes' answers with it). */
    fastLanes?: boolean;
  } = {},
): Promise<RunningServer> {
  const logger = opts.logger ?? jsonLogger(config.logLevel);
  const clock = { now: () => Date.now() };
  // The state store first: it creates DATA_DIR 0700, before the vault inside it is made.
  const state = fsStateStore({ dir: config.dataDir });
  const store = fsNoteStore({ dir: config.vaultDir, fsync: config.fsync });
  const pool = analyzePool({ fallback: async (texts) => texts.map((t) => analyzeNote(t)) });
  const notes = createNoteService({ store, state, clock, logger, analyze: pool.analyze });
  let relayStatus: () => unknown = () => ({ state: 'disabled' });
  const { app, auth, setupConfig, channels, plugins, feed, lane } = await composeApp({
    config,
    notes,
    fileStore: fsFileStore({ dir: config.vaultDir }),
    state,
    clock,
    logger,
    version: pkg.version,
    relayStatus: () => relayStatus(),
  });

  // While shutting down, requests that were not in flight yet are refused (503, connection closed).
  let draining = () => false;
  const health = {
    body: createHealthBody({ notes, version: pkg.version, clock }),
    logger,
    draining: () => draining(),
  };
  const reads = {
    notes,
    cache: lane.noteCache,
    authenticator: lane.authenticator,
    logger,
    corsOrigins: config.corsOrigins,
    stats: lane.frameStats,
    draining: () => draining(),
    answered: { count: 0 },
  };
  const server = serve({
    fetch: (req, env) => (draining() ? shuttingDown() : app.fetch(req, env)),
    port: config.port,
    hostname: config.host,
    serverOptions: timeoutServerOptions(config.timeouts),
    // Health and cached note reads skip the web Request/Response conversion and the app
    // (adapters/node/health-lane.ts, adapters/node/read-lane.ts).
    createServer: ((options: ServerOptions, listener: Parameters<typeof healthLane>[0]) =>
      createServer(
        options,
        opts.fastLanes === false ? listener : healthLane(readLane(listener, reads), health),
      )) as typeof createServer,
  }) as Server;
  const drain = httpDrain(server);
  draining = () => drain.draining;
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
    // One multiplexed tunnel (a relay without it is served through the long-poll protocol).
    connector = tunnelConnector({
      relayUrl: config.relayUrl ?? relay!.url,
      serverId: auth.serverId,
      identity: auth.identity,
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

  // The watcher starts once the index is ready (its first walk of the vault would compete with
  // indexing for the main thread); one reconcile after it is up closes the gap between them.
  let watching: Promise<() => Promise<void>> | undefined;
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
      watching = store.watch?.((changes) => void notes.applyExternalChanges(changes));
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
    fastLaneAnswers: () => reads.answered.count,
    stop(reason = 'stop') {
      stopping ??= (async () => {
        logger.info('shutting down', { reason });
        clearInterval(saver);
        clearInterval(reconciler);
        // Event streams and long polls end now (clients resume by id), so they do not hold the drain.
        feed.close();
        // New work stops at once on both doors (direct: 503 or refused; relay: 503 SERVER_OFFLINE,
        // the connector unregisters first); what is in flight on either finishes within the grace.
        const [closed] = await Promise.all([
          drain.close(config.shutdownGraceMs),
          connector?.stop(config.shutdownGraceMs),
        ]);
        if (closed.cut) logger.warn('connections still busy after the grace were closed', {});
        await ready.catch(() => {});
        await channels.close();
        await (await watching)?.();
        await notes.drain();
        await plugins.stop();
        await notes.saveCache();
        await pool.close();
        await relay?.stop();
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}
