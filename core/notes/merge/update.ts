/**
 * A note update that names the version it started from. When that version is still the note's,
 * the write is today's replace. When the note moved on since, the write is merged with what
 * happened meanwhile (three-way, against that version from the history): changes that do not
 * overlap all land; what overlaps keeps the note's current text, and the writer's whole text is
 * kept beside it as a conflict copy linked from the note. A base the history does not hold
 * (never kept, or pruned) is all overlap: the copy, never a silent overwrite.
 */
import { sha256Hex } from '../../crypto.ts';
import { DomainError } from '../../errors.ts';
import type { History } from '../../history/history.ts';
import { validateNotePath } from '../../paths.ts';
import { decode, type Note, type NoteContext } from '../context.ts';
import { checkIfMatch, ifMatchHolds } from '../if-match.ts';
import { splitFrontmatter } from '../markdown/parts.ts';
import { mergeText } from './text.ts';

/** What a merged write did: answered beside the note as `merge`. */
export interface MergeInfo {
  /** The checksum the writer started from. */
  base: string;
  /** False when the history holds no version with that checksum (every change counted as overlap). */
  baseKnown: boolean;
  /** Regions (and frontmatter keys) both sides changed differently; 0: everything landed. */
  conflicts: number;
  /** The conflict copy holding the writer's whole text, when there were conflicts. */
  copy?: string;
}

/** A note as a write answers it: with `merge` when the write was merged. */
export type WrittenNote = Note & { merge?: MergeInfo };

/** What the writes module lends the merge: its composition of a body and the write itself. */
export interface MergeIo {
  compose(content: string, frontmatter: unknown, keepBlock: string): string;
  writeAndIndex(path: string, text: string, change: { by: string; kind: 'update' | 'create' }): Promise<Note>;
}

/** The checksums an `If-Match` value names, in order. */
const tokens = (ifMatch: string) =>
  ifMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .filter((t) => t !== '' && t !== '*');

/** The first of `sums` the history holds for `path`, with its text. */
async function baseOf(history: History | undefined, path: string, sums: string[]) {
  if (!history) return null;
  const kept = history.list(path);
  for (const sum of sums) {
    const v = kept.find((x) => x.checksum === sum);
    if (v) return { sum, text: decode((await history.get(path, v.id)).bytes) };
  }
  return null;
}

const two = (n: number) => String(n).padStart(2, '0');

/** `dir/name (conflict 2026-12-07 001203).md`, ` 2`, ` 3`... when taken. */
async function copyPath(path: string, at: number, taken: (p: string) => Promise<boolean>): Promise<string> {
  const d = new Date(at);
  const when = `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
  const stem = path.slice(0, -3);
  for (let n = 1; ; n++) {
    const candidate = `${stem} (conflict ${when}${n === 1 ? '' : ` ${n}`}).md`;
    if (!(await taken(candidate))) return candidate;
  }
}

/** The line that links the note to its conflict copy, first in the body. */
export const conflictLine = (copy: string) =>
  `> [!warning] Conflict: an edit made from an older version overlapped this note. The note keeps the newer text; that edit is kept whole in [[${copy.slice(0, -3)}]].\n\n`;

/** `text` with the conflict line added at the top of its body. */
function linked(text: string, copy: string): string {
  const { block, body } = splitFrontmatter(text);
  return block + conflictLine(copy) + body;
}

/** A conflict copy of `path` that holds exactly `ours` and that `now` links to, if there is one. */
async function keptCopy(ctx: NoteContext, path: string, ours: string, now: string): Promise<string | null> {
  const prefix = `${path.slice(0, -3)} (conflict `;
  for (const p of ctx.index.entries.keys()) {
    if (!p.startsWith(prefix) || !now.includes(conflictLine(p))) continue;
    const bytes = await ctx.store.read(p);
    if (bytes && decode(bytes) === ours) return p;
  }
  return null;
}

/**
 * Updates the note at `pathInput`: `ifMatch` is a strict precondition (412 unless it names the
 * note as it is now); `base` names the version the text was made from, merged when older.
 */
export function mergingUpdate(
  ctx: NoteContext,
  io: MergeIo,
  pathInput: unknown,
  input: { content: string; frontmatter?: Record<string, unknown> },
  ifMatch: string | undefined,
  baseTag: string | undefined,
): Promise<WrittenNote> {
  ctx.requireReady();
  const path = validateNotePath(pathInput);
  const by = ctx.actor;
  const { store, history } = ctx;
  return ctx.mutex.run(async () => {
    const bytes = await store.read(path);
    if (!bytes) throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
    const sum = await sha256Hex(bytes);
    const now = decode(bytes);
    const write = async (text: string) => {
      await history?.keepBefore(path, bytes, sum);
      const note = await io.writeAndIndex(path, text, { by, kind: 'update' });
      ctx.emit({ type: 'updated', path, external: false, by });
      return note;
    };
    checkIfMatch(ifMatch, sum);
    if (ifMatchHolds(baseTag, sum)) {
      return write(io.compose(input.content, input.frontmatter, splitFrontmatter(now).block));
    }
    const sums = tokens(baseTag!);
    if (!sums.length) throw new DomainError('VALIDATION_ERROR', 'The base must name a checksum.');
    const base = await baseOf(history, path, sums);
    // Without a frontmatter of its own, the writer's text keeps the block it started from.
    const ours = io.compose(input.content, input.frontmatter, splitFrontmatter(base?.text ?? now).block);
    const merged =
      base !== null
        ? mergeText(base.text, ours, now)
        : { text: now, conflicts: ours === now ? 0 : 1, conflictKeys: [] };
    const info: MergeInfo = {
      base: base?.sum ?? sums[0]!,
      baseKnown: base !== null,
      conflicts: merged.conflicts,
    };
    let text = merged.text;
    if (merged.conflicts) {
      // Sent again after its answer was lost (a client's resend, an offline draft replayed): the
      // copy already holds this text and the note links to it, so nothing is written twice.
      const kept = await keptCopy(ctx, path, ours, now);
      if (kept) {
        info.copy = kept;
        return { ...ctx.buildNote((await ctx.refresh(path, true))!, now), merge: info };
      }
      const taken = async (p: string) => ctx.index.entries.has(p) || (await store.stat(p)) !== null;
      info.copy = await copyPath(path, ctx.clock.now(), taken);
      await io.writeAndIndex(info.copy, ours, { by, kind: 'create' });
      ctx.emit({ type: 'created', path: info.copy, external: false, by });
      text = linked(text, info.copy);
    }
    const note = text === now ? ctx.buildNote((await ctx.refresh(path, true))!, now) : await write(text);
    return { ...note, merge: info };
  });
}
