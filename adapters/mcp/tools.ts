/**
 * The MCP tools over the note service: the same calls, validation and errors as the REST routes.
 * Each tool's JSON schema is generated from its valibot schema in `core/notes/schemas.ts`.
 */

import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { isDomainError } from '../../core/errors.ts';
import { type KeyNames, noKeyNames } from '../../core/history/author.ts';
import { McpToolInputs } from '../../core/notes/schemas.ts';
import type { PatchOperation } from '../../core/notes/section-patch.ts';
import type { NoteService } from '../../core/notes/service.ts';
import { createRetrieval, type Retrieval } from '../../core/search/retrieval.ts';
import { HISTORY_HANDLERS, HISTORY_TOOLS } from './history-tools.ts';
import { type McpToolResult, toolResult } from './result.ts';

type ToolName = keyof typeof McpToolInputs;

/** One tool as `tools/list` shows it. */
export interface McpToolInfo {
  name: ToolName;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean };
}

const DESCRIPTIONS: Record<ToolName, string> = {
  search_notes:
    'Ranked search over notes (title, aliases, headings, folder and file names, tags, body; by meaning too when the server has semantic search, see mode) and attachments by file name; send the question as asked. ' +
    'Syntax: words (any may match; notes with more of them rank first; typos and the last word as a prefix are tolerated), "exact phrase", -word, a OR b, tag:name, path:folder, file:name. Returns path, title, snippet, score, tags, type ("note", or "file" for an attachment) and the heading of the best passage when known.',
  list_notes:
    'Lists note summaries (path, title, tags, wordCount, updatedAt, checksum) sorted by path, optionally under a folder; page with limit and cursor.',
  read_note: 'Reads one note: content (body), frontmatter, tags, links, backlinks and checksum.',
  get_backlinks: 'The notes that link to a note.',
  list_tags: 'Every tag with the number of notes that carry it.',
  create_note: 'Creates a note at a new path (ending in .md). Fails with NOTE_ALREADY_EXISTS if taken.',
  update_note:
    "Replaces a note's content. Pass the checksum you read as base to have your edit merged with changes made since (nothing is lost: overlaps go to a conflict copy, named in merge.copy), or as ifMatch to fail with PRECONDITION_FAILED instead.",
  patch_note:
    'Edits one part of a note: append, prepend or replace at a heading path, a block (^id), a frontmatter key, or the whole document. Everything else stays byte for byte.',
  move_note: 'Moves or renames a note; with updateLinks, links to it in other notes are rewritten.',
  delete_note:
    'Deletes a note: it moves to the trash (list_trash, restore_from_trash), and its versions stay in the history.',
  list_versions:
    'The kept versions of a note, newest first: id, at, size, checksum, by (who) and change (create, update, patch, move, delete, restore, links, outside).',
  restore_version:
    'Writes a kept version of a note back (itself a new version, so it can be undone). Pass the current checksum as ifMatch.',
  list_trash: 'The deleted notes and files in the trash: id, path, kind, deletedAt, by.',
  restore_from_trash:
    'Restores an item of the trash to its original path, or beside it when that path is taken (never overwrites). Answers the path.',
};

const WRITE: ReadonlySet<ToolName> = new Set([
  'create_note',
  'update_note',
  'patch_note',
  'move_note',
  'delete_note',
  'restore_version',
  'restore_from_trash',
]);

const schemaOf = (s: v.GenericSchema) => {
  const json = toJsonSchema(s, { errorMode: 'ignore' }) as Record<string, unknown>;
  delete json.$schema;
  return json as McpToolInfo['inputSchema'];
};

/**
 * The tools to list: the read tools (unless `read` is off: a key without notes:read), the write
 * tools when `write` is on (MCP_WRITE and the key's notes:write), and the history and trash tools
 * when the server keeps a history (`history`, default on).
 */
export function mcpToolList(write: boolean, history = true, read = true): McpToolInfo[] {
  return (Object.keys(McpToolInputs) as ToolName[])
    .filter((n) => write || !WRITE.has(n))
    .filter((n) => read || WRITE.has(n))
    .filter((n) => history || !(n in HISTORY_TOOLS))
    .map((name) => ({
      name,
      description: DESCRIPTIONS[name],
      inputSchema: schemaOf(McpToolInputs[name]),
      annotations: WRITE.has(name)
        ? { readOnlyHint: false, destructiveHint: name === 'delete_note' || name === 'update_note' }
        : { readOnlyHint: true },
    }));
}

/** A tool error carrying the REST envelope's `{code, message, details?}`. */
export function toolError(code: string, message: string, details?: unknown): McpToolResult {
  const error = details === undefined ? { code, message } : { code, message, details };
  return {
    content: [{ type: 'text', text: JSON.stringify({ error }) }],
    structuredContent: { error },
    isError: true,
  };
}

