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
}

/** The mounted editor. */
export interface EditorHandle {
  kind: 'codemirror' | 'textarea';
  value(): string;
  /** Replaces the selection with `text`, cursor after it. */
  insert(text: string): void;
  focus(): void;
  destroy(): void;
}
