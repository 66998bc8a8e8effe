/** The documented operations of the system, auth, notes, folders and search routes. */
import * as v from 'valibot';
import { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from '../../../core/schemas.ts';
import { KeyName } from '../routes/auth.ts';
import type { Operation, Param } from './operation.ts';
import * as r from './responses.ts';

const ifMatch: Record<string, Param> = {
  'If-Match': {
    description: 'The checksum the change is based on, quoted; 412 when the note changed since.',
    schema: { type: 'string' },
  },
};
const ifNoneMatch: Record<string, Param> = {
  'If-None-Match': {
    description: 'An ETag from an earlier answer; 304 when nothing changed.',
    schema: { type: 'string' },
  },
};

/** System, setup, auth and the API's own documentation. */
export const system: Operation[] = [
  {
    id: 'health',
    method: 'get',
    path: '/api/v1/health',
    tag: 'System',
    summary: 'Health of the server and its index',
    public: true,
    data: r.Health,
  },
  {
    id: 'setup',
    method: 'get',
    path: '/api/v1/system/setup',
    tag: 'System',
    summary: 'Setup payload: the first key (until setup is complete), pairing and connect links',
    public: true,
    data: r.SetupPayload,
  },
  {
    id: 'systemInfo',
    method: 'get',
    path: '/api/v1/system/info',
    tag: 'System',
    summary: 'Version, runtime, vault size, auth and relay state',
    data: r.SystemInfo,
  },
  {
    id: 'openapi',
    method: 'get',
    path: '/api/v1/openapi.json',
    tag: 'System',
    summary: 'This OpenAPI 3.1 document',
    public: true,
    raw: 'openapi',
  },
  {
    id: 'docs',
    method: 'get',
    path: '/api/v1/docs',
    tag: 'System',
    summary: 'The interactive API reference (HTML)',
    public: true,
    raw: 'html',
  },
  {
    id: 'docsScript',
    method: 'get',
    path: '/api/v1/docs/api-reference.js',
    tag: 'System',
    summary: "The reference page's script, served from this server",
    public: true,
    raw: 'javascript',
    errors: [503],
  },
  {
    id: 'agentToolsGone',
    method: 'get',
    path: '/api/v1/agent/tools',
    tag: 'System',
    summary: 'Retired: use GET /api/v1/agent/status',
    gone: true,
  },
  {
    id: 'foldersGone',
    method: 'post',
    path: '/api/v1/folders',
    tag: 'System',
    summary: 'Retired: use GET /api/v1/folders/tree/{path}',
    gone: true,
  },
  {
    id: 'verifyKey',
    method: 'post',
    path: '/api/v1/auth/verify',
    tag: 'Auth',
    summary: 'Check the key in X-Service-Key',
    public: true,
    keyOnly: true,
    data: r.Verified,
  },
  {
    id: 'link',
    method: 'post',
    path: '/api/v1/auth/link',
    tag: 'Auth',
    summary: 'Mark setup complete (idempotent); the setup payload redacts the key from then on',
    keyOnly: true,
    data: r.Linked,
  },
  {
    id: 'issueToken',
    method: 'post',
    path: '/api/v1/auth/token',
    tag: 'Auth',
    summary: 'Trade the key for a short-lived JWT (jwt mode)',
    keyOnly: true,
    data: r.IssuedToken,
    errors: [403],
  },
  {
    id: 'rotatePairCode',
    method: 'post',
    path: '/api/v1/auth/pair-code/rotate',
    tag: 'Auth',
    summary: 'A new relay pairing code',
    data: r.PairCode,
  },
  {
    id: 'listKeys',
    method: 'get',
    path: '/api/v1/auth/keys',
    tag: 'Auth',
    summary: 'Keys: names, redacted prefixes, created and last used',
    data: v.array(r.KeyInfo),
  },
  {
    id: 'mintKey',
    method: 'post',
    path: '/api/v1/auth/keys',
    tag: 'Auth',
    summary: 'Mint a named device key (shown once)',
    body: KeyName,
    status: 201,
    data: r.MintedKey,
  },
  {
    id: 'revokeKey',
    method: 'delete',
    path: '/api/v1/auth/keys/{id}',
    tag: 'Auth',
    summary: 'Revoke a key',
    data: r.RevokedKey,
    errors: [404],
  },
];

/** Notes, folders and search. */
export const notes: Operation[] = [
  {
    id: 'listNotes',
    method: 'get',
    path: '/api/v1/notes',
    tag: 'Notes',
    summary: 'All note summaries, sorted by path',
    description:
      "Without query parameters: every summary (the spec's answer; other parameters are ignored), `ETag`, " +
      'and `Content-Encoding: br` or `gzip` per `Accept-Encoding` (`Vary: Accept-Encoding`). Beyond the spec: ' +
      '`limit` and `cursor` page through the notes in path order (a note present during the whole walk is ' +
      'listed exactly once, whatever is created or deleted meanwhile), and `fields` keeps only the named ' +
      'fields of each summary; with any of them the envelope also has `page: {limit, nextCursor}` ' +
      '(`nextCursor` is null on the last page).',
    headers: ifNoneMatch,
    query: {
      limit: {
        description: 'Beyond the spec: notes per page, 1 to 1000 (absent: every note from the cursor on).',
        schema: { type: 'integer', minimum: 1, maximum: 1000 },
      },
      cursor: {
        description:
          'Beyond the spec: `page.nextCursor` of the previous page (opaque; base64url of the last path).',
        schema: { type: 'string' },
      },
      fields: {
        description:
          'Beyond the spec: comma-separated summary fields to keep, e.g. `path,title,checksum,updatedAt` ' +
          '(an unknown field: 400 VALIDATION_ERROR). `aliases` may be named too: the aliases of each ' +
          "note's frontmatter (`aliases` or `alias`; an empty array when none), never in the default answer.",
        schema: { type: 'string' },
      },
    },
    data: v.array(r.NoteListItem),
    errors: [400],
  },
  {
    id: 'createNote',
    method: 'post',
    path: '/api/v1/notes',
    tag: 'Notes',
    summary: 'Create a note (never overwrites: 409)',
    body: CreateNoteBody,
    status: 201,
    data: r.Note,
    errors: [409],
  },
  {
    id: 'getNote',
    method: 'get',
    path: '/api/v1/notes/{path}',
    tag: 'Notes',
    summary: 'One note with its body and frontmatter; the ETag is its checksum',
    headers: ifNoneMatch,
    data: r.Note,
    errors: [404],
  },
  {
    id: 'updateNote',
    method: 'put',
    path: '/api/v1/notes/{path}',
    tag: 'Notes',
    summary:
      'Replace a note (the frontmatter block is kept when not given). If-Match is a strict precondition (412 when the note changed); base in the body names the version the text was made from and merges with the changes made since (answer: merge).',
    headers: ifMatch,
    body: UpdateNoteBody,
    data: r.Note,
    errors: [404, 412],
  },
  {
    id: 'deleteNote',
    method: 'delete',
    path: '/api/v1/notes/{path}',
    tag: 'Notes',
    summary: 'Delete a note for good',
    headers: ifMatch,
    data: r.Deleted,
    errors: [404, 412],
  },
  {
    id: 'moveNote',
    method: 'post',
    path: '/api/v1/notes/{path}/move',
    tag: 'Notes',
    summary: 'Rename a note, optionally rewriting links to it',
    headers: ifMatch,
    body: MoveNoteBody,
    data: r.MovedNote,
    errors: [404, 409, 412],
  },
  {
    id: 'folderTree',
    method: 'get',
    path: '/api/v1/folders/tree',
    tag: 'Folders and search',
    summary: 'The folder tree of the vault root',
    data: r.FolderNode,
  },
  {
    id: 'folderSubtree',
    method: 'get',
    path: '/api/v1/folders/tree/{path}',
    tag: 'Folders and search',
    summary: 'The subtree of one folder',
    data: r.FolderNode,
    errors: [404],
  },
  {
    id: 'search',
    method: 'get',
    path: '/api/v1/search',
    tag: 'Folders and search',
    summary: 'Ranked search over notes and attachment names, best first: by words, by meaning, or both',
    description:
      'Any word of `q` may match; notes covering more of the query rank first. Title and aliases, headings, folder and file names, tags and body count, ' +
      'English words by their stem; the last word also matches as a prefix and misspellings are tolerated (1 edit from 4 letters, 2 from 8). ' +
      'Attachments whose file name holds every word are hits with `type: "file"`. Syntax is never an error: what cannot be read as syntax is plain words. ' +
      '`mode`: `lexical` (words), `semantic` (meaning, over passages; needs EMBEDDINGS_URL) or `hybrid` ' +
      '(both, fused by reciprocal rank). Default: `hybrid` when semantic search is on, else `lexical`. The ' +
      'mode that ran is in the `X-Search-Mode` header: `hybrid` answers `lexical` hits when the embeddings ' +
      'provider fails; `semantic` then answers 502 EMBEDDINGS_ERROR. A semantic mode while semantic ' +
      'search is off: 400 VALIDATION_ERROR. See docs/reference/search.md.',
    data: v.array(r.SearchHit),
    query: {
      q: {
        description:
          'A question or words, with optional syntax: `"exact phrase"`, `-word` or `-"phrase"` (exclude), `a OR b`, `tag:name` (and nested tags), `path:folder` (folder prefix), `file:name` (file name contains), each filter negated with a leading `-`. Filters alone list matching notes, latest first.',
        required: true,
        schema: { type: 'string' },
      },
      limit: {
        description: 'Most hits (1-100, default 20).',
        schema: { type: 'integer', minimum: 1, maximum: 100 },
      },
      mode: {
        description:
          'lexical, semantic or hybrid (default: hybrid with embeddings configured, else lexical).',
        schema: { type: 'string', enum: ['lexical', 'semantic', 'hybrid'] },
      },
    },
    errors: [502],
  },
  {
    id: 'relatedNotes',
    method: 'get',
    path: '/api/v1/notes/{path}/related',
    tag: 'Folders and search',
    summary: 'The notes closest to one note, best first',
    description:
      'By meaning (the mean of its passage vectors) when the note is embedded; otherwise by its links, ' +
      'backlinks and the words of its title and tags. The mode used is in `X-Search-Mode`.',
    data: v.array(r.SearchHit),
    query: {
      limit: {
        description: 'Most notes (1-100, default 10).',
        schema: { type: 'integer', minimum: 1, maximum: 100 },
      },
    },
    errors: [404],
  },
];
