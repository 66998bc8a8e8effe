import { type Handler, Hono } from 'hono';
import { checkBody } from '../../../core/schemas.ts';
import { RelatedParams, SearchParams } from '../../../core/search/schemas.ts';
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
    const { q, mode, limit } = checkBody(SearchParams, c.req.query());
    const r = await viewOf(c).retrieval.search(q, { mode, limit });
    return sendAnswer(c, encodeAnswer(r.hits), { 'X-Search-Mode': r.mode });
  });
  return app;
}

/** `GET /api/v1/notes/:path/related?limit=`: the notes closest to one note (mode in `X-Search-Mode`). */
export function relatedHandler(): Handler<AppEnv> {
  return async (c) => {
    const { limit } = checkBody(RelatedParams, c.req.query());
    const r = await viewOf(c).retrieval.related(c.req.param('path') ?? '', limit);
    return sendAnswer(c, encodeAnswer(r.hits), { 'X-Search-Mode': r.mode });
  };
}
