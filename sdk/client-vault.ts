/** The client's calls for the vault: notes, their history, the trash, and attachments. */
import type * as v from 'valibot';
import type * as FI from '../adapters/http/openapi/operations-files.ts';
import type * as H from '../adapters/http/openapi/operations-history.ts';
import type * as R from '../adapters/http/openapi/responses.ts';
import type { PatchNoteBody } from '../core/notes/schemas.ts';
import type { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from '../core/schemas.ts';
import type { Call } from './operations.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;
type In<S extends v.GenericSchema> = v.InferInput<S>;

/** The cursor of the page after `path` (what the server's `page.nextCursor` holds). */
export function pageCursor(path: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(path)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `If-Match` for a checksum (quoted as an ETag). */
const ifMatch = (checksum?: string) => (checksum ? { 'if-match': `"${checksum}"` } : undefined);

export const noteCalls = (call: Call) => ({
  list: () => call<Out<typeof R.NoteSummary>[]>('listNotes'),
  /**
   * Beyond the spec: one page of summaries in path order, `fields` only (path is always kept,
   * it makes the cursor; `aliases` may be asked too). Pass the returned `nextCursor` for the
   * next page; null after the last. `limit: null` answers every note from the cursor on.
   */
  page: async <K extends keyof Out<typeof R.NoteListItem>>(
    opts: { limit?: number | null; cursor?: string | null; fields?: readonly K[] } = {},
  ) => {
    const fields = opts.fields ? [...new Set(['path', ...opts.fields])].join(',') : undefined;
    // limit null: every note from the cursor on, in one answer (nextCursor is then null).
    const limit = opts.limit === null ? undefined : (opts.limit ?? 500);
    const query: Record<string, string | number | undefined> = { limit, fields };
    if (opts.cursor) query.cursor = opts.cursor;
    const items = await call<Required<Pick<Out<typeof R.NoteListItem>, K | 'path'>>[]>(
      'listNotes',
      {},
      { query },
    );
    const last = items.at(-1);
    const nextCursor = last && items.length === query.limit ? pageCursor(last.path) : null;
    return { items, nextCursor };
  },
  create: (body: In<typeof CreateNoteBody>) => call<Out<typeof R.Note>>('createNote', {}, { body }),
  get: (path: string) => call<Out<typeof R.Note>>('getNote', { path }),
  /** The notes closest to one note, best first (by meaning when embedded, else by links and words). */
  related: (path: string, limit?: number) =>
    call<Out<typeof R.SearchHit>[]>('relatedNotes', { path }, { query: { limit } }),
  /**
   * With `checksum`, saves only if the note still has it (412 otherwise). With `base` in the body
   * (the checksum the text was made from), a note changed since is merged instead (`merge` in the
   * answer, overlaps in a conflict copy).
   */
  update: (path: string, body: In<typeof UpdateNoteBody>, checksum?: string) =>
    call<Out<typeof R.Note>>('updateNote', { path }, { body, headers: ifMatch(checksum) }),
  remove: (path: string, checksum?: string) =>
    call<Out<typeof R.Deleted>>('deleteNote', { path }, { headers: ifMatch(checksum) }),
  move: (path: string, body: In<typeof MoveNoteBody>, checksum?: string) =>
    call<Out<typeof R.MovedNote>>('moveNote', { path }, { body, headers: ifMatch(checksum) }),
  /** A section PATCH: append, prepend or replace at a heading, block, frontmatter key or the document. */
  patch: (path: string, body: In<typeof PatchNoteBody>, checksum?: string) =>
    call<Out<typeof R.Note>>('patchNote', { path }, { body, headers: ifMatch(checksum) }),
});

export const historyCalls = (call: Call) => ({
  /** A note's kept versions, newest first. */
  list: (path: string) => call<Out<typeof H.VersionItem>[]>('listVersions', { path }),
  /** One version with its content. */
  get: (path: string, id: string) => call<Out<typeof H.VersionContent>>('getVersion', { path, id }),
  /** A unified diff from version `from` (or `current`) to version `id`. */
  diff: (path: string, id: string, from: string) =>
    call<Out<typeof H.VersionDiff>>('getVersion', { path, id }, { query: { diff: from } }),
  /** Writes version `id` back; with `checksum`, only if the note still has it. */
  restore: (path: string, id: string, checksum?: string) =>
    call<{ path: string; checksum: string }>('restoreVersion', { path, id }, { headers: ifMatch(checksum) }),
});

export const trashCalls = (call: Call) => ({
  list: () => call<Out<typeof H.TrashItem>[]>('listTrash'),
  /** Answers where the item was restored (its path, or a new one when that was taken). */
  restore: (id: string) => call<{ path: string }>('restoreFromTrash', { id }),
  remove: (id: string) => call<{ deleted: string }>('deleteFromTrash', { id }),
});

export const fileCalls = (call: Call) => ({
  /**
   * The file's Response (bytes in its body; 206 for a `range` like `bytes=0-99`; 304 when
   * `etag` still matches). Through the relay too; the key never goes into a URL.
   */
  get: (path: string, opts: { range?: string; etag?: string } = {}) =>
    call<Response>(
      'getFile',
      { path },
      {
        rawResponse: true,
        headers: {
          ...(opts.range ? { range: opts.range } : {}),
          ...(opts.etag ? { 'if-none-match': opts.etag } : {}),
        },
      },
    ),
  /** Uploads raw bytes; `ifMatch` an ETag, or `ifNoneMatch: '*'` to never replace a file. */
  put: (
    path: string,
    bytes: Uint8Array | Blob | ReadableStream<Uint8Array>,
    opts: { ifMatch?: string; ifNoneMatch?: string; contentType?: string } = {},
  ) =>
    call<Out<typeof FI.FileMeta>>(
      'putFile',
      { path },
      {
        rawBody: bytes,
        headers: {
          ...(opts.ifMatch ? { 'if-match': opts.ifMatch } : {}),
          ...(opts.ifNoneMatch ? { 'if-none-match': opts.ifNoneMatch } : {}),
          ...(opts.contentType ? { 'content-type': opts.contentType } : {}),
        },
      },
    ),
  remove: (path: string, etag?: string) =>
    call<Out<typeof FI.DeletedFile>>(
      'deleteFile',
      { path },
      { headers: etag ? { 'if-match': etag } : undefined },
    ),
  /** With `updateLinks`, the embeds and links to the file in notes are rewritten (`rewritten`). */
  move: (path: string, to: string, etag?: string, opts: { updateLinks?: boolean } = {}) =>
    call<Out<typeof FI.MovedFile>>(
      'moveFile',
      { path },
      {
        body: opts.updateLinks === undefined ? { path: to } : { path: to, updateLinks: opts.updateLinks },
        headers: etag ? { 'if-match': etag } : undefined,
      },
    ),
  /** Where a new attachment `name` of `note` goes (Obsidian's attachmentFolderPath), first free path. */
  attachmentPath: (name: string, note?: string) =>
    call<Out<typeof FI.AttachmentPath>>('attachmentPath', {}, { query: { name, note } }),
});
