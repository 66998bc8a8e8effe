import { type Handler, Hono } from 'hono';
import { limitsFolders } from '../../../core/auth/access.ts';
import type { NoteSummary } from '../../../core/notes/note-index.ts';
import type { Note, NoteService } from '../../../core/notes/service.ts';
import { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from '../../../core/schemas.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { sealedResponse } from '../frame.ts';
import { type EncodedAnswer, encodeAnswer, JSON_TYPE, sendAnswer } from '../json-answer.ts';
import { type FullList, plainFullList } from '../list/full-list.ts';
import { encodeColumnsAnswer } from '../list-columns.ts';
import { encodeCursor, listPage, parseListFormat, parseListQuery } from '../list-query.ts';
import { createNoteCache, type NoteCache } from '../note-cache.ts';
import { viewOf } from '../scoped.ts';
import type { AppEnv } from '../types.ts';
import { actorOf, etagOf } from './history.ts';

const JSON_HEADER = { 'content-type': JSON_TYPE };

/** True when an `If-None-Match` header matches `etag`. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const s = t.trim();
    return s === '*' || s === etag || s === `W/${etag}`;
  });
}

/**
 * The arguments of a PUT's update: If-Match is a strict precondition (412 when the note changed);
 * `base` in the body names the version the text was made from, merged when older
 * (docs/reference/merge.md).
 */
function updateArgs(
  body: { content: string; frontmatter?: Record<string, unknown>; base?: string },
  tag: string | undefined,
): [{ content: string; frontmatter?: Record<string, unknown> }, string | undefined, string | undefined] {
  return [{ content: body.content, frontmatter: body.frontmatter }, tag, body.base];
}

const NOTE_HEADERS = { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-cache' };

/** An answer of `GET /notes/:path` known without the disk: its status, body and own headers. */
export interface IndexedNoteAnswer {
  status: 200 | 304;
  body: Uint8Array<ArrayBuffer> | null;
  headers: Record<string, string>;
}

/**
 * The answer of `GET /notes/:path` that needs neither the disk nor the note service: a cache
 * hit still valid for the index's summary (200, or 304 when `If-None-Match` matches), or a 304
 * from the index's checksum. Null: the note must be read. The route and its hot route
 * (adapters/http/hot.ts) both answer through this, so they cannot disagree.
 */
export function indexedNoteAnswer(
  notes: NoteService,
  cache: NoteCache,
  path: string,
  inm: string | undefined,
): IndexedNoteAnswer | null {
  const summary = notes.indexedSummary(path);
  if (summary === null) return null;
  const hit = cache.get(path);
  if (hit && hit.version === summary) {
    if (inm && noneMatch(inm, hit.etag)) return { status: 304, body: null, headers: { ETag: hit.etag } };
    return { status: 200, body: hit.body, headers: { ...NOTE_HEADERS, ETag: hit.etag } };
  }
  const etag = `"${summary.checksum}"`;
  if (inm && noneMatch(inm, etag)) return { status: 304, body: null, headers: { ETag: etag } };
  return null;
}

/**
 * `/api/v1/notes` routes; `cache` holds the encoded note answers (shared with a runtime's fast
 * lane), or `cacheBytes` bounds a new one.
 */
export function notesRoutes(
  all: NoteService,
  instance: string,
  cacheBytes?: number,
  shared?: NoteCache,
  /** `GET /:path/related` (routes/search.ts): registered before `/:path{.+}`, which would take it. */
  related?: Handler<AppEnv>,
  /** The whole list's answer (adapters/http/list/full-list.ts): plain or in chunks. */
  fullList: FullList = plainFullList(),
) {
  const app = new Hono<AppEnv>();
  const notes = all;
  const scopedLists = new WeakMap<readonly NoteSummary[], EncodedAnswer>();
  // `?format=columns`: encoded once per list version (a scoped key's view keeps its own array).
  const columnLists = new WeakMap<readonly NoteSummary[], Promise<EncodedAnswer>>();
  const serialized = new WeakMap<Note, string>();
  // Answers of `?fields=`/`?limit=` for the current index version, by shape (at most 16 kept).
  // Shared by every key without folder limits (a key limited to folders gets its own page).
  const pages = { generation: -1, byShape: new Map<string, EncodedAnswer>() };
  const cache = shared ?? createNoteCache(cacheBytes);
  const encoder = new TextEncoder();

  const noteBody = (note: Note): string => {
    let s = serialized.get(note);
    if (s === undefined) {
      s = JSON.stringify({ success: true, data: note });
      serialized.set(note, s);
    }
    return s;
  };

  app.get('/', async (c) => {
    // A key limited to folders gets its own list; any other key the shared one (same items).
    const view = limitsFolders(c.get('principal')?.scope) ? viewOf(c).notes : notes;
    const hasQuery = c.req.url.includes('?');
    const current = view.list();
    if (hasQuery && parseListFormat((n) => c.req.query(n)) === 'columns') {
      const etag = `"c-${instance}-${current.generation}"`;
      if (view === notes && noneMatch(c.req.header('if-none-match'), etag)) {
        return sealedResponse(c, 304, null, { ETag: etag });
      }
      let pending = columnLists.get(current.items);
      if (!pending) {
        const items = current.items;
        pending = encodeColumnsAnswer(items).then((identity) => ({ identity }));
        pending.catch(() => columnLists.delete(items));
        columnLists.set(items, pending);
      }
      const answer = await pending;
      if (view !== notes) return sendAnswer(c, answer, { 'Cache-Control': 'no-cache' });
      return sendAnswer(c, answer, { 'Cache-Control': 'no-cache', ETag: etag });
    }
    const query = hasQuery ? parseListQuery((n) => c.req.query(n)) : null;
    if (query) {
      // A key limited to folders: its own page, never the shared encodings or their ETag.
      if (view !== notes) {
        const { data, page } = listPage(current.items, query, () => notes.aliases());
        return sendAnswer(c, encodeAnswer(data, { page }), { 'Cache-Control': 'no-cache' });
      }
      // The same query on the same index version gives the same bytes: a revalidation is a 304.
      const shape = `${query.fields?.join('.') ?? ''}-${query.limit ?? ''}-${query.after === undefined ? '' : encodeCursor(query.after)}`;
      const etag = `"l-${instance}-${current.generation}-${shape}"`;
      if (noneMatch(c.req.header('if-none-match'), etag)) return sealedResponse(c, 304, null, { ETag: etag });
      // Encoded (and compressed) once per index version and shape, for every client that asks.
      if (pages.generation !== current.generation) pages.byShape.clear();
      pages.generation = current.generation;
      let answer = pages.byShape.get(shape);
      if (!answer) {
        const { data, page } = listPage(current.items, query, () => notes.aliases());
        answer = encodeAnswer(data, { page });
        pages.byShape.set(shape, answer);
        if (pages.byShape.size > 16) pages.byShape.delete(pages.byShape.keys().next().value!);
      }
      return sendAnswer(c, answer, { 'Cache-Control': 'no-cache', ETag: etag });
    }
    // A scoped key's list is its own: never the shared compressed list or its ETag.
    if (view !== notes) {
      // Encoded (and compressed) once per scoped list: the view keeps one array per generation.
      let answer = scopedLists.get(current.items);
      if (!answer) {
        answer = encodeAnswer(current.items);
        scopedLists.set(current.items, answer);
      }
      return sendAnswer(c, answer, { 'Cache-Control': 'no-cache' });
    }
    const etag = `"l-${instance}-${current.generation}"`;
    const vary = { Vary: 'Accept-Encoding' };
    if (noneMatch(c.req.header('if-none-match'), etag))
      return sealedResponse(c, 304, null, { ETag: etag, ...vary });
    const headers = { ETag: etag, 'Cache-Control': 'no-cache', ...vary };
    return fullList.send(c, current.generation, () => current.items, headers);
  });

  app.post('/', async (c) => {
    const body = await readJson(c, CreateNoteBody);
    const notes = viewOf(c).notes;
    const note = await notes.withActor(actorOf(c), () =>
      notes.create(body.path, body.content, body.frontmatter),
    );
    return c.body(noteBody(note), 201, { ...JSON_HEADER, ...etagOf(note.checksum) });
  });

  app.post('/:path{.+}/move', async (c) => {
    const body = await readJson(c, MoveNoteBody);
    const notes = viewOf(c).notes;
    const opts = { updateLinks: body.updateLinks ?? false, ifMatch: c.req.header('if-match') };
    const result = await notes.withActor(actorOf(c), () => notes.move(c.req.param('path'), body.path, opts));
    return ok(c, { ...result.note, rewritten: result.rewritten }, 200, etagOf(result.note.checksum));
  });

  // A hit is a map lookup and a write of bytes encoded once per note version; a 304 needs only
  // the index. Both are checked against the index's checksum, so a write or an outside change
  // seen by the watcher is never answered from a stale entry.
  if (related) app.get('/:path{.+\\.md}/related', related);
  app.get('/:path{.+}', async (c) => {
    const path = c.req.param('path');
    const inm = c.req.header('if-none-match');
    const notes = viewOf(c).notes;
    const known = indexedNoteAnswer(notes, cache, path, inm);
    if (known) return sealedResponse(c, known.status, known.body, known.headers);
    const note = await notes.get(path);
    const etag = `"${note.checksum}"`;
    if (inm && noneMatch(inm, etag)) return sealedResponse(c, 304, null, { ETag: etag });
    const body = encoder.encode(noteBody(note));
    const version = notes.indexedSummary(note.path);
    if (version?.checksum === note.checksum) cache.set(note.path, { version, etag, body });
    return sealedResponse(c, 200, body, { ...NOTE_HEADERS, ETag: etag });
  });

  app.put('/:path{.+}', async (c) => {
    const body = await readJson(c, UpdateNoteBody);
    const notes = viewOf(c).notes;
    const args = updateArgs(body, c.req.header('if-match'));
    const note = await notes.withActor(actorOf(c), () => notes.update(c.req.param('path'), ...args));
    return c.body(noteBody(note), 200, { ...JSON_HEADER, ...etagOf(note.checksum) });
  });

  app.delete('/:path{.+}', async (c) => {
    const ifMatch = c.req.header('if-match');
    const notes = viewOf(c).notes;
    const result = await notes.withActor(actorOf(c), () => notes.remove(c.req.param('path'), ifMatch));
    return ok(c, result);
  });

  return app;
}
