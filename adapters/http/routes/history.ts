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

/**
 * Who a request writes as: `key:<id>` for an API key, `jwt:<subject>` for a token,
 * `person:<id> (device:<name>)` or `person:<id> (key:<id>)` for a person, else `api`.
 */
export function actorOf(c: Context<AppEnv>): string {
  const p = c.get('principal');
  if (!p || p.method === 'none') return 'api';
  // A person's change names the person and the device: a key of theirs by its id (named while
  // it lives), a session by the device it was signed in on, written out so it outlives the session.
  if (p.personId && p.method !== 'session') return `person:${p.personId} (key:${p.id})`;
  if (p.personId) return p.device ? `person:${p.personId} (device:${p.device})` : `person:${p.personId}`;
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

/** How many changes `GET /api/v1/activity` answers at most (and by default). */
const ACTIVITY_MAX = 500;
const ACTIVITY_DEFAULT = 50;

/**
 * `/api/v1/activity`: who did what, newest first, across the notes the caller sees: every kept
 * version of each note, deleted ones' too (its change and author), and every deletion in the
 * trash. Built only from the caller's scoped history (its paths, their versions, its trash), so a
 * scope hides here what it hides everywhere.
 */
export function activityRoutes(names: KeyNames = noKeyNames) {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    const raw = c.req.query('limit');
    const limit = raw === undefined ? ACTIVITY_DEFAULT : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > ACTIVITY_MAX)
      throw new DomainError('VALIDATION_ERROR', `limit is a whole number from 1 to ${ACTIVITY_MAX}.`);
    const history = historyOf(viewOf(c).notes);
    const items: { at: number; path: string; change: string; by: string }[] = [];
    for (const path of history.paths())
      for (const v of history.list(path)) items.push({ at: v.at, path, change: v.change, by: v.by });
    for (const t of history.listTrash())
      items.push({ at: t.deletedAt, path: t.path, change: 'delete', by: t.by });
    items.sort((a, b) => b.at - a.at || a.path.localeCompare(b.path));
    return ok(
      c,
      items.slice(0, limit).map((x) => ({
        at: new Date(x.at).toISOString(),
        path: x.path,
        change: x.change,
        author: authorOf(x.by, names),
      })),
    );
  });
  return app;
}
