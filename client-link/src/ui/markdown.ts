import { micromark } from 'micromark';
import type { Note } from '../flow/workspace-api.ts';

const WIKI = /(!?)\[\[([^\]|#\n]+)(#[^\]|\n]*)?(?:\|([^\]\n]+))?\]\]/g;

/**
 * A note's body as HTML. micromark escapes raw HTML and drops dangerous URLs, so a note cannot
 * inject markup or script; wiki-links become `#note=<path>` links when they resolve.
 */
export function renderNote(note: Pick<Note, 'content' | 'links' | 'title'>): string {
  const resolved = new Map(note.links.map((l) => [l.target, l.path]));
  // The title is shown above the body already.
  const body = note.content.replace(/^\s*# (.+)\n/, (line, heading: string) =>
    heading.trim() === note.title ? '' : line,
  );
  const text = body.replace(WIKI, (_all, _embed: string, target: string, heading = '', alias?: string) => {
    const label = (alias ?? `${target}${heading}`).replace(/[[\]]/g, '');
    const path = resolved.get(target.trim()) ?? resolved.get(`${target}${heading}`.trim());
    return path ? `[${label}](#note=${encodeURIComponent(path)})` : `*${label}*`;
  });
  return micromark(text);
}
