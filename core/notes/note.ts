import type { NoteSummary } from './note-index.ts';

/** A whole note as `GET /notes/:path` returns it. */
export interface Note extends NoteSummary {
  /** The body without the frontmatter block. */
  content: string;
  frontmatter: Record<string, unknown>;
  /** Problems found in this note (invalid YAML, odd tags); absent when there are none. */
  warnings?: string[];
}
