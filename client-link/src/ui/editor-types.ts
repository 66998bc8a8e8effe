import type { Awareness } from 'y-protocols/awareness';
import type { Text as YText } from 'yjs';

/** The editor's contract, shared by editor.ts and the lazily loaded CodeMirror editor (lazy/codemirror.ts). */

/** A `[[` completion candidate. */
export interface LinkCandidate {
  label: string;
  /** What goes between `[[` and `]]`. */
  insert: string;
  detail?: string;
  kind: 'note' | 'file';
}

/** What the editor needs from the workspace. */
export interface EditorOptions {
  label: string;
  candidates(): Promise<LinkCandidate[]>;
  headings(target: string): Promise<string[]>;
  onFiles(files: File[], pasted: boolean): void;
  /** Saves through the page's own save (Ctrl+S); absent: the shortcut does nothing. */
  save?(): void;
  /**
   * Edits a live document (live-edit.ts): the editor is bound to this shared text, shows the
   * others' cursors from `awareness`, and undoes only its own typing. `readOnly`: watch only.
   */
  live?: { text: YText; awareness: Awareness; readOnly: boolean };
}

/** The mounted editor. */
export interface EditorHandle {
  kind: 'codemirror' | 'textarea';
  value(): string;
  /** Replaces the selection with `text`, cursor after it. */
  insert(text: string): void;
  focus(): void;
  /** Stops (or allows) typing: a live editor whose connection dropped. */
  setReadOnly?(on: boolean): void;
  destroy(): void;
}
