import { Hono } from 'hono';
import type { NoteSummary } from '../../../core/note-index.ts';
import type { Note, NoteService } from '../../../core/notes.ts';
import { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from '../../../core/schemas.ts';
import { ok, readJson } from '../envelope.ts';
import type { AppEnv } from '../types.ts';

const JSON_TYPE = { 'content-type': 'application/json; charset=UTF-8' };

/** True when an `If-None-Match` header matches `etag`. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const s = t.trim();
    return s === '*' || s === etag || s === `W/${etag}`;
  });
}

/** `/api/v1/notes` routes. */
export function notesRoutes(notes: NoteService, instance: string) {
  const app = new Hono<AppEnv>();
  const serialized = new WeakMap<Note, string>();
  const summaryJson = new WeakMap<NoteSummary, string>();
  let listCache: { generation: number; body: Uint8Array<ArrayBuffer> } | null = null;
  const encoder = new TextEncoder();

  /** The list body, assembled from per-summary JSON that survives unrelated writes. */
  const listBody = (items: readonly NoteSummary[]): Uint8Array<ArrayBuffer> => {
    const parts = items.map((s) => {
      let j = summaryJson.get(s);
      if (j === undefined) {
        j = JSON.stringify(s);
        summaryJson.set(s, j);
      }
      return j;
    });
    return encoder.encode(`{"success":true,"data":[${parts.join(',')}]}`);
  };

  const noteBody = (note: Note): string => {
    let s = serialized.get(note);
    if (s === undefined) {
      s = JSON.stringify({ success: true, data: note });
      serialized.set(note, s);
    }
    return s;
  };

  app.get('/', (c) => {
    const list = notes.list();
    const etag = `"l-${instance}-${list.generation}"`;
    if (noneMatch(c.req.header('if-none-match'), etag)) return c.body(null, 304, { etag });
    if (listCache?.generation !== list.generation) {
      listCache = { generation: list.generation, body: listBody(list.items) };
    }
    return c.body(listCache.body, 200, { ...JSON_TYPE, etag, 'cache-control': 'no-cache' });
  });

  app.post('/', async (c) => {
    const body = await readJson(c, CreateNoteBody);
    const note = await notes.create(body.path, body.content, body.frontmatter);
    return c.body(noteBody(note), 201, { ...JSON_TYPE, etag: `"${note.checksum}"` });
  });

  app.post('/:path{.+}/move', async (c) => {
    const body = await readJson(c, MoveNoteBody);
    const result = await notes.move(c.req.param('path'), body.path, {
      updateLinks: body.updateLinks ?? false,
      ifMatch: c.req.header('if-match'),
    });
    return ok(c, { ...result.note, rewritten: result.rewritten }, 200, { etag: `"${result.note.checksum}"` });
  });

  app.get('/:path{.+}', async (c) => {
    const note = await notes.get(c.req.param('path'));
    const etag = `"${note.checksum}"`;
    if (noneMatch(c.req.header('if-none-match'), etag)) return c.body(null, 304, { etag });
    return c.body(noteBody(note), 200, { ...JSON_TYPE, etag, 'cache-control': 'no-cache' });
  });

  app.put('/:path{.+}', async (c) => {
    const body = await readJson(c, UpdateNoteBody);
    const note = await notes.update(
      c.req.param('path'),
      { content: body.content, frontmatter: body.frontmatter },
      c.req.header('if-match'),
    );
    return c.body(noteBody(note), 200, { ...JSON_TYPE, etag: `"${note.checksum}"` });
  });

  app.delete('/:path{.+}', async (c) => {
    const result = await notes.remove(c.req.param('path'), c.req.header('if-match'));
    return ok(c, result);
  });

  return app;
}
