import type { Context } from 'hono';
import { Hono } from 'hono';
import { hasCapability } from '../../../core/auth/scope.ts';
import { isDomainError } from '../../../core/errors.ts';
import { isScriptCapable } from '../../../core/files/content-types.ts';
import { MoveFileBody } from '../../../core/files/schemas.ts';
import { etagMatches, type FileMeta } from '../../../core/files/service.ts';
import { addFilesToTree } from '../../../core/files/tree.ts';
import type { FolderNode, NoteService } from '../../../core/notes/service.ts';
import { basename, validateFolderPath } from '../../../core/paths.ts';
import { errorBody, ok, readJson, STATUS } from '../../../http-kit/envelope.ts';
import { filesOf, viewOf } from '../scoped.ts';
import type { AppEnv } from '../types.ts';
import { actorOf } from './history.ts';

/** CSP of a file a browser could run script in when opened directly: no script, no requests, sandboxed. */
export const FILE_SANDBOX_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The headers that describe one attachment (type, validators, caching, disposition). */
export function fileHeaders(meta: FileMeta): Record<string, string> {
  const name = meta.path.slice(meta.path.lastIndexOf('/') + 1);
  const scripty = isScriptCapable(meta.contentType);
  const download = scripty && !meta.contentType.startsWith('image/svg+xml');
  const headers: Record<string, string> = {
    'content-type': meta.contentType,
    etag: meta.etag,
    'last-modified': new Date(meta.updatedAt).toUTCString(),
    'cache-control': 'private, no-cache',
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'content-disposition': `${download ? 'attachment' : 'inline'}; filename*=UTF-8''${encodeURIComponent(name)}`,
  };
  if (scripty) headers['content-security-policy'] = FILE_SANDBOX_CSP;
  return headers;
}

/** The upload's declared length, when it declared a sane one. */
function declaredLength(c: Context): number | undefined {
  const raw = c.req.header('content-length');
  return raw && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** `/api/v1/files` routes: the vault's attachments (every file that is not a note). */
export function filesRoutes(allNotes?: NoteService) {
  const app = new Hono<AppEnv>();
  // The services as this request's key sees them (core/auth/scoped.ts).
  const notesOf = (c: Context<AppEnv>) => (allNotes ? viewOf(c).notes : undefined);
  /** Tells the note index (links and embeds to files) what changed; never fails the request. */
  const tell = async (added: string[], removed: string[]) => {
    try {
      await allNotes?.filesChanged(added, removed);
    } catch {
      // The index catches up on its next reconcile.
    }
  };

  app.get('/attachment-path', async (c) =>
    ok(c, await filesOf(c).attachmentPath(c.req.query('note'), c.req.query('name'))),
  );

  app.post('/:path{.+}/move', async (c) => {
    const body = await readJson(c, MoveFileBody);
    const files = filesOf(c);
    const notes = notesOf(c);
    const from = c.req.param('path');
    const move = () => files.move(from, body.path, c.req.header('if-match'));
    if (!notes) {
      const file = await move();
      return ok(c, file, 200, { etag: file.etag });
    }
    const { result: file, rewritten } = await notes.moveFile(from, body.path, move, {
      updateLinks: body.updateLinks ?? false,
    });
    const data = body.updateLinks ? { ...file, rewritten } : file;
    return ok(c, data, 200, { etag: file.etag });
  });

  app.get('/:path{.+}', async (c) => {
    const path = c.req.param('path');
    const files = filesOf(c);
    const inm = c.req.header('if-none-match');
    if (c.req.method === 'HEAD') {
      const meta = await files.stat(path);
      if (inm && etagMatches(inm, meta.etag))
        return c.body(null, 304, { etag: meta.etag, 'cache-control': 'private, no-cache' });
      return c.body(null, 200, { ...fileHeaders(meta), 'content-length': String(meta.size) });
    }
    const ifRange = c.req.header('if-range');
    if (inm) {
      const meta = await files.stat(path);
      if (etagMatches(inm, meta.etag))
        return c.body(null, 304, { etag: meta.etag, 'cache-control': 'private, no-cache' });
    }
    let range = c.req.header('range');
    // If-Range with another validator: the file changed, so send all of it.
    if (range && ifRange && ifRange.trim() !== (await files.stat(path)).etag) range = undefined;
    const read = await files.read(path, range);
    const headers = fileHeaders(read.meta);
    if (read.kind === 'unsatisfiable') {
      return c.json(
        errorBody('RANGE_NOT_SATISFIABLE', `The range is outside the file (${read.meta.size} bytes).`),
        416,
        { 'content-range': `bytes */${read.meta.size}` },
      );
    }
    if (read.kind === 'partial') {
      const { start, end } = read.range;
      return c.body(read.body, 206, {
        ...headers,
        'content-range': `bytes ${start}-${end}/${read.meta.size}`,
        'content-length': String(end - start + 1),
      });
    }
    return c.body(read.body, 200, { ...headers, 'content-length': String(read.meta.size) });
  });

  app.put('/:path{.+}', async (c) => {
    const body = c.req.raw.body ?? new ReadableStream<Uint8Array>({ start: (ctl) => ctl.close() });
    try {
      const { file, created } = await filesOf(c).put(c.req.param('path'), body, {
        ifMatch: c.req.header('if-match'),
        ifNoneMatch: c.req.header('if-none-match'),
        contentLength: declaredLength(c),
        by: actorOf(c),
      });
      if (created) await tell([file.path], []);
      return ok(c, file, created ? 201 : 200, { etag: file.etag });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      // Refused before the whole body was read: close the connection so no client reuses a socket
      // that still carries the rest of it.
      return c.json(errorBody(err.code, err.message, err.details), STATUS[err.code], { connection: 'close' });
    }
  });

  app.delete('/:path{.+}', async (c) => {
    const done = await filesOf(c).remove(c.req.param('path'), c.req.header('if-match'), actorOf(c));
    await tell([], [done.path]);
    return ok(c, done);
  });

  return app;
}

/** `GET /api/v1/folders/tree[/:path]` with attachments among the children. */
export function foldersWithFilesRoutes() {
  const app = new Hono<AppEnv>();
  const tree = async (c: Context<AppEnv>, folder: string) => {
    const notes = viewOf(c).notes;
    // Attachments show in the tree to a key that may read files (within its folders).
    const p = c.get('principal');
    const files = filesOf(c);
    const withFiles = hasCapability(p?.scope, 'files:read');
    const list = withFiles ? await files.list() : [];
    let notesTree: FolderNode;
    try {
      notesTree = notes.tree(folder);
    } catch (err) {
      // A folder holding only attachments, made outside the server, may be unknown to the note index yet.
      const inside = `${validateFolderPath(folder)}/`;
      if (
        !isDomainError(err) ||
        err.code !== 'FOLDER_NOT_FOUND' ||
        !list.some((f) => f.path.startsWith(inside))
      )
        throw err;
      notesTree = {
        name: basename(folder),
        path: validateFolderPath(folder),
        type: 'folder',
        noteCount: 0,
        children: [],
      };
    }
    return addFilesToTree(notesTree, list);
  };
  app.get('/tree', async (c) => ok(c, await tree(c, '')));
  app.get('/tree/:path{.+}', async (c) => ok(c, await tree(c, c.req.param('path'))));
  return app;
}
