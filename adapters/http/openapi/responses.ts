/**
 * What the API answers, as valibot schemas: the `data` of each success envelope. They exist for
 * the OpenAPI document and the typed client (tests/openapi checks real answers against them);
 * request bodies come from the core's own schemas (`core/**\/schemas.ts`).
 */
import * as v from 'valibot';
import { KeyScopeSchema } from '../../../core/auth/scope.ts';

const isoDate = v.pipe(v.string(), v.isoTimestamp());

/** One outgoing link of a note. */
export const NoteLink = v.object({
  target: v.string(),
  path: v.nullable(v.string()),
  kind: v.picklist(['wikilink', 'embed', 'markdown']),
  /**
   * What the link points at: `note`, or `file` for another file of the vault (an image, a PDF:
   * fetch it from `/api/v1/files/{path}`). Unresolved, `file` when the target ends in a known
   * attachment extension.
   */
  type: v.picklist(['note', 'file']),
  /** The heading after `#`; a block reference keeps its caret (`[[Note#^id]]`: `^id`). */
  heading: v.optional(v.string()),
  alias: v.optional(v.string()),
});

const noteSummaryEntries = {
  path: v.string(),
  title: v.string(),
  tags: v.array(v.string()),
  links: v.array(NoteLink),
  backlinks: v.array(v.object({ path: v.string(), title: v.string() })),
  wordCount: v.pipe(v.number(), v.integer(), v.minValue(0)),
  createdAt: isoDate,
  updatedAt: isoDate,
  checksum: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
};

/** An item of `GET /api/v1/notes`. */
export const NoteSummary = v.object(noteSummaryEntries);

/**
 * An item of `GET /api/v1/notes` as `?fields=` may shape it: the summary's fields, plus `aliases`
 * (the frontmatter's `aliases` or `alias`; empty when none) only when `fields` names it.
 */
export const NoteListItem = v.object({ ...noteSummaryEntries, aliases: v.optional(v.array(v.string())) });

/** A whole note: the summary, the body without frontmatter, the parsed frontmatter. */
export const Note = v.object({
  ...noteSummaryEntries,
  content: v.string(),
  frontmatter: v.record(v.string(), v.unknown()),
  warnings: v.optional(v.array(v.string())),
  withheld: v.optional(
    v.pipe(
      v.literal(true),
      v.description(
        'A write by a key without notes:read: every field but the path is blank, the checksum too unless the key gave every byte.',
      ),
    ),
  ),
  merge: v.optional(
    v.pipe(
      v.object({
        base: v.pipe(v.string(), v.description('The checksum the write was made from (the base it named).')),
        baseKnown: v.pipe(
          v.boolean(),
          v.description(
            'False when the history holds no version with that checksum: every change counted as overlap.',
          ),
        ),
        conflicts: v.pipe(
          v.number(),
          v.integer(),
          v.description(
            'Regions (and frontmatter keys) both sides changed differently; 0: every change landed.',
          ),
        ),
        copy: v.optional(
          v.pipe(
            v.string(),
            v.description(
              'The conflict copy holding the written text whole (when conflicts > 0), linked from the note.',
            ),
          ),
        ),
      }),
      v.description(
        'Present when the body named a base: the write was merged with the changes made since (docs/reference/merge.md).',
      ),
    ),
  ),
});

/** The answer of a move: the note at its new path, and the notes whose links were rewritten. */
export const MovedNote = v.object({ ...Note.entries, rewritten: v.array(v.string()) });

/** A note in the folder tree. */
export const TreeNote = v.object({
  name: v.string(),
  path: v.string(),
  type: v.literal('note'),
  title: v.string(),
});

/** An attachment in the folder tree (when the server serves /api/v1/files). */
export const TreeFile = v.object({
  name: v.string(),
  path: v.string(),
  type: v.literal('file'),
  size: v.pipe(v.number(), v.integer(), v.minValue(0)),
  contentType: v.string(),
});

/** A folder and everything below it. */
export interface FolderNodeShape {
  name: string;
  path: string;
  type: 'folder';
  noteCount: number;
  children: (FolderNodeShape | v.InferOutput<typeof TreeNote> | v.InferOutput<typeof TreeFile>)[];
}

/** The folder tree (recursive). */
export const FolderNode: v.GenericSchema<FolderNodeShape> = v.object({
  name: v.string(),
  path: v.string(),
  type: v.literal('folder'),
  noteCount: v.pipe(v.number(), v.integer(), v.minValue(0)),
  children: v.array(v.union([v.lazy(() => FolderNode), TreeNote, TreeFile])),
});

/** One search hit. */
export const SearchHit = v.object({
  path: v.string(),
  title: v.string(),
  snippet: v.string(),
  score: v.number(),
  tags: v.array(v.string()),
  /** 'note', or 'file' for an attachment found by its file name. */
  type: v.pipe(
    v.picklist(['note', 'file']),
    v.description('"note", or "file" for an attachment found by its file name.'),
  ),
  /** The heading of the best passage, when semantic or hybrid search knows it. */
  heading: v.optional(v.string()),
});

