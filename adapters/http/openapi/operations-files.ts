/** The documented operations of the attachments routes (`/api/v1/files`). */
import * as v from 'valibot';
import { MoveFileBody } from '../../../core/files/schemas.ts';
import type { Operation, Param } from './operation.ts';

/** An attachment as the files routes describe it. */
export const FileMeta = v.object({
  path: v.string(),
  size: v.pipe(v.number(), v.integer(), v.minValue(0)),
  updatedAt: v.string(),
  contentType: v.string(),
  etag: v.string(),
});

/** A moved attachment; with `updateLinks`, also the notes whose embeds and links were rewritten. */
export const MovedFile = v.object({
  ...FileMeta.entries,
  rewritten: v.optional(v.array(v.string())),
});

/** Where a new attachment goes. */
export const AttachmentPath = v.object({ folder: v.string(), path: v.string() });

/** `{path, deleted: true}`. */
export const DeletedFile = v.object({ path: v.string(), deleted: v.literal(true) });

const ifMatch: Record<string, Param> = {
  'If-Match': {
    description: "The file's ETag the change is based on; 412 when the file changed since.",
    schema: { type: 'string' },
  },
};

/** Attachments: every file of the vault that is not a note. */
export const files: Operation[] = [
  {
    id: 'attachmentPath',
    method: 'get',
    path: '/api/v1/files/attachment-path',
    tag: 'Files',
    summary: 'Where a new attachment of a note goes (.obsidian/app.json attachmentFolderPath)',
    query: {
      note: {
        description: 'The note the attachment is for (its folder matters for "./").',
        schema: { type: 'string' },
      },
      name: {
        description: 'The file name, e.g. "Pasted image 20240101.png".',
        required: true,
        schema: { type: 'string' },
      },
    },
    data: AttachmentPath,
  },
  {
    id: 'getFile',
    method: 'get',
    path: '/api/v1/files/{path}',
    tag: 'Files',
    summary: 'The bytes of an attachment (Range, If-None-Match, If-Range; HEAD too)',
    description:
      'Content-Type from the extension (never sniffed), ETag, Cache-Control: private, X-Content-Type-Options: nosniff. HTML/XML are sent as attachments under a sandboxing CSP; SVG inline under the same CSP. A `.md` path is 400: notes have their own routes.',
    headers: {
      'If-None-Match': { description: 'An ETag; 304 when it still matches.', schema: { type: 'string' } },
      Range: {
        description: 'One byte range, e.g. bytes=0-1023; 206, or 416 when it cannot be met.',
        schema: { type: 'string' },
      },
    },
    raw: 'file',
    errors: [404, 416],
  },
  {
    id: 'putFile',
    method: 'put',
    path: '/api/v1/files/{path}',
    tag: 'Files',
    summary: 'Upload an attachment (raw body, streamed; 201 created, 200 replaced)',
    description:
      'At most MAX_FILE_BYTES (default 100 MiB); above it 413 and nothing is kept. The replace is atomic.',
    headers: {
      ...ifMatch,
      'If-None-Match': {
        description: '`*` refuses to replace an existing file (412).',
        schema: { type: 'string' },
      },
    },
    rawBody: true,
    status: 201,
    data: FileMeta,
    errors: [412],
  },
  {
    id: 'deleteFile',
    method: 'delete',
    path: '/api/v1/files/{path}',
    tag: 'Files',
    summary: 'Delete an attachment',
    headers: ifMatch,
    data: DeletedFile,
    errors: [404, 412],
  },
  {
    id: 'moveFile',
    method: 'post',
    path: '/api/v1/files/{path}/move',
    tag: 'Files',
    summary:
      'Rename or move an attachment (409 when the target exists); with updateLinks, rewrite the embeds and links to it in every note',
    headers: ifMatch,
    body: MoveFileBody,
    data: MovedFile,
    errors: [404, 409, 412],
  },
];
