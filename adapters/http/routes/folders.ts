import { type Context, Hono } from 'hono';
import { limitsFolders } from '../../../core/auth/access.ts';
import type { NoteService } from '../../../core/notes/service.ts';
import { createAnswerMemo, type EncodedAnswer, encodeAnswer, sendAnswer } from '../json-answer.ts';
import { viewOf } from '../scoped.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/folders` routes; each tree is encoded (and compressed when asked) once per index generation. */
export function foldersRoutes(notes: NoteService) {
  const app = new Hono<AppEnv>();
  const memo = createAnswerMemo();
  const tree = (folder: string) => memo.get(notes.list().generation, folder, () => notes.tree(folder));
  // A folder key's tree is its own: the view builds it once per generation, encoded once here.
  const scoped = new WeakMap<object, EncodedAnswer>();
  const answer = (c: Context<AppEnv>, folder: string) => {
    if (!limitsFolders(c.get('principal')?.scope)) return sendAnswer(c, tree(folder));
    const t = viewOf(c).notes.tree(folder);
    let a = scoped.get(t);
    if (!a) {
      a = encodeAnswer(t);
      scoped.set(t, a);
    }
    return sendAnswer(c, a);
  };
  app.get('/tree', (c) => answer(c, ''));
  app.get('/tree/:path{.+}', (c) => answer(c, c.req.param('path')));
  return app;
}
