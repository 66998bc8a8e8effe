/**
 * Scoped views: the note service, the files service, the retrieval and the change feed
 * as one principal may see them. A view has the service's own shape, so a route, the MCP server
 * or the agent takes the view instead of the service and needs no check of its own; for a
 * principal with full access the view IS the service (no cost, every fast path unchanged).
 *
 * What a view hides does not exist for its principal: lists, the folder tree, tags and their
 * counts, search hits and snippets, backlinks and the change feed leave it out; links resolve
 * among the notes it sees (a hidden note neither wins a name nor shows; none left: unresolved);
 * a read of a hidden path is the 404 a missing one gets. Writes need the capability
 * (notes:write, files:write) and a path inside the folders, else 403.
 *
 * A key that may write notes but not read them learns nothing by writing (`withheld`): a write
 * answers the path alone, with the checksum only when the key supplied every byte written (a
 * create, a PUT carrying its frontmatter); a 412 leaves out the current checksum; a PATCH that
 * must find something in the note (a heading, block or frontmatter key) needs notes:read too.
 */
import { DomainError } from '../errors.ts';
import { validateFilePath } from '../files/paths.ts';
import type { FileService } from '../files/service.ts';
import type { FeedEvent, FeedPage } from '../notes/change-feed.ts';
import type { Note } from '../notes/context.ts';
import { FRONTMATTER } from '../notes/markdown/parts.ts';
import type { MergeInfo, WrittenNote } from '../notes/merge/update.ts';
import type { NoteSummary } from '../notes/note-index.ts';
import type { NoteService } from '../notes/service.ts';
import { countTags, type TagCount } from '../notes/tags.ts';
import { type FolderNode, folderTree } from '../notes/tree.ts';
import { validateFolderPath, validateNotePath } from '../paths.ts';
import type { Principal } from '../ports.ts';
import type { Retrieval, RetrievalHit } from '../search/retrieval.ts';
import { folderShown, limitsFolders, requireCap, requireWrite } from './access.ts';
import { hasCapability, inScope, type KeyScope } from './scope.ts';

/** Views already built, per service and scope object (a key's scope is one object while it lives). */
const views = new WeakMap<object, WeakMap<KeyScope, unknown>>();
function memo<S extends object, V>(service: S, scope: KeyScope, build: () => V): V {
  let per = views.get(service);
  if (!per) {
    per = new WeakMap();
    views.set(service, per);
  }
  let v = per.get(scope) as V | undefined;
  if (v === undefined) {
    v = build();
    per.set(scope, v);
  }
  return v;
}

/** A note a key without notes:read wrote: what it may learn of it (see the head of this file). */
export type WithheldNote = Note & { withheld: true };

/**
 * `note` as a key without notes:read gets it back from a write: its path, and its checksum when
 * `supplied` (the key gave every byte written); no content, frontmatter, title, tags, links,
 * backlinks, counts or times.
 */
export function withheld(note: Note, supplied: boolean): WithheldNote {
  return {
    path: note.path,
    title: '',
    tags: [],
    links: [],
    backlinks: [],
    wordCount: 0,
    createdAt: '',
    updatedAt: '',
    checksum: supplied ? note.checksum : '',
    content: '',
    frontmatter: {},
    withheld: true,
  };
}

/** `withheld`, keeping what a merge did (its counts and the copy's path, never content). */
function withheldMerge(note: WrittenNote, supplied: boolean): WithheldNote & { merge?: MergeInfo } {
  if (!note.merge) return withheld(note, supplied);
  return { ...withheld(note, false), merge: note.merge };
}

/** An error a key without notes:read may see: a 412 without the current checksum. */
function withheldError(err: unknown): unknown {
  if (err instanceof DomainError && err.code === 'PRECONDITION_FAILED' && err.details !== undefined)
    return new DomainError('PRECONDITION_FAILED', err.message);
  return err;
}

