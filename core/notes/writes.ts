/** The note writes: create, update, remove and move (with link rewriting). Serialized by the mutex. */
import { stringify as stringifyYaml } from 'yaml';
import { sha256Hex } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { validateFilePath } from '../files/paths.ts';
import type { ChangeKind } from '../history/codec.ts';
import { basename, validateNotePath } from '../paths.ts';
import { decode, type Note, type NoteContext } from './context.ts';
import { freePath } from './free-path.ts';
import { checkFrontmatterLimits, checkFrontmatterReadsBack } from './frontmatter-check.ts';
import { checkIfMatch } from './if-match.ts';
import { rewriteLinksYielding } from './link-rewrite.ts';
import { splitFrontmatter } from './markdown/parts.ts';
import { mergingUpdate, type WrittenNote } from './merge/update.ts';
import type { PatchOperation } from './section-patch.ts';
import { yieldToEventLoop } from './slices.ts';

const encoder = new TextEncoder();

/**
 * The section PATCH, loaded on its first use: it parses with unified and micromark (and writes
 * YAML), which no other request needs, and a start that loads them before it listens is later.
 */
const sectionPatch = () => import('./section-patch.ts');

/**
 * `text` with one section PATCH applied. Called under the note's lock (the parser loads there),
 * so writes keep the order they were asked in.
 */
async function patched(text: string, op: PatchOperation): Promise<string> {
  return (await sectionPatch()).applySectionPatch(text, op);
}

/** Lets timers and requests run between long steps (a macrotask, not a microtask). */

/** Composes the file text from a body, optional frontmatter, and the block to keep. */
function compose(content: string, frontmatter: unknown, keepBlock: string): string {
  const hasOwn = splitFrontmatter(content).block !== '';
  if (frontmatter !== undefined) {
    if (hasOwn) {
      throw new DomainError(
        'VALIDATION_ERROR',
        'Give the frontmatter either inside "content" or in "frontmatter", not both.',
      );
    }
    const fm = frontmatter as Record<string, unknown>;
    // Cheap limits first: the YAML below, and reading it back, cost seconds for a huge value.
    checkFrontmatterLimits(fm, 'The frontmatter');
    if (!Object.keys(fm).length) return content;
    const text = `---\n${stringifyYaml(fm)}---\n${content}`;
    checkFrontmatterReadsBack(text);
    return text;
  }
  return hasOwn ? content : keepBlock + content;
}

/** The note at `path` as it is on disk, with its checksum; NOTE_NOT_FOUND when there is none. */
async function readCurrent(ctx: NoteContext, path: string): Promise<{ bytes: Uint8Array; checksum: string }> {
  const bytes = await ctx.store.read(path);
  if (!bytes) throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
  return { bytes, checksum: await sha256Hex(bytes) };
}

/**
 * Writes and indexes `text`; with `change`, keeps the new bytes as a version by `by`. The
 * version is appended while the note is written (one durable wait, not two: history may add
 * under 1 ms to a write). The bytes being replaced are already in the history (`keepBefore`,
 * called first), so a crash between the two leaves either the old note with its history (and
 * perhaps a version that never reached the vault) or the new note with the old one in history.
 */
async function writeAndIndex(
  ctx: NoteContext,
  path: string,
  text: string,
  change?: { by: string; kind: ChangeKind },
  bytes: Uint8Array = encoder.encode(text),
): Promise<Note> {
  const { history } = ctx;
  const writing = ctx.store.write(path, bytes);
  // Handled below by Promise.all; this keeps a failure during the hash from being "unhandled".
  writing.catch(() => {});
  const sum = await sha256Hex(bytes);
  // Lazy: the vault write beside it makes these bytes durable (history.ts, the journal queue).
  const keeping = history && change ? history.record(path, bytes, change.by, change.kind, sum, true) : null;
  keeping?.catch(() => {});
  const [info] = await Promise.all([writing, keeping]);
  const entry = await ctx.indexText(path, text, sum, info);
  const note = ctx.buildNote(entry, text);
  ctx.cacheNote(note);
  return note;
}

/** A note a move rewrites: its new text, and its bytes before (kept in the history first). */
interface RewritePlan {
  path: string;
  text: string;
  before: Uint8Array;
}

/**
 * The new texts of the notes whose links point at `from` (a note or a file), rewritten to point
 * at `to`, planned against the link graph as it is before the move. Holds no lock: call it
 * holding the mutex.
 */
