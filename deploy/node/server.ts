import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverHotBase } from '../../adapters/http/frame.ts';
import { hotRoutesOf } from '../../adapters/http/hot.ts';
import { analyzePool } from '../../adapters/node/analyze-pool.ts';
import { httpDrain } from '../../adapters/node/http-drain.ts';
import { timeoutServerOptions } from '../../adapters/node/http-timeouts.ts';
import { flushLogsSync, jsonLogger } from '../../adapters/node/logger.ts';
import { fsFileStore } from '../../adapters/store/fs-file-store.ts';
import { fsHistoryStore } from '../../adapters/store/fs-history-store.ts';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import type { Logger } from '../../core/ports.ts';
import { errorBody } from '../../http-kit/envelope.ts';
import { hotDispatcher } from '../../http-kit/node/dispatch.ts';
import type { ServerConfig } from '../shared/config/index.ts';
import { type StopStep, startLifecycle } from '../shared/lifecycle.ts';
import { composeQuire } from '../shared/quire.ts';
import { nodeParts } from './compose.ts';
import { linkRelay } from './relay-link.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

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
   * SHUTDOWN_GRACE_MS), then saves the index cache (the shared lifecycle's ordered stop).
   */
  stop(reason?: string): Promise<void>;
  /** The HTTP app behind the dispatcher (the HTTP-answer contract suite asks it directly). */
  app: {
    request: (input: string, init?: RequestInit) => Response | Promise<Response>;
    fetch: (req: Request, env?: unknown) => Response | Promise<Response>;
  };
  /** Requests the hot routes answered on the Node dispatcher (adapters/http/hot.ts). */
  fastLaneAnswers(): number;
}

/**
 * The Node server: fs stores, analyzer threads, node:http with the hot-route dispatcher and a graceful
 * drain, relay pairing, and the shared lifecycle. Config in, a listening server out.
 */
export async function startServer(
  config: ServerConfig,
  opts: {
    logger?: Logger;
    onStopStep?: (step: StopStep) => void;
    /** False: every request takes the app (the HTTP-answer contract suite compares both). */
    fastLanes?: boolean;
  } = {},
): Promise<RunningServer> {
  const logger = opts.logger ?? jsonLogger(config.logLevel);
  if (config.startNotice) logger.info(config.startNotice, {});
  // The state store first: it creates DATA_DIR 0700, before the vault inside it is made.
  const state = fsStateStore({ dir: config.dataDir });
  const notes = fsNoteStore({ dir: config.vaultDir, fsync: config.fsync });
  const pool = analyzePool({ fallback: async (texts) => texts.map((t) => analyzeNote(t)) });
  let relayStatus: () => unknown = () => ({ state: 'disabled' });
  const quire = await composeQuire(config, {
    ...nodeParts(config),
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
    analyze: pool.analyze,
    relayStatus: () => relayStatus(),
  });
  const { app } = quire;

  // While shutting down, requests that were not in flight yet are refused (503, connection closed).
  let draining = () => false;
  const answered = { count: 0 };
  // The app's listener (@hono/node-server: web Request/Response over node:http) is loaded once the
  // server listens, not before: it extends the Request/Response globals, and touching them loads
  // Node's fetch implementation (undici), about a tenth of the start's CPU. Health and cached note
  // reads never need it (the hot routes, adapters/http/hot.ts); a request for
  // the app that comes in before it is loaded waits for it.
  let appListener: Listener | undefined;
  let loadingApp: Promise<Listener> | undefined;
  const loadApp = () =>
    (loadingApp ??= import('@hono/node-server').then(({ getRequestListener }) => {
      appListener = getRequestListener((req, env) => (draining() ? shuttingDown() : app.fetch(req, env)), {
        hostname: config.host,
      });
      return appListener;
    }));
  const toApp: Listener = (req, res) => {
    if (appListener) appListener(req, res);
    else
      loadApp().then(
        (l) => l(req, res),
        (err: unknown) => {
          logger.error('the HTTP app did not load', { error: String(err) });
          const body = JSON.stringify(errorBody('NOT_READY', 'The server could not load its HTTP app.'));
          res.writeHead(503, { 'content-type': 'application/json; charset=UTF-8' }).end(body);
        },
      );
  };
  const server = createServer(
    timeoutServerOptions(config.timeouts),
    opts.fastLanes === false
      ? toApp
      : hotDispatcher(toApp, {
          routes: hotRoutesOf(app),
          logger,
          where: 'server',
          base: serverHotBase(config.corsOrigins),
          trustProxy: config.trustProxy,
          draining: () => draining(),
          stats: quire.lane.frameStats,
          answered,
        }),
  );
  const drain = httpDrain(server);
  draining = () => drain.draining;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.port, config.host);
  });
  void loadApp().catch(() => {});
  const port = (server.address() as AddressInfo).port;
  const url = quire.listening(port);
  // Out now, not with the next batch of log lines: supervisors and scripts wait on this line.
  flushLogsSync();

  const link = await linkRelay({ config, app, auth: quire.auth, setupConfig: quire.setupConfig, logger });
  if (link) relayStatus = () => link.connector.status();

  const lifecycle = startLifecycle({
    notes: quire.core.notes,
    store: notes,
    logger,
    reconcileSeconds: config.reconcileSeconds,
    shutdownGraceMs: config.shutdownGraceMs,
    app: quire,
    afterIndex: () => pool.close(),
    onStopStep: opts.onStopStep,
  });
  lifecycle.addDoor(async (graceMs) => {
    const closed = await drain.close(graceMs);
    if (closed.cut) logger.warn('connections still busy after the grace were closed', {});
  });
  if (link) lifecycle.addDoor((graceMs) => link.connector.stop(graceMs));
  lifecycle.addFinal(() => pool.close());
  if (link?.relay) lifecycle.addFinal(() => link.relay!.stop());
  return {
    url,
    port,
    logger,
    ready: lifecycle.ready,
    stop: lifecycle.stop,
    app,
    fastLaneAnswers: () => answered.count,
  };
}