/** The folder tree under `folder` as `scope` sees it (FOLDER_NOT_FOUND for a hidden folder). */
export function scopedTree(notes: NoteService, scope: KeyScope, folderInput: unknown): FolderNode {
  const folder = validateFolderPath(folderInput);
  if (!folderShown(scope, folder)) throw new DomainError('FOLDER_NOT_FOUND', `No folder at "${folder}".`);
  const items = notes.list().items.filter((n) => inScope(scope, n.path));
  const titles = new Map(items.map((n) => [n.path, n.title]));
  const full = notes.tree('');
  const folders = new Set<string>();
  const walk = (n: FolderNode) => {
    if (n.path !== '' && folderShown(scope, n.path)) folders.add(n.path);
    for (const c of n.children) if (c.type === 'folder') walk(c);
  };
  walk(full);
  return folderTree(
    { folders, sortedPaths: () => items.map((n) => n.path), titleOf: (p) => titles.get(p) ?? p },
    folder,
  );
}

/**
 * The note service as `principal` sees it: the service itself for full access; otherwise a view
 * that checks capabilities on writes and, for a folder scope, hides every path outside it.
 */
export function scopedNotes(notes: NoteService, principal: Principal | undefined): NoteService {
  const scope = principal?.scope;
  if (scope === undefined) return notes;
  return memo(notes, scope, () => buildNotesView(notes, principal!, scope));
}

/** Runs `check` then `run`; a refusal is a rejected promise, like the services' own errors. */
function guarded<T>(check: () => void, run: () => Promise<T>): Promise<T> {
  try {
    check();
  } catch (err) {
    return Promise.reject(err);
  }
  // Called at once (not after an await): a write reads its actor when it is called.
  return run();
}

function buildNotesView(notes: NoteService, p: Principal, scope: KeyScope): NoteService {
  const folders = limitsFolders(scope);
  const canRead = hasCapability(scope, 'notes:read');
  const see = (path: string) => inScope(scope, path);
  const notFound = (path: string) => new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
  const readable = (pathInput: unknown): string => {
    requireCap(p, 'notes:read');
    const path = validateNotePath(pathInput);
    if (!see(path)) throw notFound(path);
    return path;
  };
  const seen = <T extends NoteSummary>(n: T): T => (folders ? notes.seenAs(n, see) : n);
  let list: { generation: number; items: NoteSummary[] } | null = null;
  let tags: { generation: number; items: TagCount[] } | null = null;
  let trees: { generation: number; byFolder: Map<string, FolderNode> } = {
    generation: -1,
    byFolder: new Map(),
  };

  const view: NoteService = {
    ...notes,
    indexedSummary(path) {
      // A view never feeds the shared note cache: its answers differ from the full ones.
      if (folders || !canRead) return null;
      return notes.indexedSummary(path);
    },
    checksumOf: (path) => (canRead && see(path) ? notes.checksumOf(path) : null),
    list() {
      requireCap(p, 'notes:read');
      const full = notes.list();
      if (!folders) return full;
      if (list?.generation !== full.generation) {
        list = {
          generation: full.generation,
          items: full.items.filter((n) => see(n.path)).map((n) => notes.seenAs(n, see)),
        };
      }
      return list;
    },
    tags() {
      requireCap(p, 'notes:read');
      if (!folders) return notes.tags();
      const cur = view.list();
      if (tags?.generation !== cur.generation)
        tags = { generation: cur.generation, items: countTags(cur.items) };
      return tags.items;
    },
    tree(folderInput) {
      requireCap(p, 'notes:read');
      if (!folders) return notes.tree(folderInput);
      // Built once per index generation and folder (the full tree is too).
      const generation = notes.list().generation;
      if (trees.generation !== generation) trees = { generation, byFolder: new Map() };
      const key = typeof folderInput === 'string' ? folderInput : '';
      let t = typeof folderInput === 'string' ? trees.byFolder.get(key) : undefined;
      if (!t) {
        t = scopedTree(notes, scope, folderInput);
        if (typeof folderInput === 'string' && trees.byFolder.size < 256) trees.byFolder.set(key, t);
      }
      return t;
    },
    raw: (pathInput) =>
      guarded(
        () => readable(pathInput),
        () => notes.raw(pathInput),
      ),
    async get(pathInput) {
      const path = readable(pathInput);
      return seen(await notes.get(path));
    },
    async search(q, limit) {
      requireCap(p, 'notes:read');
      if (!folders) return notes.search(q, limit);
      // Hidden notes are skipped before ranking and count in no statistic: the answer (paths,
      // order, scores) is what a vault holding only the visible notes gives.
      return notes.search(q, limit, { see });
    },
    subscribe(fn) {
      return notes.subscribe((e) => {
        const scoped = scopedNoteEvent(scope, e);
        if (scoped) fn(scoped);
      });
    },
    ...notesWrites(notes, p, scope),
    history: notes.history ? scopedHistory(notes.history, p, scope) : null,
  };
  return view;
}

