import { Hono } from 'hono';
import { PatchNoteBody } from '../../../core/notes/schemas.ts';
import type { NoteService } from '../../../core/notes/service.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { notesFor } from '../scoped.ts';
import type { AppEnv } from '../types.ts';
import { actorOf, etagOf } from './history.ts';

/** `PATCH /api/v1/notes/:path`: a section PATCH; the answer is the note as GET returns it. */
export function notePatchRoutes(all: NoteService) {
  const app = new Hono<AppEnv>();
  app.patch('/:path{.+}', async (c) => {
    const body = await readJson(c, PatchNoteBody);
    const ifMatch = c.req.header('if-match');
    const notes = notesFor(c, all);
    const note = await notes.withActor(actorOf(c), () => notes.patch(c.req.param('path'), body, ifMatch));
    return ok(c, note, 200, etagOf(note.checksum));
  });
  return app;
}
