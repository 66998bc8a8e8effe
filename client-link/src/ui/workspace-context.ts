/**
 * What the workspace's panels share: the Workspace handle, the one-sentence failure and the open
 * note's path. Its own module so the panels import it without importing the workspace page
 * (workspace.ts), which imports them.
 */
import { ApiFailure } from '../flow/api.ts';
import type { Profile } from '../flow/profiles.ts';
import { redact } from '../flow/redact.ts';
import type { WorkspaceApi } from '../flow/workspace-api.ts';

/** Shared by the workspace's panels. */
export interface Workspace {
  api: WorkspaceApi;
  profile: Profile;
  /**
   * Opens a note in the main panel. `focusHeading`: the keyboard's focus goes to its title once
   * shown, by whichever showing of that note paints last (a live-feed reload may overtake this one).
   */
  open(path: string, options?: { focusHeading?: boolean }): Promise<void>;
  /** Reloads the tree and the list (after a write). */
  refresh(): Promise<void>;
  /** Shows a message in the status line. */
  say(text: string, kind?: 'info' | 'error'): void;
  /** Shows the new-note form. */
  newNote(): void;
  /**
   * Optional: keeps a note created while the server cannot be reached on this device (created when
   * it answers); its path (a free one), or null when storage refused it.
   */
  draftNote?(path: string, text: string): string | null;
  /** Optional: shows the notes of a tag (a tag link or pill was clicked); note-view lists them itself without it. */
  onTag?(tag: string): void;
}

/** A failure as one sentence, keys redacted. */
export function describe(err: unknown, key?: string): string {
  const msg = err instanceof ApiFailure ? err.message : 'Something went wrong.';
  return redact(msg, [key]);
}

/** The open note's path, from the address bar's `#note=`. */
export const openPath = (): string | null => {
  const m = location.hash.match(/^#note=(.+)$/);
  return m ? decodeURIComponent(m[1]!) : null;
};
