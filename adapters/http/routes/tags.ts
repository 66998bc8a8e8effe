import { Hono } from 'hono';
import type { NoteService } from '../../../core/notes/service.ts';
import { ok } from '../../../http-kit/envelope.ts';
import { notesFor } from '../scoped.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/tags`: every tag with its note count, most used first. */
export function tagsRoutes(notes: NoteService) {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => ok(c, notesFor(c, notes).tags()));
  return app;
}
