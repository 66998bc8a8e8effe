import { Hono } from 'hono';
import type { NoteService } from '../../../core/notes/service.ts';
import { encodeAnswer, sendAnswer } from '../json-answer.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/search?q=&limit=` (compressed per Accept-Encoding when large). */
export function searchRoutes(notes: NoteService) {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) =>
    sendAnswer(c, encodeAnswer(await notes.search(c.req.query('q'), c.req.query('limit')))),
  );
  return app;
}
