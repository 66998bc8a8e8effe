import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Context } from 'hono';
import type { Redis } from 'ioredis';
import type { Logger } from '../../core/ports.ts';
import { errorBody } from '../../http-kit/envelope.ts';
import { clientAddressOf } from '../../http-kit/frame.ts';
import type { HotRoute } from '../../http-kit/hot-route.ts';
import { hotDispatcher } from '../../http-kit/node/dispatch.ts';
import { httpDrain } from '../../http-kit/node/http-drain.ts';
import { timeoutServerOptions } from '../../http-kit/node/http-timeouts.ts';
import { socketAddressOf } from '../../http-kit/node/socket-address.ts';
import { SECURE_HEADERS } from '../../http-kit/secure-headers.ts';
import { createRelay, RELAY_LOG } from '../http/app.ts';
import { aesSeal, plainSeal } from '../protocol/seal.ts';
import { memoryRelayQueue } from '../queue/memory.ts';
import type { RelayQueue } from '../queue/ports.ts';
import { redisRelayQueue } from '../queue/redis.ts';
import { createTunnelHub } from '../service/tunnel-hub.ts';
import type { RelayConfig } from './config.ts';
import { attachTunnels } from './tunnel-ws.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const SHUTTING_DOWN = errorBody('NOT_READY', 'The relay is shutting down; retry in a moment.');

/** A running relay. */
export interface RunningRelay {
  /** Where it listens, e.g. `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  /** The base clients are given (`<publicBaseUrl>/r/<serverId>`). */
  publicBaseUrl: string;
  backend: RelayQueue['backend'];
  /** Requests the hot routes answered on the Node dispatcher so far (relay/http/routes/proxy.ts `proxyHot`). */
  laneTaken(): number;
  /** RELAY_SHUTDOWN_GRACE_MS: how long `stop` lets waiting clients finish. */
  shutdownGraceMs: number;
  /** Ends long polls, lets waiting clients finish (up to the grace), closes everything it opened. */
  stop(): Promise<void>;
}

/** Config for `startRelay`: the whole configuration (its root reads it from the environment). */
export type StartRelayConfig = RelayConfig;

/** The client's address of a Hono request (http-kit/frame.ts `clientAddressOf`). */
function clientAddress(trustProxy: boolean) {
  return (c: Context): string | undefined =>
    clientAddressOf(trustProxy, c.req.header('x-forwarded-for'), () => socketAddressOf(c));
}

/**
 * The relay on node:http, also embedded in the note server: starts listening and resolves once it
 * does. With `redisUrl`, a Redis client is made and owned here (or pass a ready `redis` client,
 * which stays the caller's); without, the in-memory queue. The caller gives the whole
 * configuration and the logger (the relay reads no environment).
 */
