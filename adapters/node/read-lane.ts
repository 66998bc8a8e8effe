import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NoteService } from '../../core/notes/service.ts';
import type { Authenticator, Logger } from '../../core/ports.ts';
import { requestIdOf } from '../../http-kit/request-id.ts';
import { type FrameStats, frameHeaders, logRequest, withBase } from '../http/frame.ts';
import type { NoteCache } from '../http/note-cache.ts';
import { indexedNoteAnswer } from '../http/routes/notes.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = '/api/v1/notes/';
/**
 * Request targets the lane takes: characters that the URL parser and @hono/node-server leave as
 * they are (no query, no fragment, no backslash), and no empty segment or trailing slash.
 */
const PLAIN_TARGET = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%]+(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@%]+)*$/;
/** A `.` or `..` segment, also percent-encoded: the URL parser would resolve it. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)(?:\.|%2e)?(?:\/|$)/i;
/** Host headers @hono/node-server takes as they are (the same test it makes). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * `GET /api/v1/notes/:path` answered on node:http directly when the answer needs neither the
 * disk nor a key check: the key was verified moments ago (the authenticator's cache, so a revoke
 * is still felt at once), and the answer is an encoded note still valid for the index, or a 304
 * (adapters/http/routes/notes.ts `indexedNoteAnswer`, the same function the route uses). It skips
 * the web Request and Response, Hono's routing and middleware, which cost more than the answer.
 *
 * The answer carries every header the full path sets, in the same order (security headers,
 * `X-Request-Id`, CORS for an `Origin`, `Content-Type`, `Cache-Control`, `ETag`), and logs the
 * same access line; a test compares both byte for byte. Anything else goes to `next` (the app):
 * other methods, a body, a query string, encoded `%`, dot segments, an unusual Host, a key not
 * seen yet, a scoped key (its folders and capabilities are the full path's to apply), a note not
 * cached, and every request while draining.
 */
export function readLane(
  next: Listener,
  opts: {
    notes: NoteService;
    cache: NoteCache;
    authenticator: Authenticator;
    logger: Logger;
    /** The CORS allowlist, read live as the app does. */
    corsOrigins?: string[];
    stats?: FrameStats;
    draining: () => boolean;
    /** Counts the answers the lane gave itself (tests, benchmarks). */
    answered?: { count: number };
  },
): Listener {
  const { notes, cache, authenticator, logger, corsOrigins, stats } = opts;
  const known = authenticator.known?.bind(authenticator);
  if (!known) return next;
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX) || opts.draining()) {
      next(req, res);
      return;
    }
    const h = req.headers;
    const raw = url.slice(PREFIX.length);
    const host = h.host;
    if (
      h['content-length'] !== undefined ||
      h['transfer-encoding'] !== undefined ||
      host === undefined ||
      !PLAIN_HOST.test(host) ||
      !PLAIN_TARGET.test(raw) ||
      DOT_SEGMENT.test(raw)
    ) {
      next(req, res);
      return;
    }
    const apiKey = h['x-service-key'];
    // A scoped key takes the full path, where its scope is applied (core/auth/scoped.ts).
    const who = apiKey === undefined || typeof apiKey === 'string' ? known({ apiKey }) : null;
    if (who === null || who.scope !== undefined) {
      next(req, res);
      return;
    }
    let path = raw;
    let logged = url;
    if (raw.includes('%')) {
      // Hono decodes the route parameter with decodeURIComponent (and logs the path decoded with
      // decodeURI); a `%` left after decoding (from `%25`) takes the full path, which handles it.
      try {
        path = decodeURIComponent(raw);
        logged = decodeURI(url);
      } catch {
        next(req, res);
        return;
      }
      if (path.includes('%')) {
        next(req, res);
        return;
      }
    }
    const inm = h['if-none-match'];
    const answer = indexedNoteAnswer(notes, cache, path, inm);
    if (answer === null) {
      next(req, res);
      return;
    }
    const started = performance.now();
    if (stats) stats.requests++;
    if (opts.answered) opts.answered.count++;
    const given = h['x-request-id'];
    const id = requestIdOf(given);
    const origin = corsOrigins?.length ? h.origin : undefined;
    const headers = withBase(frameHeaders(id, origin, corsOrigins), answer.headers);
    if (answer.body === null) {
      res.writeHead(answer.status, headers);
      res.end();
    } else {
      // As @hono/node-server writes a plain-header answer: node adds Content-Length at the end.
      res.statusCode = answer.status;
      for (const name in headers) res.setHeader(name, headers[name]!);
      res.end(answer.body);
    }
    logRequest(logger, id, 'GET', logged, answer.status, started);
  };
}
