/**
 * `POST /api/v1/live/tickets`: a single-use ticket to open the live session of a note. A browser's
 * WebSocket cannot send the key header, and the key never goes into a URL, so the socket at
 * `/api/v1/live` shows this short-lived ticket instead (docs/reference/api.md "Live editing").
 * `/api/v1/live/sessions`: the same session over plain requests, for editors that come through
 * the relay (../live-poll.ts).
 */
import { Hono } from 'hono';
import { DomainError } from '../../../core/errors.ts';
import { decodeMessages } from '../../../core/live/poll-wire.ts';
import { LiveSessionBody, LiveTicketBody } from '../../../core/live/schemas.ts';
import type { Live } from '../../../core/live/service.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { livePoll } from '../live-poll.ts';
import type { AppEnv } from '../types.ts';
import { actorOf } from './history.ts';

const NO_STORE = { 'cache-control': 'no-store' };
const BINARY = { 'content-type': 'application/octet-stream', ...NO_STORE };

/** Where the live door is: the tickets here, the WebSocket at this path itself. */
export const LIVE_PATH = '/api/v1/live';

export function liveRoutes(live: Live) {
  const app = new Hono<AppEnv>();
  app.post('/tickets', async (c) => {
    const body = await readJson(c, LiveTicketBody);
    // The credential is checked again while the editor is in the room: a revoked key, a disabled
    // person or a share taken away ends its session within seconds, WebSocket or not.
    const recheck = c.get('recheck');
    const t = await live.ticket(c.get('principal'), actorOf(c), body.path, recheck);
    return ok(c, { ...t, url: LIVE_PATH }, 201, NO_STORE);
  });

  const poll = livePoll(live);
  app.post('/sessions', async (c) => {
    const body = await readJson(c, LiveSessionBody);
    return ok(c, { session: await poll.open(body.ticket, actorOf(c)) }, 201, NO_STORE);
  });
  app.post('/sessions/:id/messages', async (c) => {
    if (!/^application\/octet-stream\b/i.test(c.req.header('content-type') ?? ''))
      throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Live messages are sent as application/octet-stream.');
    const messages = decodeMessages(new Uint8Array(await c.req.arrayBuffer()));
    if (!messages) throw new DomainError('VALIDATION_ERROR', 'The body is not a run of live messages.');
    poll.send(c.req.param('id'), actorOf(c), messages);
    return c.body(null, 204, NO_STORE);
  });
  app.get('/sessions/:id/messages', async (c) => {
    // `after` in the query, or as Last-Event-ID: a browser calling across origins keeps one URL
    // then, so its CORS preflight is cached instead of made again before every poll.
    const after = Number(c.req.query('after') ?? c.req.header('last-event-id') ?? '0');
    if (!Number.isSafeInteger(after) || after < 0)
      throw new DomainError('VALIDATION_ERROR', '`after` is the last frame held: a whole number, 0 or more.');
    const body = await poll.poll(c.req.param('id'), actorOf(c), after);
    return c.body(body, 200, BINARY);
  });
  app.delete('/sessions/:id', (c) => {
    poll.leave(c.req.param('id'), actorOf(c));
    return c.body(null, 204, NO_STORE);
  });
  return app;
}
