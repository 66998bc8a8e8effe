/** `/api/v1/notes/:path/versions...` and `/api/v1/trash...`: the history and the trash. */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { DomainError } from '../../../core/errors.ts';
import { authorOf, type KeyNames, noKeyNames } from '../../../core/history/author.ts';
import { unifiedDiff } from '../../../core/history/diff.ts';
import { restoreFromTrash } from '../../../core/history/trash.ts';
import { trashOut, versionOut } from '../../../core/history/wire.ts';
import { decode } from '../../../core/notes/context.ts';
import { FRONTMATTER } from '../../../core/notes/markdown/parts.ts';
import type { NoteService } from '../../../core/notes/service.ts';
import { validateNotePath } from '../../../core/paths.ts';
import { ok } from '../../../http-kit/envelope.ts';
import { viewOf } from '../scoped.ts';
import type { AppEnv } from '../types.ts';
import { decodeUrlPart } from '../url-decode.ts';

/** Who a request writes as: `key:<id>` for an API key, `jwt:<subject>` for a token, else `api`. */
export function actorOf(c: Context<AppEnv>): string {
  const p = c.get('principal');
  if (!p || p.method === 'none') return 'api';
  // A person's change names the person, whether made in a session or with a key of theirs.
  if (p.personId) return `person:${p.personId}`;
  return `${p.method === 'jwt' ? 'jwt' : 'key'}:${p.id}`;
}

/** The ETag of a write's answer; none when the checksum is withheld (a key without notes:read). */
export const etagOf = (checksum: string): Record<string, string> =>
  checksum ? { etag: `"${checksum}"` } : {};

/**
 * The note path of a versions URL, read from the URL itself: beside the notes routes'
 * `/:path{.+}`, the router may hand over another route's capture for `path`.
 */
function notePathOf(c: Context<AppEnv>): string {
  const m = /^\/api\/v1\/notes\/(.+?)\/versions(?:\/[^/]+(?:\/restore)?)?$/.exec(c.req.path);
  return validateNotePath(decodeUrlPart(m?.[1] ?? '', 'The note path'));
}

const historyOf = (notes: NoteService) => {
  if (!notes.history) throw new DomainError('NOT_FOUND', 'This server keeps no history.');
  return notes.history;
};

/** A text without its leading frontmatter block. */
const bodyOf = (text: string): string => text.replace(/^\ufeff/, '').replace(FRONTMATTER, '');

/**
 * The note as it is now, for a compare against a kept version: its whole text, frontmatter
 * included, from the version that holds its bytes (every write keeps one); when none does (a
 * change not yet seen), its body alone, and the caller drops the other side's frontmatter too, so
 * both sides are alike.
 */
async function currentText(
  notes: NoteService,
  history: NonNullable<NoteService['history']>,
  path: string,
): Promise<{ text: string; frontmatter: 'included' | 'excluded' }> {
  const note = await notes.get(path);
  const same = history.list(path).find((x) => x.checksum === note.checksum);
  if (same) return { text: decode((await history.get(path, same.id)).bytes), frontmatter: 'included' };
  return { text: note.content, frontmatter: 'excluded' };
}

type Handler = (c: Context<AppEnv>) => Promise<Response> | Response;

/** The three versions handlers, by method and URL shape. */
function versionsHandlers(names: KeyNames) {
  const list: Handler = (c) =>
    ok(
      c,
      historyOf(viewOf(c).notes)
        .list(notePathOf(c))
        .map((v) => versionOut({ ...v, author: authorOf(v.by, names) })),
    );
  const get: Handler = async (c) => {
    const notes = viewOf(c).notes;
    const path = notePathOf(c);
    const history = historyOf(notes);
    const v = await history.get(path, idOf(c));
    const against = c.req.query('diff');
    if (against !== undefined) {
      if (against === 'current') {
        const now = await currentText(notes, history, path);
        const then = now.frontmatter === 'included' ? decode(v.bytes) : bodyOf(decode(v.bytes));
        const diff = unifiedDiff(now.text, then, `${path} (current)`, `${path}@${v.id}`);
        return ok(c, { from: against, to: v.id, diff, frontmatter: now.frontmatter });
      }
      const before = decode((await history.get(path, against)).bytes);
      const diff = unifiedDiff(before, decode(v.bytes), `${path}@${against}`, `${path}@${v.id}`);
      return ok(c, { from: against, to: v.id, diff, frontmatter: 'included' });
    }
    return ok(
      c,
      versionOut({
        id: v.id,
        content: decode(v.bytes),
        checksum: v.checksum,
        at: v.at,
        by: v.by,
        author: authorOf(v.by, names),
        change: v.change,
      }),
    );
  };
  const restore: Handler = async (c) => {
    const notes = viewOf(c).notes;
    const path = notePathOf(c);
    const v = await historyOf(notes).get(path, idOf(c));
    const ifMatch = c.req.header('if-match');
    const r = await notes.withActor(actorOf(c), () => notes.restore(path, v.bytes, { to: 'same', ifMatch }));
    return ok(c, { path: r.path, checksum: r.note.checksum }, 200, etagOf(r.note.checksum));
  };
  return { list, get, restore };
}

const VERSIONS_URL = /^\/api\/v1\/notes\/.+?\/versions(?:\/([^/]+)(\/restore)?)?$/;

/** The version id of a versions URL. */
function idOf(c: Context<AppEnv>): string {
  const id = VERSIONS_URL.exec(c.req.path)?.[1];
  if (!id) throw new DomainError('NOT_FOUND', 'No version id in the URL.');
  return decodeUrlPart(id, 'The version id');
}

/**
 * The versions routes, mounted at `/api/v1/notes` (they document the routes), and a middleware
 * that answers them first: beside the notes routes' `GET /:path{.+}`, the router would give
 * `.../versions` to that route.
 */
export function versionsRoutes(names: KeyNames = noKeyNames) {
  const h = versionsHandlers(names);
  const app = new Hono<AppEnv>();
  app.get('/:path{.+}/versions', h.list);
  app.get('/:path{.+}/versions/:id', h.get);
  app.post('/:path{.+}/versions/:id/restore', h.restore);
  const first: MiddlewareHandler<AppEnv> = async (c, next) => {
    const m = c.req.path.includes('/versions') ? VERSIONS_URL.exec(c.req.path) : null;
    if (!m) return next();
    if (c.req.method === 'GET' && !m[1]) return h.list(c);
    if (c.req.method === 'GET' && m[1] && !m[2]) return h.get(c);
    if (c.req.method === 'POST' && m[2]) return h.restore(c);
    return next();
  };
  return { app, first };
}

/** `/api/v1/trash`: list, restore (never overwriting), delete for good. */
export function trashRoutes(names: KeyNames = noKeyNames) {
  const app = new Hono<AppEnv>();

  app.get('/', (c) =>
    ok(
      c,
      historyOf(viewOf(c).notes)
        .listTrash()
        .map((t) => trashOut({ ...t, author: authorOf(t.by, names) })),
    ),
  );

  app.post('/:id/restore', async (c) => {
    const files = viewOf(c).files;
    const r = await restoreFromTrash(viewOf(c).notes, c.req.param('id'), { by: actorOf(c), files });
    return ok(c, { path: r.path });
  });

  app.delete('/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await historyOf(viewOf(c).notes).untrash(id)))
      throw new DomainError('NOT_FOUND', `No item "${id}" in the trash.`);
    return ok(c, { deleted: id });
  });

  return app;
}
