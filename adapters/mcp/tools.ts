/**
 * The MCP tools over the note service: the same calls, validation and errors as the REST routes.
 * Each tool's JSON schema is generated from its valibot schema in `core/notes/schemas.ts`.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { DomainError, isDomainError } from '../../core/errors.ts';
import { McpToolInputs } from '../../core/notes/schemas.ts';
import type { PatchOperation } from '../../core/notes/section-patch.ts';
import type { NoteService } from '../../core/notes/service.ts';
import { createRetrieval, type Retrieval } from '../../core/search/retrieval.ts';
import { HISTORY_TOOLS, runHistoryTool } from './history-tools.ts';
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
    "Replaces a note's content. Pass the checksum you read as ifMatch to fail with PRECONDITION_FAILED instead of overwriting a newer version.",
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
): Promise<McpToolResult> {
  if (!isMcpToolName(name)) return toolError('NOT_FOUND', `No tool called "${name}".`);
  const tool = name as ToolName;
  if (WRITE.has(tool) && !write) {
    return toolError('FORBIDDEN', `"${tool}" is a write tool and writes are off on this server (MCP_WRITE).`);
  }
  const parsed = v.safeParse(McpToolInputs[tool], args ?? {});
  if (!parsed.success) {
    const issues = parsed.issues.map((i) => ({ field: v.getDotPath(i) ?? '(input)', message: i.message }));
    return toolError('VALIDATION_ERROR', `Invalid ${issues[0]!.field}: ${issues[0]!.message}`, { issues });
  }
  try {
    const input = parsed.output as Record<string, never>;
    if (tool in HISTORY_TOOLS)
      return await runHistoryTool(notes, tool as keyof typeof HISTORY_TOOLS, input, by);
    // A write reads its author when called: `run` calls it before its first await.
    return await notes.withActor(by, () => run(notes, retrieval, tool, input));
  } catch (err) {
    if (isDomainError(err)) return toolError(err.code, err.message, err.details);
    return toolError('INTERNAL_ERROR', 'Something went wrong in the server.');
  }
}

async function run(
  notes: NoteService,
  retrieval: Retrieval,
  tool: ToolName,
  a: Record<string, never>,
): Promise<McpToolResult> {
  const i = a as Record<string, unknown>;
  switch (tool) {
    case 'search_notes':
      return toolResult({
        results: (await retrieval.search(i.query, { limit: i.limit, mode: i.mode })).hits,
      });
    case 'list_notes': {
      const folder = String(i.folder ?? '').replace(/^\/+|\/+$/g, '');
      const prefix = folder ? `${folder}/` : '';
      const limit = (i.limit as number | undefined) ?? 100;
      const cursor = i.cursor as string | undefined;
      const items = notes
        .list()
        .items.filter((n) => n.path.startsWith(prefix) && (!cursor || n.path > cursor));
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
    }
    case 'read_note':
      return toolResult(noteFields(await notes.get(i.path)));
    case 'get_backlinks': {
      const n = await notes.get(i.path);
      return toolResult({ path: n.path, backlinks: n.backlinks });
    }
    case 'list_tags':
      return toolResult({ tags: notes.tags() });
    case 'create_note':
      return toolResult(noteFields(await notes.create(i.path, i.content as string)));
    case 'update_note':
      return toolResult(
        noteFields(
          await notes.update(i.path, { content: i.content as string }, i.ifMatch as string | undefined),
        ),
      );
    case 'patch_note': {
      const op = { operation: i.operation, target: i.target, content: i.content } as PatchOperation;
      return toolResult(noteFields(await notes.patch(i.path, op, i.ifMatch as string | undefined)));
    }
    case 'move_note': {
      const r = await notes.move(i.path, i.to, {
        updateLinks: (i.updateLinks as boolean | undefined) ?? false,
      });
      return toolResult({ ...noteFields(r.note), rewritten: r.rewritten });
    }
    case 'delete_note':
      return toolResult(await notes.remove(i.path, i.ifMatch as string | undefined));
    default:
      throw new DomainError('NOT_FOUND', `No tool called "${tool}".`);
  }
}
