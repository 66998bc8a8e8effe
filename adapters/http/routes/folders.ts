import { type Context, Hono } from 'hono';
import { limitsFolders } from '../../../core/auth/access.ts';
import type { NoteService } from '../../../core/notes/service.ts';
import { ok } from '../../http-kit/envelope.ts';
import { createAnswerMemo, sendAnswer } from '../json-answer.ts';
import { notesFor } from '../scoped.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/folders` routes; each tree is encoded (and compressed when asked) once per index generation. */
export function foldersRoutes(notes: NoteService) {
  const app = new Hono<AppEnv>();
  const memo = createAnswerMemo();
  const tree = (folder: string) => memo.get(notes.list().generation, folder, () => notes.tree(folder));
  // A scoped key's tree is built for it (not memoized: the memo is the full tree's).
  const answer = (c: Context<AppEnv>, folder: string) => {
    if (!limitsFolders(c.get('principal')?.scope)) return sendAnswer(c, tree(folder));
    return ok(c, notesFor(c, notes).tree(folder));
  };
  app.get('/tree', (c) => answer(c, ''));
  app.get('/tree/:path{.+}', (c) => answer(c, c.req.param('path')));
  return app;
}
