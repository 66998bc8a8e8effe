/** Whole notes kept parsed for fast reads, bounded in notes and in bytes of text (oldest out first). */
import type { Note } from './note.ts';

export class NoteCache {
  private readonly notes = new Map<string, { note: Note; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxNotes: number,
    private readonly maxBytes: number,
  ) {}

  get(path: string): Note | undefined {
    return this.notes.get(path)?.note;
  }

  /** Keeps a note (a note over a quarter of the byte bound is not kept). */
  put(note: Note): void {
    this.drop(note.path);
    const bytes = note.content.length * 2 + 512;
    if (bytes > this.maxBytes / 4) return;
    this.notes.set(note.path, { note, bytes });
    this.bytes += bytes;
    while (this.notes.size > this.maxNotes || this.bytes > this.maxBytes) {
      const oldest = this.notes.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }

  drop(path: string): void {
    const c = this.notes.get(path);
    if (!c) return;
    this.notes.delete(path);
    this.bytes -= c.bytes;
  }

  clear(): void {
    this.notes.clear();
    this.bytes = 0;
  }
}
