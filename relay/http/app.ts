import { setMaxListeners } from 'node:events';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { errorBody, errorHandler, ok } from '../../http-kit/envelope.ts';
import type { LogRule } from '../../http-kit/frame.ts';
import { type HotRoute, mountHot } from '../../http-kit/hot-route.ts';
import {
  accessLog,
  bodyLimitEnvelope,
  methodNotAllowedEnvelope,
  secureHeaders,
} from '../../http-kit/middleware.ts';
import { requestIdMiddleware } from '../../http-kit/request-id.ts';
import { plainSeal } from '../protocol/seal.ts';
import {
  type RelayContext,
  type RelayDeps,
  type RelayEnv,
  type RelayLimits,
  relayLimits,
} from '../service/types.ts';
import { pairRoutes } from './routes/pair.ts';
import { proxyDoor, proxyHot, proxyRoutes } from './routes/proxy.ts';
import { serverRoutes } from './routes/server.ts';

const QUIET = new Set(['/api/v1/relay/pull', '/api/v1/relay/respond', '/api/v1/health']);

/** The relay's access-log rule: only the route shape of a proxied path (it may name a user's notes). */
export const RELAY_LOG: LogRule = {
  path: (p) => (p.startsWith('/r/') ? '/r/:serverId/*' : p),
  quiet: (p, status) => QUIET.has(p) && status < 400,
};

/** `/.well-known/<OAuth metadata document>/r/<serverId>[/mcp]`. */
const WELL_KNOWN_OAUTH =
  /^\/\.well-known\/(oauth-authorization-server|oauth-protected-resource)\/r\/([A-Za-z0-9_-]{3,128})(\/mcp)?$/;

/** Largest respond body for `maxBodyBytes`: one answer at its base64 size plus 1 MiB of room. */
export function maxRespondBytes(maxBodyBytes: number): number {
  return Math.ceil(maxBodyBytes / 3) * 4 + 1024 * 1024;
}

/**
 * The relay service as a Hono app (a fetch function): health, the server-facing
 * register/unregister/pull/respond, pairing exchange, and `ALL /r/:serverId/*`.
 * Pass `closing` to end long polls at once when the process shuts down.
 */
export function createRelayApp(deps: RelayDeps & { closing?: AbortSignal }) {
  return createRelay(deps).app;
}

/**
 * The relay app and its hot routes (GET/HEAD through a tunnel held here, `proxyHot`), which it
 * mounts itself and a runtime's dispatcher asks first (relay/node/server.ts): the same door and
 * counters on both paths.
 */
export function createRelay(deps: RelayDeps & { closing?: AbortSignal }): {
  app: Hono<RelayEnv>;
  hot: HotRoute[];
  /** The limits in force (the given ones over the defaults, relayLimits). */
  limits: RelayLimits;
} {
  const limits = relayLimits(deps.limits);
  const ctx: RelayContext = {
    queue: deps.queue,
    publicBaseUrl: deps.publicBaseUrl.replace(/\/+$/, ''),
    logger: deps.logger,
    clock: deps.clock ?? { now: () => Date.now() },
    limits,
    clientAddress: deps.clientAddress ?? (() => undefined),
    newId: deps.newId ?? (() => crypto.randomUUID()),
    closing: deps.closing ?? new AbortController().signal,
    maxRespondBytes: maxRespondBytes(limits.maxBodyBytes),
    seal: deps.seal ?? plainSeal,
    tunnels: deps.tunnels,
  };
  // Every waiting pull listens to it: no "possible leak" warning past ten.
  setMaxListeners(0, ctx.closing);
  const startedAt = ctx.clock.now();
  const app = new Hono<RelayEnv>();
  const tooLarge = bodyLimitEnvelope;

  app.use(requestIdMiddleware());
  app.use(secureHeaders());
  // Browser clients call these directly (pairing from the /link page). No credentials are
  // involved (the code is in the body), so any origin may; proxied routes get the server's CORS.
  const openCors = cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['content-type'],
    maxAge: 600,
  });
  app.use('/api/v1/pair/*', openCors);
  app.use('/api/v1/health', openCors);
  app.use(accessLog(ctx.logger, RELAY_LOG));
  app.use(methodNotAllowedEnvelope(app));
  const respondLimit = tooLarge(ctx.maxRespondBytes);
  const smallLimit = tooLarge(64 * 1024);
  app.use('/api/*', (c, next) =>
    (c.req.path === '/api/v1/relay/respond' ? respondLimit : smallLimit)(c, next),
  );
  // `/r/*` bodies are limited by the proxy route itself, as they stream (never buffered here).
  // Every other path is small too (404s included: nothing is read beyond the limit).
  app.use((c, next) => (/^\/(api|r)\//.test(c.req.path) ? next() : smallLimit(c, next)));

  app.get('/api/v1/health', async (c) => {
    const reachable = await ctx.queue.ping();
    return ok(c, {
      status: reachable ? 'ok' : 'degraded',
      service: 'quire-relay',
      version: deps.version ?? '0.0.0',
      uptimeSeconds: Math.round((ctx.clock.now() - startedAt) / 1000),
      queue: { backend: ctx.queue.backend, reachable },
    });
  });
  app.route('/api/v1/relay', serverRoutes(ctx));
  app.route('/api/v1/pair', pairRoutes(ctx));
  const door = proxyDoor(ctx);
  const hot = deps.hotRoutes === false ? [] : [proxyHot(ctx, door)];
  if (hot.length) app.use('/r/*', mountHot(hot, { address: (c) => ctx.clientAddress(c) }));
  app.route('/r', proxyRoutes(ctx, door));

  // RFC 8414 and RFC 9728 place the OAuth metadata of an issuer or resource with a path at
  // `/.well-known/<document>/<path>`, on the relay's root: MCP clients look there for a server's.
  // Answered by that server, as `/r/<serverId>/.well-known/<document>`.
  app.get('/.well-known/*', (c) => {
    const m = WELL_KNOWN_OAUTH.exec(c.req.path);
    if (!m) return c.json(errorBody('NOT_FOUND', `No route for GET ${c.req.path}.`), 404);
    const target = new URL(`/r/${m[2]}/.well-known/${m[1]}${m[3] ?? ''}`, c.req.url);
    return app.fetch(new Request(target, { headers: c.req.raw.headers, signal: c.req.raw.signal }), c.env);
  });

  app.notFound((c) => c.json(errorBody('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}.`), 404));
  app.onError(errorHandler(ctx.logger, 'relay'));
  return { app, hot, limits };
}

/** The relay app's type. */
export type RelayApp = ReturnType<typeof createRelayApp>;
/** The relay app with its hot routes. */
export type Relay = ReturnType<typeof createRelay>;
