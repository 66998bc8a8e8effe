/**
 * The agent's core tools, implemented once over the note service: search, read, create,
 * append, list a folder, backlinks. Every provider (local or LLM) calls these same tools.
 */
import * as v from 'valibot';
import { DomainError } from '../errors.ts';
import type { NoteService } from '../notes/service.ts';
import { tagMatches } from '../notes/tags.ts';
import { stem } from '../paths.ts';
import { readablePassage } from '../search/cite.ts';
import { createRetrieval, type Retrieval } from '../search/retrieval.ts';
import type { AgentTool, Citation, RelatedNote } from './types.ts';

/** Most characters of a note body handed to the model by `read_note`. */
export const READ_LIMIT = 12_000;

const pathField = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(1024));

/** Turns what a model or a person calls a note (path, path without `.md`, title) into its path. */
export function resolveNote(notes: NoteService, ref: string): string {
  const raw = ref
    .trim()
    .replace(/^\[\[|\]\]$/g, '')
    .replace(/^\/+/, '');
  const items = notes.list().items;
  const byPath = new Map(items.map((n) => [n.path, n]));
  for (const p of [raw, `${raw}.md`]) if (byPath.has(p)) return p;
  const want = raw.replace(/\.md$/i, '').toLowerCase();
  const match =
    items.find((n) => n.title.toLowerCase() === want) ??
    items.find((n) => stem(n.path).toLowerCase() === want) ??
    items.find((n) => n.path.toLowerCase() === `${want}.md`);
  if (!match) throw new DomainError('NOTE_NOT_FOUND', `No note called "${ref}".`);
  return match.path;
}

/** Headings of a markdown body, outside code fences. */
export function headingsOf(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) {
      const m = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
      if (m) out.push(`${m[1]} ${m[2]}`);
    }
  }
  return out;
}

const tool = <S extends v.GenericSchema>(t: AgentTool<S>): AgentTool => t as unknown as AgentTool;

/** Most characters of a passage handed to the model by `search_notes`. */
const PASSAGE_LIMIT = 700;

/** One `search_notes` result: the note and its passage that answers best. */
interface SearchResult {
  path: string;
  title: string;
  /** The heading of the passage ('' before the first heading). */
  heading: string;
  /** The passage's text as readable lines (no markup but code spans), cut near PASSAGE_LIMIT characters. */
  passage: string;
  snippet: string;
  tags: string[];
}

/** A note as a related note of a tool's answer: its path and title (the file name when not listed). */
function relatedOf(notes: NoteService, path: string): RelatedNote {
  const n = notes.list().items.find((i) => i.path === path);
  return { path, title: n?.title ?? stem(path) };
}

/** Ranked search over the notes and attachments (`retrieval`, so the agent finds what the search box finds). */
function searchNotesTool(notes: NoteService, retrieval: Retrieval): AgentTool {
  return tool({
    name: 'search_notes',
    description:
      'Ranked search over the notes (title, aliases, headings, folder and file names, tags, body; by meaning too when semantic search is on) and attachments by name. Give a query (a question or keywords), a tag, or both. ' +
      'Syntax: words (any may match; notes with more of them rank first; typos and the last word as a prefix are tolerated), "exact phrase", -word, a OR b, tag:name, path:folder, file:name. Returns for each note its best passage with the heading it sits under: cite answers as path › heading.',
    input: v.object({
      query: v.optional(v.pipe(v.string(), v.maxLength(500))),
      tag: v.optional(v.pipe(v.string(), v.maxLength(200))),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20))),
    }),
    write: false,
    async run({ query, tag, limit = 8 }, ctx) {
      const t = tag?.trim().replace(/^#/, '').toLowerCase();
      const q = query?.trim();
      if (!q && !t) throw new DomainError('VALIDATION_ERROR', 'Give a query or a tag.');
      let results: SearchResult[];
      if (q) {
        const { hits } = await retrieval.search(q, { limit: t ? 100 : limit, hint: ctx.notePath });
        const kept = hits.filter((h) => !t || h.tags.some((x) => tagMatches(x, t))).slice(0, limit);
        const cites = await retrieval.cite(kept, q);
        results = kept.map((h) => {
          const c = cites.find((x) => x.path === h.path);
          const passage = c ? readablePassage(c.text, PASSAGE_LIMIT) : '';
          return {
            path: h.path,
            title: h.title,
            heading: c?.heading ?? h.heading ?? '',
            passage,
            snippet: c?.snippet || h.snippet,
            tags: h.tags,
          };
        });
      } else {
        results = notes
          .list()
          .items.filter((n) => n.tags.some((x) => tagMatches(x, t!)))
          .slice(0, limit)
          .map(({ path, title, tags }) => ({ path, title, heading: '', passage: '', snippet: '', tags }));
      }
      const what = [q && `"${q}"`, t && `tag #${t}`].filter(Boolean).join(' with ');
      const cited: Citation[] = q
        ? results.map(({ path, title, heading }) => ({ path, title, heading }))
        : [];
      return {
        output: { results },
        action: { type: 'search_notes', summary: `Searched ${what}: ${results.length} found.` },
        related: results.map(({ path, title }) => ({ path, title })),
        cited,
      };
    },
  });
}

