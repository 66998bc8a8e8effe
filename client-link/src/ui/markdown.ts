import { micromark } from 'micromark';
import { gfmHtml } from 'micromark-extension-gfm';
import { noteSyntax } from '../../../core/render/code-ranges.ts';
import { mathHtml } from '../../../core/render/math-html.ts';
import { rewriteObsidian } from '../../../core/render/obsidian-source.ts';
import type { Note } from '../flow/workspace-api.ts';

/**
 * A note's body as HTML: GFM (tables, task lists, strikethrough, footnotes, autolinks) and math,
 * plus Obsidian's constructs rewritten first (`obsidian-source.ts`) and finished in the DOM
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
  return micromark(text, { extensions: noteSyntax(), htmlExtensions: [gfmHtml(), mathHtml] });
}

/** A short note with the common constructs, parsed once to warm the parser (see `warmRenderer`). */
const SAMPLE = [
  '# Warm\n\n## A heading\n\nWords with **bold**, *italic*, ~~struck~~, `code`, ==marked== and #tag.',
  '- [ ] a task with [[Link]] and [[Link#Part|shown]]\n- [x] done\n  1. nested\n\n![[Embed]] and [a](b.md)',
  '> [!note] A callout\n> with text\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```js\nlet x = 1;\n```',
  'Math $x$ and a footnote[^1].\n\n[^1]: The note.\n',
].join('\n\n');

/**
 * Parses a sample note once, while the page is idle after its first paint: the first note a person
 * opens is then rendered by a parser the engine has already compiled (a cold first parse costs
 * several times a warm one).
 */
export function warmRenderer(): void {
  renderNote({ content: SAMPLE, links: [], title: 'Warm' });
}
