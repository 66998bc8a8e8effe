import { Hono } from 'hono';
import type { NoteService } from '../../../core/notes.ts';
import { ok } from '../envelope.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/folders` routes. */
export function foldersRoutes(notes: NoteService) {
  const app = new Hono<AppEnv>();
  app.get('/tree', (c) => ok(c, notes.tree('')));
  app.get('/tree/:path{.+}', (c) => ok(c, notes.tree(c.req.param('path'))));
  return app;
}
