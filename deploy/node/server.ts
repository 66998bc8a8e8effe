import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverHotBase } from '../../adapters/http/frame.ts';
import { hotRoutesOf } from '../../adapters/http/hot.ts';
import { CHANGE_FEED_PATH } from '../../adapters/http/routes/events.ts';
import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { analyzePool } from '../../adapters/node/analyze-pool.ts';
import { stdoutLines } from '../../adapters/node/stdout.ts';
import { analyzeNote } from '../../core/notes/markdown/analyzer.ts';
import type { Logger } from '../../core/ports.ts';
import { errorBody } from '../../http-kit/envelope.ts';
import { hotDispatcher } from '../../http-kit/node/dispatch.ts';
import { httpDrain } from '../../http-kit/node/http-drain.ts';
import { timeoutServerOptions } from '../../http-kit/node/http-timeouts.ts';
import type { Env, ServerConfig } from '../shared/config/index.ts';
import { composeFsServer } from '../shared/fs-server.ts';
import type { StopStep } from '../shared/lifecycle.ts';
import { liveDoorOn, nodeParts } from '../shared/node-parts.ts';
import { readConfig } from '../shared/quire.ts';
import { linkRelay } from '../shared/relay-link.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** A request of the change feed (its stream or its long poll). */
const CHANGE_FEED = new RegExp(`^${CHANGE_FEED_PATH}(?:[/?]|$)`);

/** The answer to a request that arrives while the server shuts down. */
const shuttingDown = () =>
  Response.json(errorBody('NOT_READY', 'The server is shutting down; retry in a moment.'), {
    status: 503,
    headers: { 'retry-after': '1' },
  });

/** A running note server (`stop`: refuse new requests, let those in flight finish, the ordered stop). */
export type RunningServer = Awaited<ReturnType<typeof startServer>>;

/** The Node server from an environment: what `npm start` and `quire serve` run. */
export const startServerFromEnv = (env: Env) =>
  startServer(readConfig(env, { name: 'node', relayConnector: true }));

/** The Node server: fs stores, analyzer threads, node:http with the hot-route dispatcher and a graceful drain, relay pairing. */
export async function startServer(
  config: ServerConfig,
  opts: {
    logger?: Logger;
    onStopStep?: (step: StopStep) => void;
  } = {},
) {
  const logger = opts.logger ?? jsonLogger(config.logLevel, stdoutLines().write);
  if (config.startNotice) logger.info(config.startNotice, {});
  const pool = analyzePool({ fallback: async (texts) => texts.map((t) => analyzeNote(t)) });
  let relayStatus: () => unknown = () => ({ state: 'disabled' });
  // Requests in flight on the socket (set once it listens): background work after a start waits.
  let busy = () => false;
  const fs = await composeFsServer(config, {
    ...nodeParts(config),
    logger,
    analyze: pool.analyze,
    busy: () => busy(),
    relayStatus: () => relayStatus(),
  });
  const { quire } = fs;
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
  // The hot routes and the frame's rules, for the socket (the dispatcher) and the relay tunnel alike.
  // HOT_ROUTES=0: no dispatcher and no tunnel frame; every request takes the app (the plain path).
  const hotOn = config.hotRoutes;
  const frame = {
    routes: hotRoutesOf(app),
    logger,
    where: 'server',
    base: serverHotBase(config.corsOrigins),
    trustProxy: config.trustProxy,
    stats: quire.lane.frameStats,
    answered,
  };
  const server = createServer(
    timeoutServerOptions(config.timeouts),
    hotOn ? hotDispatcher(toApp, { ...frame, draining: () => draining() }) : toApp,
  );
  // The change feed's requests wait for news (a workspace holds one open all the time): they do
  // not keep background work waiting for a quiet spell.
  const drain = httpDrain(server, { waits: (req) => CHANGE_FEED.test(req.url ?? '') });
  draining = () => drain.draining;
  liveDoorOn(server, quire.live, logger, () => draining());
  busy = () => drain.working > 0;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.port, config.host);
  });
  void loadApp().catch(() => {});
  const port = (server.address() as AddressInfo).port;
  const url = quire.listening(port);
  // Out now, not with the next batch of log lines: supervisors and scripts wait on this line.
  stdoutLines().flushSync();

  const link = await linkRelay({ ...quire, config, logger, hot: hotOn ? frame : undefined });
  if (link) relayStatus = link.status;
  const lifecycle = fs.lifecycle({ afterIndex: () => pool.close(), onStopStep: opts.onStopStep });
  lifecycle.addDoor(async (graceMs) => {
    if ((await drain.close(graceMs)).cut)
      logger.warn('connections still busy after the grace were closed', {});
  });
  link?.closeWith(lifecycle);
  lifecycle.addFinal(() => pool.close());
  const { ready, stop, shutdownGraceMs } = lifecycle;
  // app: the HTTP-answer contract suite asks it directly; fastLaneAnswers: the hot routes' count.
  // hotFrame: what the socket and the relay tunnel answer hot requests with (the contract suite).
  const fastLaneAnswers = () => answered.count;
  return { url, port, logger, ready, stop, shutdownGraceMs, app, hotFrame: frame, fastLaneAnswers };
}
