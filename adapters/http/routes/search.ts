import { Hono } from 'hono';
import type { NoteService } from '../../../core/notes.ts';
import { ok } from '../envelope.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/search?q=&limit=` */
export function searchRoutes(notes: NoteService) {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => ok(c, await notes.search(c.req.query('q'), c.req.query('limit'))));
  return app;
}