const noteFields = (n: Awaited<ReturnType<NoteService['get']>>) => ({
  path: n.path,
  title: n.title,
  content: n.content,
  frontmatter: n.frontmatter,
  tags: n.tags,
  links: n.links,
  backlinks: n.backlinks,
  checksum: n.checksum,
  updatedAt: n.updatedAt,
  // A key without notes:read wrote it: the fields above are blank (core/auth/scoped.ts).
  ...('withheld' in n ? { withheld: true } : {}),
  // A write given a base: what merged (core/notes/merge/update.ts).
  ...('merge' in n ? { merge: n.merge } : {}),
});

/** True when `name` is one of the tools (an own name: `constructor` or `__proto__` is not). */
export const isMcpToolName = (name: string): name is ToolName => Object.hasOwn(McpToolInputs, name);

/** Runs tool `name` with `args`; every failure becomes a tool error, never a thrown error. */
export async function callMcpTool(
  notes: NoteService,
  write: boolean,
  name: string,
  args: unknown,
  retrieval: Retrieval = createRetrieval({ notes }),
  by = 'mcp',
  names: KeyNames = noKeyNames,
): Promise<McpToolResult> {
  if (!isMcpToolName(name)) return toolError('NOT_FOUND', `No tool called "${name}".`);
  const tool = name;
  if (WRITE.has(tool) && !write) {
    return toolError('FORBIDDEN', `"${tool}" is a write tool and writes are off on this server (MCP_WRITE).`);
  }
  const parsed = v.safeParse(McpToolInputs[tool], args ?? {});
  if (!parsed.success) {
    const issues = parsed.issues.map((i) => ({ field: v.getDotPath(i) ?? '(input)', message: i.message }));
    return toolError('VALIDATION_ERROR', `Invalid ${issues[0]!.field}: ${issues[0]!.message}`, { issues });
  }
  try {
    return await runTool(tool, parsed.output, { notes, retrieval, by, names });
  } catch (err) {
    if (isDomainError(err)) return toolError(err.code, err.message, err.details);
    return toolError('INTERNAL_ERROR', 'Something went wrong in the server.');
  }
}

/** A tool's input as its valibot schema outputs it. */
type Input<K extends ToolName> = v.InferOutput<(typeof McpToolInputs)[K]>;
/** What every tool runs with. */
interface ToolContext {
  notes: NoteService;
  retrieval: Retrieval;
  /** The `by` of its writes. */
  by: string;
  /** A key's name by its id, for the authors the history tools name. */
  names: KeyNames;
}
type Handlers = { [K in ToolName]: (i: Input<K>, c: ToolContext) => Promise<McpToolResult> };

/** Runs one tool with its validated input: the handler and the input share the tool's type. */
function runTool<K extends ToolName>(tool: K, input: Input<K>, c: ToolContext): Promise<McpToolResult> {
  const handler: Handlers[K] = HANDLERS[tool];
  return handler(input, c);
}

/** A write reads its author when called: `withActor` runs it before its first await. */
const asActor = <T>(c: ToolContext, fn: () => Promise<T>) => c.notes.withActor(c.by, fn);

const HANDLERS: Handlers = {
  search_notes: async (i, c) =>
    toolResult({ results: (await c.retrieval.search(i.query, { limit: i.limit, mode: i.mode })).hits }),
  list_notes: async (i, { notes }) => {
    const folder = (i.folder ?? '').replace(/^\/+|\/+$/g, '');
    const prefix = folder ? `${folder}/` : '';
    const limit = i.limit ?? 100;
    const cursor = i.cursor;
    const items = notes.list().items.filter((n) => n.path.startsWith(prefix) && (!cursor || n.path > cursor));
    const page = items.slice(0, limit).map((n) => ({
      path: n.path,
      title: n.title,
      tags: n.tags,
      wordCount: n.wordCount,
      updatedAt: n.updatedAt,
      checksum: n.checksum,
    }));
    const out: Record<string, unknown> = { notes: page };
    if (items.length > limit) out.nextCursor = page.at(-1)!.path;
    return toolResult(out);
  },
  read_note: async (i, { notes }) => toolResult(noteFields(await notes.get(i.path))),
  get_backlinks: async (i, { notes }) => {
    const n = await notes.get(i.path);
    return toolResult({ path: n.path, backlinks: n.backlinks });
  },
  list_tags: async (_i, { notes }) => toolResult({ tags: notes.tags() }),
  create_note: (i, c) =>
    asActor(c, async () => toolResult(noteFields(await c.notes.create(i.path, i.content)))),
  update_note: (i, c) =>
    asActor(c, async () =>
      toolResult(noteFields(await c.notes.update(i.path, { content: i.content }, i.ifMatch, i.base))),
    ),
  patch_note: (i, c) =>
    asActor(c, async () => {
      const op: PatchOperation = { operation: i.operation, target: i.target, content: i.content };
      return toolResult(noteFields(await c.notes.patch(i.path, op, i.ifMatch)));
    }),
  move_note: (i, c) =>
    asActor(c, async () => {
      const r = await c.notes.move(i.path, i.to, { updateLinks: i.updateLinks ?? false });
      return toolResult({ ...noteFields(r.note), rewritten: r.rewritten });
    }),
  delete_note: (i, c) => asActor(c, async () => toolResult(await c.notes.remove(i.path, i.ifMatch))),
  ...HISTORY_HANDLERS,
};