type NoteWrites = Pick<
  NoteService,
  'create' | 'update' | 'patch' | 'remove' | 'move' | 'moveFile' | 'restore'
>;

/**
 * The writes of a notes view: the capability and the folders checked first; the answer as the key
 * sees it, or withheld for a key without notes:read (see the head of this file).
 */
function notesWrites(notes: NoteService, p: Principal, scope: KeyScope): NoteWrites {
  const folders = limitsFolders(scope);
  const canRead = hasCapability(scope, 'notes:read');
  const see = (path: string) => inScope(scope, path);
  const writable = (pathInput: unknown): void => {
    requireCap(p, 'notes:write');
    if (typeof pathInput === 'string') requireWrite(p, 'notes:write', validateNotePathOrRaw(pathInput));
  };
  const seen = <T extends NoteSummary>(n: T): T => (folders ? notes.seenAs(n, see) : n);
  /** What a write answers: the note as the key sees it, or withheld without notes:read. */
  const wrote = <T>(run: () => Promise<T>, answer: (r: T) => T): Promise<T> => {
    const out = run();
    return canRead ? out.then(answer) : out.then(answer, (err) => Promise.reject(withheldError(err)));
  };
  const note = (supplied: boolean) => (n: Note) => (canRead ? seen(n) : withheld(n, supplied));
  return {
    create: (pathInput, content, frontmatter) =>
      guarded(
        () => writable(pathInput),
        // Every byte is the key's own: the checksum tells it nothing new.
        () => wrote(() => notes.create(pathInput, content, frontmatter), note(true)),
      ),
    update: (pathInput, input, ifMatch, base) =>
      guarded(
        () => writable(pathInput),
        // Without a frontmatter of its own the note's block is kept: bytes the key never gave. A
        // merged write holds others' bytes too: its answer says what merged, never the checksum.
        () =>
          wrote(
            () => notes.update(pathInput, input, ifMatch, base),
            (n) => (canRead ? seen(n) : withheldMerge(n, suppliesAll(input))),
          ),
      ),
    patch: (pathInput, op, ifMatch) =>
      guarded(
        () => {
          writable(pathInput);
          // Finding a heading, block or key (or failing to) tells what the note holds.
          if (!canRead && (op as { target?: { type?: unknown } } | undefined)?.target?.type !== 'document')
            requireCap(p, 'notes:read');
        },
        () => wrote(() => notes.patch(pathInput, op, ifMatch), note(false)),
      ),
    remove: (pathInput, ifMatch) =>
      guarded(
        () => writable(pathInput),
        () =>
          wrote(
            () => notes.remove(pathInput, ifMatch),
            (r) => r,
          ),
      ),
    move: (from, to, opts) =>
      guarded(
        () => {
          writable(from);
          writable(to);
        },
        () =>
          // Links in notes the key cannot see are never rewritten (a write outside its folders);
          // there they now point at a note that moved away, as after a move by another tool.
          // Without notes:read the rewritten notes stay unnamed: they are the note's backlinks.
          wrote(
            () => notes.move(from, to, { ...opts, rewriteOnly: see }),
            (r) =>
              canRead ? { ...r, note: seen(r.note) } : { note: withheld(r.note, false), rewritten: [] },
          ),
      ),
    moveFile: (from, to, move, opts) =>
      guarded(
        () => {
          requireCap(p, 'files:write');
          for (const x of [from, to])
            if (typeof x === 'string') requireWrite(p, 'files:write', validateFilePath(x));
        },
        () => notes.moveFile(from, to, move, { ...opts, rewriteOnly: see }),
      ),
    restore: (pathInput, bytes, opts) =>
      guarded(
        () => writable(pathInput),
        () =>
          wrote(
            () => notes.restore(pathInput, bytes, opts),
            (r) => ({ ...r, note: note(false)(r.note) }),
          ),
      ),
  };
}

