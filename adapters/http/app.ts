import { Hono } from 'hono';
import { createRetrieval } from '../../core/search/retrieval.ts';
import { errorBody, errorHandler } from '../../http-kit/envelope.ts';
import { mountHot } from '../../http-kit/hot-route.ts';
import { bodyLimitEnvelope, methodNotAllowedEnvelope } from '../../http-kit/middleware.ts';
import { authMiddleware } from './authenticate.ts';
import { clientAddress } from './client.ts';
import { clientRoutes } from './client-ui.ts';
import { requestFrame, sealedResponse } from './frame.ts';
import { declareHot, serverHotRoutes } from './hot.ts';
import { chunkedFullList, type FullList, plainFullList } from './list/full-list.ts';
import { createNoteCache } from './note-cache.ts';
import { createRateLimiter } from './rate-limit.ts';
import { agentRoutes } from './routes/agent.ts';
import { authRoutes } from './routes/auth.ts';
import { channelsRoutes } from './routes/channels.ts';
import { docsRoutes } from './routes/docs.ts';
import { CHANGE_FEED_PATH, eventsRoutes } from './routes/events.ts';
import { filesRoutes, foldersWithFilesRoutes } from './routes/files.ts';
import { foldersRoutes } from './routes/folders.ts';
import { activityRoutes, trashRoutes, versionsRoutes } from './routes/history.ts';
import { LIVE_PATH, liveRoutes } from './routes/live.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { notePatchRoutes } from './routes/note-patch.ts';
import { notesRoutes } from './routes/notes.ts';
import { mcpChallenge, oauthGrantRoutes, oauthRoutes, publicBase } from './routes/oauth.ts';
import { peopleRoutes } from './routes/people.ts';
import { pluginsRoutes } from './routes/plugins.ts';
import { publicationsRoutes } from './routes/publications.ts';
import { publishedRoutes } from './routes/published.ts';
import { relatedHandler, searchRoutes } from './routes/search.ts';
import { securityRoutes } from './routes/security.ts';
import { sessionRoutes } from './routes/session.ts';
import { ssoRoutes } from './routes/sso.ts';
import { createHealthBody, systemRoutes } from './routes/system.ts';
import { tagsRoutes } from './routes/tags.ts';
import { scopedView } from './scoped.ts';
import type { AppDeps, AppEnv } from './types.ts';
import { wellEncodedPath } from './url-decode.ts';

