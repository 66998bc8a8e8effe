import { stem } from '../paths.ts';

/**
 * A note's title, decided here only: frontmatter `title`, else the first level-1 heading (both
 * already in `explicit`, see `titleFrom`), else the file name without `.md`.
 */
export function noteTitle(path: string, explicit: string | null | undefined): string {
  return explicit ?? stem(path);
}
