import type { NoteService } from '../../core/notes/service.ts';
import type { Authenticator } from '../../core/ports.ts';
import type { HotRoute, PlainAnswer } from '../../http-kit/hot-route.ts';
import { JSON_TYPE } from './json-answer.ts';
import type { NoteCache } from './note-cache.ts';
import { indexedNoteAnswer } from './routes/notes.ts';

/**
 * The note server's hot routes, declared as data (http-kit/hot-route.ts): mounted in the app
 * (adapters/http/app.ts) and in the Node dispatcher (deploy/node/server.ts), the same functions
 * on the same deps, so both give the same answer (tests/http/answer-contract.test.ts).
 */
export interface ServerHotDeps {
  notes: NoteService;
  cache: NoteCache;
  authenticator?: Authenticator;
  /** The encoded body of `GET /api/v1/health` (routes/system.ts `createHealthBody`). */
  health: () => Uint8Array;
}

const HEALTH_HEADERS: [string, string][] = [['Content-Type', JSON_TYPE]];

/** `GET /api/v1/health`: the probe load balancers and monitors call most. */
export function healthHot(body: () => Uint8Array): HotRoute {
  return (req) =>
    req.method === 'GET' && req.path === '/api/v1/health' && req.search === ''
      ? { status: 200, headers: HEALTH_HEADERS, body: body() }
      : null;
}

const PREFIX = '/api/v1/notes/';
/** No empty segment and no trailing slash (the route's `:path{.+}` would take them; the full path does). */
const PLAIN_NOTE = /^[^/]+(?:\/[^/]+)*$/;

/**
 * `GET /api/v1/notes/:path` when the answer needs neither the disk nor a key check: the key was
 * verified moments ago (the authenticator's short cache, `known`, so a revoke is still felt at
 * once) and the answer is an encoded note still valid for the index, or a 304
 * (routes/notes.ts `indexedNoteAnswer`, the same function the route uses). Anything else is not
 * its own: a key not seen yet, a scoped key (its folders and capabilities are the route's to
 * apply), a query, a `%` left after decoding, a note not cached.
 */
export function noteReadHot(deps: Pick<ServerHotDeps, 'notes' | 'cache' | 'authenticator'>): HotRoute {
  const known = deps.authenticator?.known?.bind(deps.authenticator);
  if (!known) return () => null;
  const { notes, cache } = deps;
  return (req): PlainAnswer | null => {
    if (req.method !== 'GET' || !req.path.startsWith(PREFIX) || req.search !== '') return null;
    let path = req.path.slice(PREFIX.length);
    if (!PLAIN_NOTE.test(path)) return null;
    const who = known({ apiKey: req.header('x-service-key') });
    if (who === null || who.scope !== undefined) return null;
    if (path.includes('%')) {
      // As Hono decodes a route parameter; a `%` left after decoding (from `%25`) takes the route.
      try {
        path = decodeURIComponent(path);
      } catch {
        return null;
      }
      if (path.includes('%')) return null;
    }
    const a = indexedNoteAnswer(notes, cache, path, req.header('if-none-match'));
    if (a === null) return null;
    return { status: a.status, headers: Object.entries(a.headers), body: a.body };
  };
}

/** The server's hot routes, in the order they are asked. */
export function serverHotRoutes(deps: ServerHotDeps): HotRoute[] {
  return [healthHot(deps.health), noteReadHot(deps)];
}

const HOT = new WeakMap<object, readonly HotRoute[]>();

/** Records the hot routes an app mounted, for its runtime's dispatcher (`hotRoutesOf`). */
export function declareHot(app: object, routes: readonly HotRoute[]): void {
  HOT.set(app, routes);
}

/** The hot routes `app` mounted (none for an app that mounted none). */
export function hotRoutesOf(app: object): readonly HotRoute[] {
  return HOT.get(app) ?? [];
}