const PUBLIC_ROUTES: [string, RegExp][] = [
  ['GET', /^\/api\/v1\/health$/],
  ['HEAD', /^\/api\/v1\/health$/],
  ['GET', /^\/api\/v1\/system\/setup$/],
  ['POST', /^\/api\/v1\/auth\/verify$/],
  ['POST', /^\/api\/v1\/channels\/webhook\/[^/]+$/],
  ['GET', /^\/api\/v1\/channels\/webhook\/[^/]+$/],
  ['GET', /^\/api\/v1\/(openapi\.json|docs|docs\/api-reference\.js)$/],
  // A person's sign-in and enrolment (routes/session.ts): rate limited there.
  ['POST', /^\/api\/v1\/session(\/passkey(\/options)?|\/sso)?$/],
  ['POST', /^\/api\/v1\/invites\/(lookup|password|passkey|passkey\/options|sso)$/],
  // Where the single sign-on provider sends the browser back (routes/sso.ts).
  ['GET', /^\/api\/v1\/session\/sso(\/callback)?$/],
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
  const retrieval = deps.retrieval ?? createRetrieval({ notes: deps.notes, logger: deps.logger });

  // Request id, security and CORS headers, access log: one middleware (adapters/http/frame.ts).
  app.use(requestFrame({ logger: deps.logger, corsOrigins: deps.corsOrigins, stats: deps.frameStats }));
  if (deps.compress === false) {
    app.use((c, next) => {
      c.set('compress', false);
      return next();
    });
  }
  app.use(methodNotAllowedEnvelope(app));
  // A malformed escape in the path (`%ff`, `%`) is a 400 for every route, not each route's problem.
  app.use(wellEncodedPath);
  const bodyLimit = bodyLimitEnvelope(maxBody);
  // Attachment uploads stream to disk under their own limit (MAX_FILE_BYTES), checked by the files route.
  app.use((c, next) =>
    deps.files && c.req.method === 'PUT' && c.req.path.startsWith('/api/v1/files/')
      ? next()
      : bodyLimit(c, next),
  );
  const limiter = createRateLimiter(deps.rateLimits);
  const authenticate = authMiddleware(deps, limiter, isPublicRoute);
  app.use('/api/*', authenticate);
  if (deps.oauth) {
    // A 401 from /mcp points MCP clients at the OAuth metadata (MCP authorization; RFC 9728 5.1).
    app.use('/mcp', async (c, next) => {
      await next();
      if (c.res.status !== 401) return;
      const sent = Boolean(c.req.header('authorization') ?? c.req.header('x-service-key'));
      const res = new Response(c.res.body, c.res);
      res.headers.set('WWW-Authenticate', mcpChallenge(publicBase(c, deps), sent));
      c.res = res;
    });
  }
  app.use('/mcp', authenticate);
  // What the key may see and do, set once for every route (REST and MCP) after the key check.
  app.use(scopedView({ notes: deps.notes, files: deps.files, retrieval }));

  // The hot routes (adapters/http/hot.ts), after the frame and the key check: the same functions
  // the Node dispatcher asks first (deploy/node/server.ts), so `app.request` gives their answer.
  const noteCache = deps.noteCache ?? createNoteCache(deps.noteCacheBytes);
  const healthBody = createHealthBody(deps);
  if (deps.hotRoutes !== false) {
    const hot = serverHotRoutes({
      notes: deps.notes,
      cache: noteCache,
      authenticator: deps.authenticator,
      health: healthBody,
    });
    app.use(
      mountHot(hot, {
        address: (c) => clientAddress(c, deps),
        respond: (c, status, headers, body) =>
          sealedResponse(c, status, body as Uint8Array<ArrayBuffer> | null, Object.fromEntries(headers)),
      }),
    );
    declareHot(app, hot);
  }

  app.route('/api/v1', systemRoutes(deps, healthBody));
  app.route('/api/v1', docsRoutes(deps, deps.client?.assets));
  if (deps.setup) app.route('/api/v1/auth', authRoutes(deps, deps.setup, limiter));
  if (deps.oauth) app.route('/api/v1/auth/oauth/grants', oauthGrantRoutes(deps.oauth));
  if (deps.people) {
    app.route('/api/v1', sessionRoutes(deps, deps.people, limiter));
    if (deps.sso) app.route('/api/v1', ssoRoutes(deps, deps.people, deps.sso, limiter));
    app.route('/api/v1/people', peopleRoutes(deps, deps.people));
  }
  if (deps.publications) {
    app.route('/api/v1/publications', publicationsRoutes(deps, deps.publications, deps.people));
    // Anonymous read-only pages: outside `/api/*`, so the key check never runs there.
    app.route('/p', publishedRoutes(deps, deps.publications, limiter));
  }
  // Before the notes routes: `GET /notes/:path{.+}` would take `.../versions` otherwise.
  const keyName = (id: string) =>
    deps.people?.nameOf(id) ?? deps.setup?.service.listKeys().find((k) => k.id === id)?.name;
  const versions = versionsRoutes(keyName);
  app.use(versions.first);
  app.route('/api/v1/notes', versions.app);
  app.route('/api/v1/trash', trashRoutes(keyName));
  app.route('/api/v1/activity', activityRoutes(keyName));
  app.route(
    '/api/v1/notes',
    notesRoutes(deps.notes, instance, deps.noteCacheBytes, noteCache, relatedHandler(), fullListOf(deps)),
  );
  app.route('/api/v1/notes', notePatchRoutes());
  if (deps.files) app.route('/api/v1/files', filesRoutes(deps.notes));
  if (deps.files) app.route('/api/v1/folders', foldersWithFilesRoutes());
  app.route('/api/v1/tags', tagsRoutes());
  if (deps.feed)
    app.route(
      CHANGE_FEED_PATH,
      eventsRoutes(deps.feed, {
        heartbeatMs: deps.heartbeatMs,
        ...(deps.eventsStreamsPerKey ? { maxStreamsPerKey: deps.eventsStreamsPerKey } : {}),
      }),
    );
  if (deps.live) app.route(LIVE_PATH, liveRoutes(deps.live));
  app.route(
    '/mcp',
    mcpRoutes({
      notes: deps.notes,
      retrieval,
      version: deps.version,
      write: deps.mcpWrite ?? true,
      keyNames: keyName,
      ...(deps.mcpMaxAnswerBytes ? { maxAnswerBytes: deps.mcpMaxAnswerBytes } : {}),
    }),
  );
  app.route('/api/v1/folders', foldersRoutes(deps.notes));
  app.route('/api/v1/search', searchRoutes());
  if (deps.agent) app.route('/api/v1/agent', agentRoutes(deps.agent));
  if (deps.channels) app.route('/api/v1/channels', channelsRoutes(deps, deps.channels, limiter));
  if (deps.plugins) app.route('/api/v1/plugins', pluginsRoutes(deps.plugins));
  if (deps.security) app.route('/api/v1/security', securityRoutes(deps.security));
  if (deps.oauth && deps.authenticator)
    app.route('/', oauthRoutes(deps, deps.oauth, deps.authenticator, limiter));
  if (deps.client) app.route('/', clientRoutes(deps.client));

  app.notFound((c) => c.json(errorBody('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}.`), 404));
  app.onError(errorHandler(deps.logger, 'server'));
  return app;
}

/** The whole list's answer: in chunks kept across restarts, or plain (LIST_CHUNKS=0). */
function fullListOf(deps: AppDeps): FullList {
  if (deps.listChunks === false) return plainFullList();
  return chunkedFullList({
    store: deps.listStore,
    onError: (err) => deps.logger.warn('list not kept', { error: String(err) }),
    key: (generation) => deps.notes.listKey(generation),
    prepare: (generation) => deps.notes.prepareList(generation),
  });
}