/** True when an update gives every byte it writes (a frontmatter of its own, or none kept). */
function suppliesAll(input: { content: string; frontmatter?: unknown }): boolean {
  return (
    input.frontmatter !== undefined || (typeof input.content === 'string' && FRONTMATTER.test(input.content))
  );
}

/** A note path validated as the service would (so `a/../b` cannot dodge the folder check). */
function validateNotePathOrRaw(input: string): string {
  try {
    return validateNotePath(input);
  } catch {
    // Not a note path: the service answers its own validation error after the capability check.
    return input;
  }
}

type History = NonNullable<NoteService['history']>;

/** The history and trash as `scope` sees them: hidden paths have no versions and no trash items. */
function scopedHistory(h: History, p: Principal, scope: KeyScope): History {
  const see = (path: string) => inScope(scope, path);
  const noItem = (id: string) => new DomainError('NOT_FOUND', `No item "${id}" in the trash.`);
  return {
    ...h,
    paths: () => {
      requireCap(p, 'notes:read');
      return h.paths().filter(see);
    },
    list: (path) => {
      requireCap(p, 'notes:read');
      return see(path) ? h.list(path) : [];
    },
    get: (path, id) => {
      requireCap(p, 'notes:read');
      if (!see(path)) return Promise.reject(new DomainError('NOT_FOUND', `No version "${id}" of "${path}".`));
      return h.get(path, id);
    },
    listTrash: () => {
      requireCap(p, 'notes:read');
      return h.listTrash().filter((i) => see(i.path));
    },
    trashed: async (id) => {
      const item = await h.trashed(id);
      if (!see(item.path)) throw noItem(id);
      requireCap(p, item.kind === 'file' ? 'files:read' : 'notes:read');
      return item;
    },
    untrash: async (id) => {
      const item = h.listTrash().find((i) => i.id === id);
      if (!item || !see(item.path)) return false;
      requireWrite(p, item.kind === 'file' ? 'files:write' : 'notes:write', item.path);
      return h.untrash(id);
    },
  };
}

/** A note event as `scope` sees it: a move across the border reads as a create or a delete. */
export function scopedNoteEvent<E extends { type: string; path: string; from?: string; external: boolean }>(
  scope: KeyScope,
  e: E,
): E | null {
  const inNow = inScope(scope, e.path);
  if (e.type !== 'moved' || e.from === undefined) return inNow ? e : null;
  const inBefore = inScope(scope, e.from);
  if (inNow && inBefore) return e;
  if (inNow) {
    const { from: _, ...rest } = e;
    return { ...rest, type: 'created' } as unknown as E;
  }
  if (inBefore) return { type: 'deleted', path: e.from, external: e.external } as unknown as E;
  return null;
}

/** A change-feed event as `scope` sees it (null: hidden), with the same move rules. */
export function scopedFeedEvent(scope: KeyScope | undefined, e: FeedEvent): FeedEvent | null {
  if (!limitsFolders(scope)) return e;
  const d = e.data;
  const inNow = inScope(scope, d.path);
  if (e.type !== 'note.moved' || d.from === undefined) return inNow ? e : null;
  const inBefore = inScope(scope, d.from);
  if (inNow && inBefore) return e;
  if (inNow) {
    const { from: _, ...data } = d;
    return { id: e.id, type: 'note.created', data };
  }
  if (inBefore) return { id: e.id, type: 'note.deleted', data: { path: d.from, external: d.external } };
  return null;
}