export async function startRelay(
  cfg: StartRelayConfig,
  opts: { logger: Logger; redis?: Redis },
): Promise<RunningRelay> {
  const { logger } = opts;
  if ((cfg.redisUrl || opts.redis) && !cfg.queueKey && !cfg.plainQueue)
    throw new Error(
      'A relay on Redis needs RELAY_QUEUE_KEY (at least 32 characters, the same on every instance) so no client key is stored readable in Redis; RELAY_QUEUE_PLAIN=1 opts out.',
    );

  let redis = opts.redis ?? null;
  const ownsRedis = !redis && !!cfg.redisUrl;
  if (!redis && cfg.redisUrl) {
    // Fail fast while Redis is away (503 NOT_READY to callers) instead of queueing commands.
    // Loaded only when configured: a relay on the memory queue (the note server's embedded one
    // included) never loads Redis' client.
    const ioredis = await import('ioredis');
    // The release bundle is code-split: there a CommonJS module's dynamic import has only `default`.
    const RedisClient = ioredis.Redis ?? (ioredis.default as unknown as typeof ioredis.Redis);
    redis = new RedisClient(cfg.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis.on('error', (err: Error) => logger.debug('redis error', { error: err.message }));
    const ready = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), 5_000);
      redis?.once('ready', () => {
        clearTimeout(t);
        resolve(true);
      });
    });
    if (!ready) logger.warn('redis not reachable yet; the relay answers 503 until it is', {});
  }
  const queue = redis
    ? redisRelayQueue({ client: redis, prefix: cfg.redisPrefix, logger })
    : memoryRelayQueue();
  if (!redis) logger.warn('relay queue in memory: single instance only; set REDIS_URL to run several', {});
  else if (!cfg.queueKey)
    logger.warn('RELAY_QUEUE_PLAIN=1: payloads in Redis are not sealed (client keys readable in Redis)', {});

  const closing = new AbortController();
  // The app is made once the port is known: the public base defaults to the listening address.
  let relay: ReturnType<typeof createRelay> | null = null;
  const hot: HotRoute[] = [];
  const answered = { count: 0 };
  let draining = () => false;
  const server = serve({
    fetch: (req, env) =>
      relay && !draining() ? relay.app.fetch(req, env) : Response.json(SHUTTING_DOWN, { status: 503 }),
    port: cfg.port,
    hostname: cfg.host,
    // Slow clients (slowloris) are cut off; long polls are unaffected (their request is complete).
    serverOptions: timeoutServerOptions(cfg.timeouts),
    // The hot routes (GET/HEAD through a tunnel held here) skip the web Request/Response
    // conversion: one dispatcher, the frame's rules applied once (http-kit/node/dispatch.ts).
    createServer: ((options: ServerOptions, listener: (req: IncomingMessage, res: ServerResponse) => void) =>
      createServer(
        options,
        cfg.hotRoutes === false
          ? listener
          : hotDispatcher(listener, {
              routes: hot,
              logger,
              where: 'relay',
              base: () => SECURE_HEADERS,
              log: RELAY_LOG,
              trustProxy: cfg.trustProxy,
              draining: () => draining(),
              answered,
            }),
      )) as typeof createServer,
  }) as Server;
  const drain = httpDrain(server);
  draining = () => drain.draining;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    await queue.close();
    if (ownsRedis) redis?.disconnect();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const shownHost = cfg.host === '0.0.0.0' || cfg.host === '::' ? '127.0.0.1' : cfg.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  const publicBaseUrl = (cfg.publicBaseUrl ?? url).replace(/\/+$/, '');
  const seal = cfg.queueKey ? aesSeal(cfg.queueKey) : plainSeal;
  const hub = createTunnelHub({ queue, seal, limits: cfg.limits, logger, publicBaseUrl });
  const tunnels = attachTunnels(
    server,
    hub,
    () => drain.draining,
    (req) =>
      clientAddressOf(
        cfg.trustProxy,
        req.headers['x-forwarded-for'] as string | undefined,
        () => req.socket.remoteAddress,
      ),
  );
  relay = createRelay({
    tunnels: hub,
    queue,
    publicBaseUrl,
    logger,
    version: pkg.version,
    limits: cfg.limits,
    clientAddress: clientAddress(cfg.trustProxy),
    closing: closing.signal,
    seal,
    hotRoutes: cfg.hotRoutes,
  });
  hot.push(...relay.hot);
  logger.info('relay listening', { url, publicBaseUrl, queue: queue.backend, version: pkg.version });

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    publicBaseUrl,
    backend: queue.backend,
    laneTaken: () => answered.count,
    shutdownGraceMs: cfg.shutdownGraceMs,
    stop() {
      stopping ??= (async () => {
        closing.abort();
        // Tunnels close at once: their servers reconnect (to another instance behind a balancer).
        tunnels.close();
        // New requests (pulls included) get 503 and their connection closed; waiting clients finish.
        await drain.close(cfg.shutdownGraceMs);
        await queue.close();
        if (ownsRedis && redis) await redis.quit().catch(() => redis?.disconnect());
        logger.info('relay stopped', {});
      })();
      return stopping;
    },
  };
}
