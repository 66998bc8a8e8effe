import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { clientAddress } from './client.ts';
import { clientRoutes } from './client-ui.ts';
import { corsMiddleware } from './cors.ts';
import { errorBody, errorHandler } from './envelope.ts';
import { accessLog, bodyLimitEnvelope, methodNotAllowedEnvelope } from './middleware.ts';
import { createRateLimiter } from './rate-limit.ts';
import { agentRoutes } from './routes/agent.ts';
import { authRoutes } from './routes/auth.ts';
import { channelsRoutes } from './routes/channels.ts';
import { docsRoutes } from './routes/docs.ts';
import { foldersRoutes } from './routes/folders.ts';
import { notesRoutes } from './routes/notes.ts';
import { pluginsRoutes } from './routes/plugins.ts';
import { searchRoutes } from './routes/search.ts';
import { securityRoutes } from './routes/security.ts';
import { systemRoutes } from './routes/system.ts';
import { secureHeaders } from './secure-headers.ts';
import type { AppDeps, AppEnv } from './types.ts';

/** Routes that check the key themselves (rate limited, and usable in every auth mode). */
const SELF_AUTH_ROUTES = /^\/api\/v1\/auth\/(verify|link|token)$/;

const PUBLIC_ROUTES: [string, RegExp][] = [
  ['GET', /^\/api\/v1\/health$/],
  ['HEAD', /^\/api\/v1\/health$/],
  ['GET', /^\/api\/v1\/system\/setup$/],
  ['POST', /^\/api\/v1\/auth\/verify$/],
  ['POST', /^\/api\/v1\/channels\/webhook\/[^/]+$/],
  ['GET', /^\/api\/v1\/channels\/webhook\/[^/]+$/],
  ['GET', /^\/api\/v1\/(openapi\.json|docs|docs\/api-reference\.js)$/],
];

/** True for the routes that answer without credentials. */
export function isPublicRoute(method: string, path: string): boolean {
  return PUBLIC_ROUTES.some(([m, re]) => m === method && re.test(path));
}

/** The note server's HTTP surface as a Hono app (a fetch function). */
export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const instance = deps.instanceId ?? crypto.randomUUID().slice(0, 8);
  const maxBody = deps.maxBodyBytes ?? 10 * 1024 * 1024;

  app.use(requestId({ limitLength: 64 }));
  app.use(secureHeaders());
  if (deps.corsOrigins?.length) {
    const withCors = corsMiddleware(deps.corsOrigins);
    // Only browsers send Origin; everyone else skips the CORS work (it halves throughput).
    app.use('/api/*', (c, next) => (c.req.header('origin') ? withCors(c, next) : next()));
  }
  app.use(accessLog(deps.logger));
  app.use(methodNotAllowedEnvelope(app));
  app.use(bodyLimitEnvelope(maxBody));
  const limiter = createRateLimiter(deps.rateLimits);
  app.use('/api/*', async (c, next) => {
    const authn = deps.authenticator;
    if (!authn || c.req.method === 'OPTIONS' || isPublicRoute(c.req.method, c.req.path)) return next();
    if (c.req.method === 'POST' && SELF_AUTH_ROUTES.test(c.req.path)) return next();
    const client = clientAddress(c, deps);
    await limiter.beforeAuth(client);
    const bearer = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
    try {
      c.set('principal', await authn.authenticate({ apiKey: c.req.header('x-service-key'), bearer }));
    } catch (err) {
      await limiter.failed(client);
      throw err;
    }
    return next();
  });

  app.route('/api/v1', systemRoutes(deps));
  app.route('/api/v1', docsRoutes(deps, deps.client?.assets));
  if (deps.setup) app.route('/api/v1/auth', authRoutes(deps, deps.setup, limiter));
  app.route('/api/v1/notes', notesRoutes(deps.notes, instance));
  app.route('/api/v1/folders', foldersRoutes(deps.notes));
  app.route('/api/v1/search', searchRoutes(deps.notes));
  if (deps.agent) app.route('/api/v1/agent', agentRoutes(deps.agent));
  if (deps.channels) app.route('/api/v1/channels', channelsRoutes(deps, deps.channels, limiter));
  if (deps.plugins) app.route('/api/v1/plugins', pluginsRoutes(deps.plugins));
  if (deps.security) app.route('/api/v1/security', securityRoutes(deps.security));
  if (deps.client) app.route('/', clientRoutes(deps.client));

  app.notFound((c) => c.json(errorBody('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}.`), 404));
  app.onError(errorHandler(deps.logger, 'server'));
  return app;
}
