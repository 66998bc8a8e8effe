/**
 * The stop mark (issue 33): what a clean stop knows of the index it leaves on disk, so that the
 * next start can answer its first full list before the index is built.
 *
 * A stop saves the index (snapshot and journal), then writes `index-stop.json`: the snapshot's
 * generation, the journal's size in bytes, the vault's name and the list key (list-key.ts) of the
 * index it saved. The snapshot's generation is never reused and the journal only grows under it,
 * so while both are as the mark names them, the index a warm start builds from them is the one the
 * mark was made of, and its list key is the mark's: the persisted list with that key is its list
 * (adapters/http/persisted-list.ts). Any save after the mark changes the journal's size or the
 * generation, so a mark left by a run that then crashed is simply not taken.
 *
 * The journal holds notes only; the vault's other files (a summary's links resolve against them)
 * are saved by a whole snapshot. So a stop whose index changed its files since the last snapshot
 * writes a whole snapshot first. The mark also names the forms of the key and the cache, so a
 * start by code that derives summaries otherwise never takes it.
 */
import type { NoteContext } from './context.ts';
import { LIST_KEY_FORM, listKey } from './list-key.ts';
import { SNAPSHOT_KEY } from './snapshot-cache.ts';

export const STOP_MARK_KEY = 'index-stop.json';
const MARK_FORM = 1;

interface StopMark {
  form: number;
  keyForm: string;
  gen: number;
  journal: number | null;
  vault: string | null;
  key: string;
}

/** The snapshot's generation, from its header (24 bytes: magic, layout, 0, f64 generation). */
async function snapshotGen(ctx: NoteContext): Promise<number | null> {
  const head = await ctx.state?.getRange?.(SNAPSHOT_KEY, 0, 24);
  if (!head || head.length < 24) return null;
  return new DataView(head.buffer, head.byteOffset, 24).getFloat64(16, true);
}

/**
 * The list key of the index the snapshot and journal on disk hold, when a clean stop marked them
 * and nothing changed them since; null otherwise (no mark, another vault, another form, a save
 * since, any read failing).
 */
export async function readStopMark(ctx: NoteContext, journalKey: string): Promise<string | null> {
  const { state } = ctx;
  if (!state?.getRange || !state.byteSize) return null;
  try {
    const text = await state.get(STOP_MARK_KEY);
    if (!text) return null;
    const mark = JSON.parse(text) as Partial<StopMark>;
    if (
      mark.form !== MARK_FORM ||
      mark.keyForm !== LIST_KEY_FORM ||
      typeof mark.key !== 'string' ||
      !/^[0-9a-f]{64}$/.test(mark.key) ||
      mark.vault !== (ctx.files?.vault ?? null)
    )
      return null;
    const [gen, journal] = await Promise.all([snapshotGen(ctx), state.byteSize(journalKey)]);
    return gen === mark.gen && journal === mark.journal ? mark.key : null;
  } catch {
    return null;
  }
}

/**
 * Saves the index and marks it (to be called when the server stops, after its writes ended).
 * Returns whether a mark was written. Writes none where the store cannot read by byte range, and
 * none while the index is not ready (nothing is saved then, so a mark on disk still holds); removes
 * the old one when the save left changes unsaved or anything changed while the key was made.
 */
export async function writeStopMark(
  ctx: NoteContext,
  save: () => Promise<unknown>,
  journalKey: string,
): Promise<boolean> {
  const { state } = ctx;
  if (!state?.getRange || !state.byteSize || !state.append) return false;
  if (ctx.status.state !== 'ready') return false;
  try {
    // The files changed since the last whole snapshot: the journal cannot hold them.
    if (ctx.index.filesVersion !== ctx.filesSaved) {
      ctx.dirty = true;
      ctx.snapshotNeeded = true;
    }
    await save();
    const index = ctx.index;
    if (ctx.dirty || !ctx.cache || index.filesVersion !== ctx.filesSaved || index.changes > 0) {
      await state.remove(STOP_MARK_KEY);
      return false;
    }
    const generation = index.generation;
    const key = await listKey(index);
    const [gen, journal] = await Promise.all([snapshotGen(ctx), state.byteSize(journalKey)]);
    // Anything saved or changed meanwhile: no mark.
    if (
      !key ||
      ctx.index !== index ||
      index.generation !== generation ||
      ctx.dirty ||
      gen !== ctx.cache.gen
    ) {
      await state.remove(STOP_MARK_KEY);
      return false;
    }
    const mark: StopMark = {
      form: MARK_FORM,
      keyForm: LIST_KEY_FORM,
      gen,
      journal,
      vault: ctx.files?.vault ?? null,
      key,
    };
    await state.put(STOP_MARK_KEY, JSON.stringify(mark));
    return true;
  } catch (err) {
    ctx.logger?.warn('could not mark the index at stop; the next start builds its first list', {
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  }
}