async function planRewrites(
  ctx: NoteContext,
  from: string,
  to: string,
  nameIsUnique: boolean,
  only: (path: string) => boolean = () => true,
): Promise<RewritePlan[]> {
  const graph = ctx.index.graph;
  const plans: RewritePlan[] = [];
  const sources = graph.backlinksOf(from).filter((p) => p !== from && only(p));
  for (const src of sources) {
    const bytes = await ctx.store.read(src);
    if (!bytes) continue;
    const text = decode(bytes);
    const links = (await ctx.analyzeOne(text)).links;
    await yieldToEventLoop();
    // Resolution depends only on the link's target and kind: resolve each distinct one once.
    const verdicts = new Map<string, boolean>();
    const points = (l: { target: string; kind: string }) => {
      const key = `${l.kind}\u0000${l.target}`;
      let v = verdicts.get(key);
      if (v === undefined) {
        v = graph.resolve(src, l as Parameters<typeof graph.resolve>[1]) === from;
        verdicts.set(key, v);
      }
      return v;
    };
    const next = await rewriteLinksYielding(text, src, links, points, {
      to,
      nameIsUnique,
      pause: yieldToEventLoop,
    });
    if (next !== text) plans.push({ path: src, text: next, before: bytes });
  }
  return plans;
}

/** Writes the planned rewrites of a move, each kept in the history first; answers their paths. */
async function applyRewrites(ctx: NoteContext, plans: readonly RewritePlan[], by: string): Promise<string[]> {
  for (const p of plans) {
    await yieldToEventLoop();
    await ctx.history?.keepBefore(p.path, p.before);
    await writeAndIndex(ctx, p.path, p.text, { by, kind: 'links' });
  }
  return plans.map((p) => p.path);
}

/** Options of a note move. */
export interface MoveOptions {
  updateLinks?: boolean;
  ifMatch?: string;
  /** Which linking notes may be rewritten (a key limited to folders: only those it sees). */
  rewriteOnly?: (path: string) => boolean;
}

/**
 * Moves a file of the vault (not a note) with `move`, then tells the index. With `updateLinks`,
 * the embeds and links to it in notes are rewritten to the new place, like a note move's.
 */
function moveFile<T>(
  ctx: NoteContext,
  from: string,
  to: string,
  move: () => Promise<T>,
  opts: { updateLinks?: boolean; rewriteOnly?: (path: string) => boolean } = {},
): Promise<{ result: T; rewritten: string[] }> {
  from = validateFilePath(from);
  to = validateFilePath(to);
  // Rewriting needs the index (503 while indexing, like a note move); a plain move never waits.
  const by = ctx.actor;
  if (opts.updateLinks) ctx.requireReady();
  else if (ctx.status.state !== 'ready') return move().then((result) => ({ result, rewritten: [] }));
  return ctx.mutex.run(async () => {
    const ready = ctx.status.state === 'ready';
    const graph = ctx.index.graph;
    const nameIsUnique =
      graph.fileNameCount(to) === (basename(to).toLowerCase() === basename(from).toLowerCase() ? 1 : 0);
    const plans =
      ready && opts.updateLinks && from !== to
        ? await planRewrites(ctx, from, to, nameIsUnique, opts.rewriteOnly)
        : [];
    const result = await move();
    if (!ready || from === to) return { result, rewritten: [] };
    ctx.invalidate(ctx.index.files([to], [from]));
    const rewritten = await applyRewrites(ctx, plans, by);
    for (const path of rewritten) ctx.emit({ type: 'updated', path, external: false, by });
    return { result, rewritten };
  });
}

/**
 * Moves a note. With `updateLinks`, links to it in other notes are rewritten to the new place,
 * each note in one pass over its text, yielding to the event loop between notes.
 */
