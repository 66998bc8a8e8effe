import { type Handler, Hono } from 'hono';
import { encodeAnswer, sendAnswer } from '../json-answer.ts';
import { viewOf } from '../scoped.ts';
import type { AppEnv } from '../types.ts';

/**
 * `/api/v1/search?q=&limit=&mode=` (compressed per Accept-Encoding when large). `mode` is
 * lexical, semantic or hybrid (default: hybrid with embeddings configured, else lexical); the
 * mode that ran is in `X-Search-Mode` (hybrid answers lexical when the provider fails).
 */
export function searchRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const r = await viewOf(c).retrieval.search(c.req.query('q'), {
      mode: c.req.query('mode'),
      limit: c.req.query('limit'),
    });
    return sendAnswer(c, encodeAnswer(r.hits), { 'X-Search-Mode': r.mode });
  });
  return app;
}

/** `GET /api/v1/notes/:path/related?limit=`: the notes closest to one note (mode in `X-Search-Mode`). */
export function relatedHandler(): Handler<AppEnv> {
  return async (c) => {
    const r = await viewOf(c).retrieval.related(c.req.param('path') ?? '', c.req.query('limit'));
    return sendAnswer(c, encodeAnswer(r.hits), { 'X-Search-Mode': r.mode });
  };
}