/** Reads one note by path or title. */
function readNoteTool(notes: NoteService): AgentTool {
  return tool({
    name: 'read_note',
    description: 'Reads one note by path or title: title, tags, headings, links, backlinks and its text.',
    input: v.object({ path: pathField }),
    write: false,
    async run({ path: ref }) {
      const note = await notes.get(resolveNote(notes, ref));
      const truncated = note.content.length > READ_LIMIT;
      return {
        output: {
          path: note.path,
          title: note.title,
          tags: note.tags,
          headings: headingsOf(note.content),
          links: [...new Set(note.links.map((l) => l.path ?? l.target))],
          backlinks: note.backlinks.map((b) => b.path),
          wordCount: note.wordCount,
          updatedAt: note.updatedAt,
          content: truncated ? note.content.slice(0, READ_LIMIT) : note.content,
          truncated,
        },
        action: { type: 'read_note', summary: `Read "${note.title}".`, path: note.path },
        related: [{ path: note.path, title: note.title }],
      };
    },
  });
}

/** Lists a folder's notes and sub-folders. */
function listFolderTool(notes: NoteService): AgentTool {
  return tool({
    name: 'list_folder',
    description: 'Lists the notes and sub-folders of a folder ("" is the vault root).',
    input: v.object({ path: v.optional(v.pipe(v.string(), v.maxLength(1024))) }),
    write: false,
    async run({ path = '' }) {
      const folder = path.trim().replace(/^\/+|\/+$/g, '');
      const tree = notes.tree(folder);
      const entries = tree.children.map((c) =>
        c.type === 'note'
          ? { type: 'note' as const, path: c.path, title: c.title }
          : { type: 'folder' as const, path: c.path, noteCount: c.noteCount },
      );
      const where = folder === '' ? 'the vault root' : `"${folder}"`;
      return {
        output: { folder, noteCount: tree.noteCount, entries },
        action: { type: 'list_folder', summary: `Listed ${where}: ${entries.length} entries.` },
        related: entries.flatMap((e) => (e.type === 'note' ? [{ path: e.path, title: e.title }] : [])),
      };
    },
  });
}

/** The notes that link to a note. */
function backlinksTool(notes: NoteService): AgentTool {
  return tool({
    name: 'backlinks',
    description: 'The notes that link to a note (given by path or title).',
    input: v.object({ path: pathField }),
    write: false,
    async run({ path: ref }) {
      const note = await notes.get(resolveNote(notes, ref));
      const backlinks = note.backlinks.filter((b) => b.path !== note.path);
      return {
        output: { path: note.path, title: note.title, backlinks },
        action: {
          type: 'backlinks',
          summary: `Found ${backlinks.length} note${backlinks.length === 1 ? '' : 's'} linking to "${note.title}".`,
          path: note.path,
        },
        related: [{ path: note.path, title: note.title }, ...backlinks],
      };
    },
  });
}

/** Creates a note (a write tool). */
function createNoteTool(notes: NoteService): AgentTool {
  return tool({
    name: 'create_note',
    description:
      'Creates a new note. path is vault-relative and ends in .md (e.g. "ideas/garden.md"); content is markdown.',
    input: v.object({ path: pathField, content: v.pipe(v.string(), v.maxLength(200_000)) }),
    write: true,
    async run({ path, content }) {
      const target = /\.md$/i.test(path) ? path : `${path}.md`;
      const note = await notes.withActor('agent', () => notes.create(target, content));
      // Withheld (a key without notes:read, core/auth/scoped.ts): the path is all it may learn.
      const title = note.title || stem(note.path);
      return {
        output: { created: note.path, title },
        action: { type: 'create_note', summary: `Created "${title}".`, path: note.path },
        related: ['withheld' in note ? { path: note.path, title } : relatedOf(notes, note.path)],
      };
    },
  });
}

/** Appends to a note (a write tool). */
function appendTool(notes: NoteService): AgentTool {
  return tool({
    name: 'append_to_note',
    description: 'Appends markdown text to the end of an existing note (given by path or title).',
    input: v.object({ path: pathField, text: v.pipe(v.string(), v.minLength(1), v.maxLength(100_000)) }),
    write: true,
    async run({ path: ref, text }) {
      const path = resolveNote(notes, ref);
      const op = { operation: 'append', target: { type: 'document' }, content: text } as const;
      const note = await notes.withActor('agent', () => notes.patch(path, op));
      return {
        output: { appended: note.path, title: note.title, wordCount: note.wordCount },
        action: { type: 'append_to_note', summary: `Appended to "${note.title}".`, path: note.path },
        related: [relatedOf(notes, note.path)],
      };
    },
  });
}

/**
 * The six core tools over `notes` (read tools first, then the write tools). Searches go through
 * `retrieval` (hybrid when embeddings are on), so the agent finds what the search box finds.
 */
export function noteTools(
  notes: NoteService,
  retrieval: Retrieval = createRetrieval({ notes }),
): AgentTool[] {
  return [
    searchNotesTool(notes, retrieval),
    readNoteTool(notes),
    listFolderTool(notes),
    backlinksTool(notes),
    createNoteTool(notes),
    appendTool(notes),
  ];
}
