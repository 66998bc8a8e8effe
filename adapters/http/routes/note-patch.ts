import { Hono } from 'hono';
import { PatchNoteBody } from '../../../core/notes/schemas.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { viewOf } from '../scoped.ts';
import type { AppEnv } from '../types.ts';
import { actorOf, etagOf } from './history.ts';

/** `PATCH /api/v1/notes/:path`: a section PATCH; the answer is the note as GET returns it. */
export function notePatchRoutes() {
  const app = new Hono<AppEnv>();
  app.patch('/:path{.+}', async (c) => {
    const body = await readJson(c, PatchNoteBody);
    const ifMatch = c.req.header('if-match');
    const notes = viewOf(c).notes;
    const note = await notes.withActor(actorOf(c), () => notes.patch(c.req.param('path'), body, ifMatch));
    return ok(c, note, 200, etagOf(note.checksum));
  });
  return app;
}
