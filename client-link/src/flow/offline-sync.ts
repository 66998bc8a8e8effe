/**
 * Sends what was typed offline once the server answers again, through the server's ordinary
 * writes: an edit of a kept note as a write with a `base` (merged three-way with what changed
 * since: docs/reference/merge.md), a note created offline as a create under a free name (never
 * over a note someone made meanwhile). Each draft is dropped from this device only once the server
 * acknowledged it, so a reload or a lost connection in the middle sends the rest next time; sent
 * twice, an edit merges into itself and a create finds its own text, so nothing is doubled.
 */
import { ApiFailure, isUnreachable } from './api.ts';
import type { Draft, OfflineStore } from './offline-store.ts';
import type { Note, WorkspaceApi } from './workspace-api.ts';

/** The writes the sync makes (the workspace's API has them). */
export type SyncApi = Pick<WorkspaceApi, 'read' | 'create' | 'update'>;

/** What became of one draft. */
export type SyncOutcome =
  /** An edit nobody else changed meanwhile. */
  | { kind: 'saved'; path: string }
  /** An edit merged cleanly with changes made since. */
  | { kind: 'merged'; path: string }
  /** A new note, under the name it was given. */
  | { kind: 'created'; path: string }
  /** An edit that overlapped changes made since: the note keeps those, the draft is whole in `copy`. */
  | { kind: 'conflict'; path: string; copy: string }
  /** A new note whose name was taken meanwhile: saved as `to`. */
  | { kind: 'renamed'; path: string; to: string }
  /** An edit of a note deleted (or moved) meanwhile: saved as a new note `to`. */
  | { kind: 'recreated'; path: string; to: string }
  /** Refused by the server (the draft stays on this device). */
  | { kind: 'failed'; path: string; message: string };

export interface SyncReport {
  outcomes: SyncOutcome[];
  /** True when the server stopped answering midway: the drafts not sent stay for next time. */
  interrupted: boolean;
}

/** Whether an outcome wants the person to look (the rest merged cleanly). */
export const needsALook = (o: SyncOutcome): boolean =>
  o.kind === 'conflict' || o.kind === 'renamed' || o.kind === 'recreated' || o.kind === 'failed';

/** Not reached, or not ready yet (a server starting answers 503): the drafts wait for next time. */
const later = (err: unknown) => isUnreachable(err) || (err instanceof ApiFailure && err.status === 503);
const status = (err: unknown) => (err instanceof ApiFailure ? err.status : 0);

/** `dir/name.md`, then `dir/name 2.md`, `dir/name 3.md`... (the conflict copies' convention). */
export const nthName = (path: string, n: number): string =>
  n === 1 ? path : `${path.replace(/\.md$/i, '')} ${n}.md`;

/** How many names a create tries before it gives up (a folder with 50 notes of one name). */
const MAX_NAMES = 50;

/**
 * Creates `text` at `path` or the first free `path N`. A name holding exactly this text is this
 * draft, sent before the device heard the answer: taken as done rather than written again.
 */
export async function createUnderFreeName(api: SyncApi, path: string, text: string): Promise<Note> {
  for (let n = 1; n <= MAX_NAMES; n++) {
    const at = nthName(path, n);
    try {
      return await api.create(at, text);
    } catch (err) {
      if (status(err) !== 409) throw err;
      const there = await api.read(at).catch(() => null);
      if (there && there.content === text) return there;
    }
  }
  throw new ApiFailure('HTTP', `${MAX_NAMES} notes named like ${path} exist; rename the draft.`, 409);
}

/** Sends one draft: its outcome and the note as the server answered it. */
async function sendOne(api: SyncApi, d: Draft): Promise<{ outcome: SyncOutcome; note: Note }> {
  if (d.baseChecksum === null) {
    const note = await createUnderFreeName(api, d.path, d.text);
    return {
      note,
      outcome:
        note.path === d.path
          ? { kind: 'created', path: d.path }
          : { kind: 'renamed', path: d.path, to: note.path },
    };
  }
  try {
    const note = await api.update(d.path, d.text, d.baseChecksum);
    const m = note.merge;
    const outcome: SyncOutcome = m?.copy
      ? { kind: 'conflict', path: d.path, copy: m.copy }
      : { kind: m ? 'merged' : 'saved', path: d.path };
    return { note, outcome };
  } catch (err) {
    if (status(err) !== 404) throw err;
    // Deleted or moved meanwhile: the text is kept as a note of its own, never dropped.
    const note = await createUnderFreeName(api, d.path, d.text);
    return { note, outcome: { kind: 'recreated', path: d.path, to: note.path } };
  }
}

/**
 * Drops a sent draft, unless it was typed into while it was sent: then the newer text waits for
 * the next sync, still from the draft's base (merged again, its sent part lands once), or, for a
 * note created offline, as an edit of the note just created.
 */
function settle(store: OfflineStore, sent: Draft, note: Note): void {
  const now = store.draft(sent.path);
  store.keepNote(note);
  if (!now) return;
  if (now.text === sent.text) store.dropDraft(sent.path);
  else if (sent.baseChecksum === null) {
    store.dropDraft(sent.path);
    store.saveDraft({ path: note.path, text: now.text, baseChecksum: note.checksum });
  }
}

/**
 * Sends every draft of `store`, oldest first. A draft is dropped once acknowledged; one the
 * server refused stays (reported as failed); when the server cannot be reached the rest wait.
 */
export async function syncDrafts(api: SyncApi, store: OfflineStore): Promise<SyncReport> {
  const drafts = store.drafts().sort((a, b) => a.savedAt.localeCompare(b.savedAt));
  const outcomes: SyncOutcome[] = [];
  for (const d of drafts) {
    try {
      const { outcome, note } = await sendOne(api, d);
      settle(store, d, note);
      outcomes.push(outcome);
    } catch (err) {
      if (later(err)) return { outcomes, interrupted: true };
      outcomes.push({
        kind: 'failed',
        path: d.path,
        message: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return { outcomes, interrupted: false };
}