/** A feed page as `scope` sees it. */
export function scopedFeedPage(scope: KeyScope | undefined, page: FeedPage): FeedPage {
  if (!limitsFolders(scope)) return page;
  const events = page.events.map((e) => scopedFeedEvent(scope, e)).filter((e) => e !== null);
  return { ...page, events };
}

/** The attachments service as `principal` sees it. */
export function scopedFiles(files: FileService, principal: Principal | undefined): FileService {
  const scope = principal?.scope;
  if (scope === undefined) return files;
  return memo(files, scope, () => buildFilesView(files, principal!, scope));
}

function buildFilesView(files: FileService, p: Principal, scope: KeyScope): FileService {
  const see = (path: string) => inScope(scope, path);
  const readable = (pathInput: unknown): string => {
    requireCap(p, 'files:read');
    const path = validateFilePath(pathInput);
    if (!see(path)) throw new DomainError('FILE_NOT_FOUND', `No file at "${path}".`);
    return path;
  };
  const writable = (pathInput: unknown) => {
    requireCap(p, 'files:write');
    if (typeof pathInput === 'string') {
      let path = pathInput;
      try {
        path = validateFilePath(pathInput);
      } catch {}
      requireWrite(p, 'files:write', path);
    }
  };
  return {
    ...files,
    stat: (pathInput) => Promise.resolve().then(() => files.stat(readable(pathInput))),
    read: (pathInput, range) => Promise.resolve().then(() => files.read(readable(pathInput), range)),
    put: (pathInput, body, opts) =>
      guarded(
        () => writable(pathInput),
        () => files.put(pathInput, body, opts),
      ),
    remove: (pathInput, ifMatch, by) =>
      guarded(
        () => writable(pathInput),
        () => files.remove(pathInput, ifMatch, by),
      ),
    restore: (pathInput, bytes, by) =>
      guarded(
        () => writable(pathInput),
        () => files.restore(pathInput, bytes, by),
      ),
    move: (from, to, ifMatch) =>
      guarded(
        () => {
          writable(from);
          writable(to);
        },
        () => files.move(from, to, ifMatch),
      ),
    list: async () => {
      // Listing attachments only names them: with files:read, or in the folder tree for notes:read.
      return (await files.list()).filter((f) => see(f.path));
    },
    attachmentPath: async (note, name) => {
      // A read (GET, files:read): where an upload for `note` would go; never a hidden folder.
      requireCap(p, 'files:read');
      const r = await files.attachmentPath(note, name);
      if (!see(r.path))
        throw new DomainError('FORBIDDEN', `Forbidden: "${r.path}" is outside this key's folders.`);
      return r;
    },
  };
}

/** The retrieval (search, related, citations) as `principal` sees it. */
export function scopedRetrieval(retrieval: Retrieval, principal: Principal | undefined): Retrieval {
  const scope = principal?.scope;
  if (scope === undefined) return retrieval;
  return memo(retrieval, scope, () => {
    const p = principal!;
    const folders = limitsFolders(scope);
    const see = (h: { path: string }) => inScope(scope, h.path);
    /** One function per view: the search index caches the visible set per function. */
    const seePath = (path: string) => inScope(scope, path);
    return {
      ...retrieval,
      async search(q, opts = {}) {
        requireCap(p, 'notes:read');
        if (!folders) return retrieval.search(q, opts);
        // Checked at the edge (core/search/schemas.ts); hidden notes are never candidates and count in no
        // statistic (lexical, semantic and their fusion rank as over the visible notes alone).
        return retrieval.search(q, { ...opts, see: seePath });
      },
      async related(path, limit) {
        requireCap(p, 'notes:read');
        if (!folders) return retrieval.related(path, limit);
        const valid = validateNotePath(path);
        if (!inScope(scope, valid)) throw new DomainError('NOTE_NOT_FOUND', `No note at "${valid}".`);
        return retrieval.related(valid, limit, seePath);
      },
      cite: (hits: RetrievalHit[], q: string) => retrieval.cite(folders ? hits.filter(see) : hits, q),
    };
  });
}
