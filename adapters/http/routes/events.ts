import { Hono } from 'hono';
import * as v from 'valibot';
import { limitsFolders } from '../../../core/auth/access.ts';
import { scopedFeedEvent, scopedFeedPage } from '../../../core/auth/scoped.ts';
import { DomainError } from '../../../core/errors.ts';
import type { ChangeFeed, FeedEvent } from '../../../core/notes/change-feed.ts';
import { EventsQuery } from '../../../core/notes/schemas.ts';
import { ok } from '../../../http-kit/envelope.ts';
import type { AppEnv } from '../types.ts';

/** Options of the change feed routes. */
export interface EventsRouteOptions {
  /** Milliseconds between heartbeat comments on a stream (default 15,000). */
  heartbeatMs?: number;
  /** Bytes a stream's reader may fall behind before the stream is closed (default 1 MiB). */
  maxBacklogBytes?: number;
  /** Event streams open at once per credential (key, token subject); beyond: 429 (default 8). */
  maxStreamsPerKey?: number;
}

/** Bytes a slow stream reader may fall behind before the stream is closed (it resumes by id). */
export const MAX_BACKLOG_BYTES = 1024 * 1024;
/** Event streams open at once per credential. */
export const MAX_STREAMS_PER_KEY = 8;
const encoder = new TextEncoder();
const frame = (e: FeedEvent): string => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;

/** Where the change feed is mounted (adapters/http/app.ts). */
export const CHANGE_FEED_PATH = '/api/v1/events';

/**
 * `GET /api/v1/events`: the change feed, as `text/event-stream` (resumable with `Last-Event-ID`)
 * or, with `Accept: application/json`, as a long poll (`?after=<id>&wait=<seconds>`).
 */
export function eventsRoutes(feed: ChangeFeed, opts: EventsRouteOptions = {}) {
  const app = new Hono<AppEnv>();
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxBacklog = opts.maxBacklogBytes ?? MAX_BACKLOG_BYTES;
  const maxStreams = opts.maxStreamsPerKey ?? MAX_STREAMS_PER_KEY;
  /** Open streams per principal id. */
  const open = new Map<string, number>();

  app.get('/', async (c) => {
    const q = v.safeParse(EventsQuery, { after: c.req.query('after'), wait: c.req.query('wait') });
    if (!q.success) throw new DomainError('VALIDATION_ERROR', q.issues[0].message);
    const accept = c.req.header('accept') ?? '';
    // A key with a folder scope sees only the events of its folders (core/auth/scoped.ts).
    const scope = c.get('principal')?.scope;
    if (accept.includes('application/json') && !accept.includes('text/event-stream')) {
      const waitMs = (q.output.wait ?? 0) * 1000;
      const until = Date.now() + waitMs;
      let raw = await feed.wait(q.output.after ?? feed.last(), waitMs, c.req.raw.signal);
      let page = scopedFeedPage(scope, raw);
      // Hidden events do not end a scoped wait early: it waits on for a visible one.
      while (
        limitsFolders(scope) &&
        raw.events.length > 0 &&
        page.events.length === 0 &&
        !page.reset &&
        Date.now() < until &&
        !c.req.raw.signal.aborted
      ) {
        raw = await feed.wait(page.next, until - Date.now(), c.req.raw.signal);
        page = scopedFeedPage(scope, raw);
      }
      return ok(c, page, 200, { 'cache-control': 'no-store' });
    }
    if ((c.env as { relayed?: boolean } | undefined)?.relayed === true) {
      // The relay carries whole answers: a stream would only end in its time-out.
      throw new DomainError(
        'VALIDATION_ERROR',
        'Through the relay, use the long-poll form: Accept: application/json with ?after=<id>&wait=<seconds>.',
      );
    }
    const lastId = c.req.header('last-event-id') ?? c.req.query('after');
    const from = lastId !== undefined && /^\d{1,15}$/.test(lastId.trim()) ? Number(lastId) : null;
    const who = c.get('principal')?.id ?? 'anonymous';
    const count = open.get(who) ?? 0;
    if (count >= maxStreams) {
      throw new DomainError(
        'RATE_LIMITED',
        `At most ${maxStreams} event streams may be open at once per key; close one, or use the long-poll form.`,
      );
    }
    open.set(who, count + 1);
    const release = () => {
      const n = (open.get(who) ?? 1) - 1;
      if (n > 0) open.set(who, n);
      else open.delete(who);
    };
    let stop = () => {};
    const stream = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          let live = true;
          // desiredSize counts queued bytes (the strategy below): a reader more than maxBacklog
          // behind is cut; it resumes with Last-Event-ID.
          const send = (s: string) => {
            if (!live) return;
            if ((controller.desiredSize ?? 0) < -maxBacklog) return stop();
            controller.enqueue(encoder.encode(s));
          };
          let out = 'retry: 2000\n\n';
          // A catch-up larger than the backlog limit is sent up to the limit, then the stream
          // closes: the client resumes from the last id it got (never one giant answer).
          let partial = false;
          if (from !== null) {
            const page = feed.after(from);
            if (page.reset) out += `id: ${page.next}\nevent: reset\ndata: {"next":${page.next}}\n\n`;
            for (const e of scopedFeedPage(scope, page).events) {
              if (out.length > maxBacklog) {
                partial = true;
                break;
              }
              out += frame(e);
            }
          } else out += `id: ${feed.last()}\n: ready\n\n`;
          send(out);
          const unlisten = feed.listen((e) => {
            const seen = scopedFeedEvent(scope, e);
            if (seen) send(frame(seen));
          });
          const beat = setInterval(() => send(': heartbeat\n\n'), heartbeatMs);
          const unClose = feed.onClose(() => stop());
          stop = () => {
            if (!live) return;
            live = false;
            release();
            clearInterval(beat);
            unlisten();
            unClose();
            try {
              controller.close();
            } catch {}
          };
          c.req.raw.signal.addEventListener('abort', () => stop(), { once: true });
          if (partial) stop();
        },
        cancel() {
          stop();
        },
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    return c.body(stream, 200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-accel-buffering': 'no',
    });
  });
  return app;
}
