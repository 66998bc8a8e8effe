import type { LinkRef } from './link-graph.ts';

/** What the index keeps of one note (no body text). */
export interface IndexEntry {
  path: string;
  size: number;
  mtimeMs: number;
  checksum: string;
  /** Title from frontmatter or first H1; null means the file name. */
  titleExplicit: string | null;
  tags: string[];
  links: LinkRef[];
  wordCount: number;
  /** Frontmatter `created` (ISO) when valid. */
  created: string | null;
  /** When the server first saw this file, ms since epoch. */
  firstSeen: number;
  warnings: string[];
  frontmatter: Record<string, unknown>;
  bodyStart: number;
}
