import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import type { Note } from '../flow/workspace-api.ts';
import { rewriteObsidian } from './obsidian-source.ts';

/**
 * A note's body as HTML: GFM (tables, task lists, strikethrough, footnotes, autolinks) plus
 * Obsidian's constructs rewritten first (`obsidian-source.ts`) and finished in the DOM
 * (`obsidian-render.ts`). micromark escapes raw HTML and drops dangerous URLs, so a note cannot
 * inject markup or script.
 */
export function renderNote(
  note: Pick<Note, 'content' | 'links' | 'title'>,
  opts: { keepTitle?: boolean } = {},
): string {
  const resolved = new Map(note.links.map((l) => [l.target.trim().replace(/\\$/, ''), l.path]));
  const byLower = new Map(note.links.map((l) => [l.target.trim().toLowerCase(), l.path]));
  // The title is shown above the body already.
  const body = opts.keepTitle
    ? note.content
    : note.content.replace(/^\s*# (.+)\n/, (line, heading: string) =>
        heading.trim() === note.title ? '' : line,
      );
  const text = rewriteObsidian(
    body,
    (target) => resolved.get(target) ?? byLower.get(target.toLowerCase()) ?? null,
  );
  return micromark(text, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}
