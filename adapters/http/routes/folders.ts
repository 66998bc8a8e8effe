import { Hono } from 'hono';
import type { NoteService } from '../../../core/notes/service.ts';
import { createAnswerMemo, sendAnswer } from '../json-answer.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/folders` routes; each tree is encoded (and compressed when asked) once per index generation. */
export function foldersRoutes(notes: NoteService) {
  const app = new Hono<AppEnv>();
  const memo = createAnswerMemo();
  const tree = (folder: string) => memo.get(notes.list().generation, folder, () => notes.tree(folder));
  app.get('/tree', (c) => sendAnswer(c, tree('')));
  app.get('/tree/:path{.+}', (c) => sendAnswer(c, tree(c.req.param('path'))));
  return app;
}