/** `{deleted: path}` (notes) or `{deleted: id}` (channels). */
export const Deleted = v.object({ deleted: v.string(), trashId: v.optional(v.string()) });

/** `GET /api/v1/health`. */
export const Health = v.object({
  status: v.picklist(['ok', 'starting']),
  version: v.string(),
  uptimeSeconds: v.pipe(v.number(), v.integer(), v.minValue(0)),
  notes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  index: v.object({
    /** `starting` until the load begins, `indexing` while the vault is checked or read, `ready` once reads are the vault's. */
    state: v.picklist(['starting', 'indexing', 'ready']),
    done: v.pipe(v.number(), v.integer()),
    total: v.pipe(v.number(), v.integer()),
    /** The index's own bytes, estimated: note table, link graph, search index, cached summaries. */
    bytes: v.optional(
      v.object({
        notes: v.pipe(v.number(), v.integer(), v.minValue(0)),
        links: v.pipe(v.number(), v.integer(), v.minValue(0)),
        search: v.pipe(v.number(), v.integer(), v.minValue(0)),
        summaries: v.pipe(v.number(), v.integer(), v.minValue(0)),
        total: v.pipe(v.number(), v.integer(), v.minValue(0)),
      }),
    ),
  }),
  /** Semantic search: `off`, or the background embedding's progress in passages. */
  embeddings: v.union([
    v.object({ state: v.literal('off') }),
    v.object({
      state: v.picklist(['starting', 'embedding', 'ready', 'error']),
      done: v.pipe(v.number(), v.integer(), v.minValue(0)),
      total: v.pipe(v.number(), v.integer(), v.minValue(0)),
    }),
  ]),
  /** History and trash: `off`, or the store's size in bytes, versions and trash items. */
  history: v.optional(
    v.union([
      v.object({ state: v.literal('off') }),
      v.object({
        state: v.literal('on'),
        bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
        versions: v.pipe(v.number(), v.integer(), v.minValue(0)),
        trash: v.pipe(v.number(), v.integer(), v.minValue(0)),
      }),
    ]),
  ),
});

const url = v.pipe(v.string(), v.url());

/** `GET /api/v1/system/setup` (service-interface.md, "Setup payload"). */
export const SetupPayload = v.object({
  serverId: v.string(),
  apiKey: v.string(),
  setupComplete: v.boolean(),
  version: v.string(),
  auth: v.object({ method: v.string(), header: v.literal('X-Service-Key'), note: v.string() }),
  pairing: v.object({
    mode: v.picklist(['relay', 'open-port']),
    relayCode: v.nullable(v.string()),
    relayUrl: v.nullable(url),
  }),
  server: v.object({
    url,
    port: v.pipe(v.number(), v.integer()),
    host: v.string(),
    cors: v.array(v.string()),
  }),
  links: v.object({
    setupApi: url,
    health: url,
    apiBase: url,
    directApiBase: url,
    relayApiBase: v.nullable(url),
    connect: v.object({
      testHostedClient: url,
      hostedClient: url,
      localDevUi: v.optional(url),
    }),
  }),
  instructions: v.optional(v.array(v.string())),
});

/** `GET /api/v1/system/info`. */
export const SystemInfo = v.object({
  version: v.string(),
  runtime: v.object({ name: v.string(), version: v.string() }),
  uptimeSeconds: v.pipe(v.number(), v.integer(), v.minValue(0)),
  notes: v.object({ count: v.number(), bytes: v.number(), index: v.string() }),
  auth: v.object({ mode: v.picklist(['api-key', 'jwt', 'none']), setupComplete: v.boolean() }),
  pairing: v.object({ mode: v.picklist(['relay', 'open-port']), relayUrl: v.nullable(v.string()) }),
  relay: v.object({ state: v.string() }),
});

/** `POST /api/v1/auth/verify`. */
export const Verified = v.object({
  valid: v.literal(true),
  serverId: v.string(),
  setupComplete: v.boolean(),
});

/** `POST /api/v1/auth/link`. */
export const Linked = v.object({ serverId: v.string(), setupComplete: v.literal(true), linkedAt: isoDate });

/** `POST /api/v1/auth/token` (jwt mode). */
export const IssuedToken = v.object({
  token: v.string(),
  tokenType: v.literal('Bearer'),
  expiresAt: isoDate,
});

/** `POST /api/v1/auth/pair-code/rotate`. */
export const PairCode = v.object({ relayCode: v.string(), expiresAt: isoDate });

/** A key as listed: never the secret. */
export const KeyInfo = v.object({
  id: v.string(),
  name: v.string(),
  kind: v.picklist(['first', 'device']),
  prefix: v.string(),
  createdAt: isoDate,
  lastUsedAt: v.nullable(isoDate),
  /** What the key may do (capabilities, folders, excluded folders); null: full access. */
  scope: v.nullable(KeyScopeSchema),
});

/** A minted key: the listing plus the key itself, shown this once. */
export const MintedKey = v.object({
  ...KeyInfo.entries,
  apiKey: v.pipe(v.string(), v.startsWith('quire_sk_')),
});

/** `DELETE /api/v1/auth/keys/:id`. */
export const RevokedKey = v.object({ revoked: v.string() });
