import { aliasesOf, headingsOf } from './text.ts';

/** The fields indexed for one note (aliases and headings optional). */
export interface SearchDoc {
  path: string;
  title: string;
  aliases?: string[];
  headings?: string[];
  tags: string;
  text: string;
}

/**
 * The search fields of one note: its title, aliases (frontmatter), headings (from the raw body
 * when given), tags and plain body text; the path's folder and file names are added by the index.
 */
export function searchDocOf(
  entry: { path: string; tags: string[]; frontmatter: Record<string, unknown>; bodyStart: number },
  title: string,
  text: string,
  raw?: string,
): SearchDoc {
  return {
    path: entry.path,
    title,
    aliases: aliasesOf(entry.frontmatter),
    headings: raw === undefined ? [] : headingsOf(raw.slice(entry.bodyStart)),
    tags: entry.tags.join(' '),
    text,
  };
}