function moveNote(
  ctx: NoteContext,
  fromInput: unknown,
  toInput: unknown,
  opts: MoveOptions = {},
): Promise<{ note: Note; rewritten: string[] }> {
  ctx.requireReady();
  const from = validateNotePath(fromInput);
  const to = validateNotePath(toInput);
  const by = ctx.actor;
  return ctx.mutex.run(async () => {
    const cur = await readCurrent(ctx, from);
    checkIfMatch(opts.ifMatch, cur.checksum);
    if (from === to) {
      return { note: ctx.buildNote((await ctx.refresh(from))!, decode(cur.bytes)), rewritten: [] };
    }
    if (ctx.index.entries.has(to) || (await ctx.store.stat(to))) {
      throw new DomainError('NOTE_ALREADY_EXISTS', `A note already exists at "${to}".`);
    }
    const graph = ctx.index.graph;
    const nameIsUnique = graph.stemCount(to) === (basename(to) === basename(from) ? 1 : 0);
    const plans = opts.updateLinks ? await planRewrites(ctx, from, to, nameIsUnique, opts.rewriteOnly) : [];
    await ctx.history?.keepBefore(from, cur.bytes, cur.checksum);
    const info = await ctx.store.move(from, to);
    if (ctx.history) {
      await ctx.history.moved(from, to);
      await ctx.history.record(to, cur.bytes, by, 'move', cur.checksum);
    }
    const old = ctx.index.entries.get(from);
    ctx.dropEntry(from);
    const entry = await ctx.indexBytes(to, cur.bytes, info, old?.firstSeen);
    const rewritten = await applyRewrites(ctx, plans, by);
    const note = ctx.buildNote(entry, decode(cur.bytes));
    ctx.emit({ type: 'moved', path: to, from, external: false, by });
    for (const path of rewritten) ctx.emit({ type: 'updated', path, external: false, by });
    return { note, rewritten };
  });
}

/** Writes back `bytes` kept in the history as a `restore` version (see `restore` below). */
function restoreNote(
  ctx: NoteContext,
  pathInput: unknown,
  bytes: Uint8Array,
  opts: { to: 'same' | 'free'; ifMatch?: string },
): Promise<{ note: Note; path: string }> {
  ctx.requireReady();
  const wanted = validateNotePath(pathInput);
  const by = ctx.actor;
  return ctx.mutex.run(async () => {
    const taken = async (p: string) => ctx.index.entries.has(p) || (await ctx.store.stat(p)) !== null;
    const path = opts.to === 'free' ? await freePath(wanted, taken) : wanted;
    const cur = opts.to === 'same' ? await ctx.store.read(path) : null;
    if (cur) {
      const sum = await sha256Hex(cur);
      checkIfMatch(opts.ifMatch, sum);
      await ctx.history?.keepBefore(path, cur, sum);
    } else if (opts.ifMatch !== undefined && opts.to === 'same') {
      checkIfMatch(opts.ifMatch, '');
    }
    const note = await writeAndIndex(ctx, path, decode(bytes), { by, kind: 'restore' }, bytes);
    ctx.emit({ type: 'restored', path, external: false, by });
    return { note, path };
  });
}

/**
 * Runs `fn` holding the mutex on the note at `pathInput` as it is now, once its checksum has
 * passed `ifMatch`; `by` is the actor of the call.
 */
const withCurrent = <T>(
  ctx: NoteContext,
  pathInput: unknown,
  ifMatch: string | undefined,
  fn: (path: string, by: string, cur: { bytes: Uint8Array; checksum: string }) => Promise<T>,
): Promise<T> => {
  ctx.requireReady();
  const path = validateNotePath(pathInput);
  const by = ctx.actor;
  return ctx.mutex.run(async () => {
    const cur = await readCurrent(ctx, path);
    checkIfMatch(ifMatch, cur.checksum);
    return fn(path, by, cur);
  });
};

/**
 * Rewrites the note at `pathInput` to what `next` makes of its current text, after checking
 * `ifMatch` and keeping the current bytes as a version; `next` answering null writes nothing.
 */
const rewrite = (
  ctx: NoteContext,
  pathInput: unknown,
  ifMatch: string | undefined,
  kind: 'update' | 'patch',
  next: (text: string, bytes: Uint8Array) => string | null | Promise<string | null>,
): Promise<Note> =>
  withCurrent(ctx, pathInput, ifMatch, async (path, by, cur) => {
    const text = decode(cur.bytes);
    const out = await next(text, cur.bytes);
    if (out === null) return ctx.buildNote((await ctx.refresh(path, true))!, text);
    await ctx.history?.keepBefore(path, cur.bytes, cur.checksum);
    const note = await writeAndIndex(ctx, path, out, { by, kind });
    ctx.emit({ type: 'updated', path, external: false, by });
    return note;
  });

/** The writes of one note service. */
export function createWrites(ctx: NoteContext) {
  const { store, mutex, history } = ctx;

  return {
    /**
     * Tells the index which of the vault's other files (attachments) were added and removed, so
     * that links and embeds to them resolve (or stop resolving). Waits for writes in flight.
     */
    filesChanged(added: readonly string[], removed: readonly string[]): Promise<void> {
      // While the vault is being indexed, never wait for it: the load lists the files itself, and
      // the reconcile after it catches a file changed after that listing.
      if (ctx.status.state !== 'ready') return Promise.resolve();
      return mutex.run(async () => {
        const changed = ctx.index.files(added, removed);
        if (changed.size) ctx.invalidate(changed);
      });
    },

    /**
     * Moves a file of the vault (not a note) with `move`, then tells the index. With
     * `updateLinks`, the embeds and links to it in notes are rewritten to the new place, like a
     * note move's. Returns what `move` returned and the paths of the notes rewritten.
     */
    moveFile: <T>(
      from: string,
      to: string,
      move: () => Promise<T>,
      opts: { updateLinks?: boolean; rewriteOnly?: (path: string) => boolean } = {},
    ): Promise<{ result: T; rewritten: string[] }> => moveFile(ctx, from, to, move, opts),

    /** Creates a note; 409 when the path is taken. */
    create(pathInput: unknown, content: string, frontmatter?: Record<string, unknown>): Promise<Note> {
      ctx.requireReady();
      const path = validateNotePath(pathInput);
      const by = ctx.actor;
      return mutex.run(async () => {
        if (ctx.index.entries.has(path) || (await store.stat(path))) {
          throw new DomainError(
            'NOTE_ALREADY_EXISTS',
            `A note already exists at "${path}"; use PUT to change it.`,
          );
        }
        const note = await writeAndIndex(ctx, path, compose(content, frontmatter, ''), {
          by,
          kind: 'create',
        });
        ctx.emit({ type: 'created', path, external: false, by });
        return note;
      });
    },

    /**
     * Replaces a note. Without `frontmatter`, and with no frontmatter block in `content`,
     * the existing block is kept byte for byte. `ifMatch` is checked strictly; a `base` naming an
     * older version merges (merge/update.ts).
     */
    update(
      pathInput: unknown,
      input: { content: string; frontmatter?: Record<string, unknown> },
      ifMatch?: string,
      base?: string,
    ): Promise<WrittenNote> {
      const write = (
        path: string,
        text: string,
        change?: { by: string; kind: ChangeKind },
        bytes?: Uint8Array,
      ) => writeAndIndex(ctx, path, text, change, bytes);
      return mergingUpdate(ctx, { compose, writeAndIndex: write }, pathInput, input, ifMatch, base);
    },

    /**
     * Applies one section PATCH (append, prepend or replace at a heading, block, frontmatter key
     * or the document); everything outside the target stays byte for byte.
     */
    patch(pathInput: unknown, op: PatchOperation, ifMatch?: string): Promise<Note> {
      return rewrite(ctx, pathInput, ifMatch, 'patch', async (text, bytes) => {
        if (op.target?.type === 'frontmatter') checkFrontmatterLimits(op.content, 'The value');
        const next = await patched(text, op);
        if (op.target?.type === 'frontmatter') checkFrontmatterReadsBack(next, text);
        if (next === text) return null;
        const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? '\ufeff' : '';
        return bom + next;
      });
    },

    /** Deletes a note: into the trash when there is a history, for good otherwise. */
    remove(pathInput: unknown, ifMatch?: string): Promise<{ deleted: string; trashId?: string }> {
      return withCurrent(ctx, pathInput, ifMatch, async (path, by, cur) => {
        let trashId: string | undefined;
        if (history) {
          await history.keepBefore(path, cur.bytes, cur.checksum);
          await history.record(path, cur.bytes, by, 'delete', cur.checksum);
          trashId = (await history.trash(path, 'note', cur.bytes, by, cur.checksum)).id;
        }
        await store.remove(path);
        ctx.dropEntry(path);
        ctx.emit({ type: 'deleted', path, external: false, by });
        return trashId ? { deleted: path, trashId } : { deleted: path };
      });
    },

    /**
     * Moves a note. With `updateLinks`, links to it in other notes are rewritten to the new place,
     * each note in one pass over its text, yielding to the event loop between notes.
     * Returns the moved note and the paths of the notes that were rewritten.
     */
    move: (
      fromInput: unknown,
      toInput: unknown,
      opts: MoveOptions = {},
    ): Promise<{ note: Note; rewritten: string[] }> => moveNote(ctx, fromInput, toInput, opts),

    /**
     * Writes back `bytes` kept in the history, byte for byte, as a `restore` version.
     * `to: 'same'` replaces the note at `path` (checked against `ifMatch`; created when gone);
     * `to: 'free'` (out of the trash) never overwrites: a taken path gets ` (restored N)`.
     */
    restore: (
      pathInput: unknown,
      bytes: Uint8Array,
      opts: { to: 'same' | 'free'; ifMatch?: string },
    ): Promise<{ note: Note; path: string }> => restoreNote(ctx, pathInput, bytes, opts),
  };
}
