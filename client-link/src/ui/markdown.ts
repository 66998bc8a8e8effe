import { micromark } from 'micromark';
import { gfmHtml } from 'micromark-extension-gfm';
import type { HtmlExtension } from 'micromark-util-types';
import type { Note } from '../flow/workspace-api.ts';
import { noteSyntax } from './code-ranges.ts';
import { rewriteObsidian } from './obsidian-source.ts';

/**
 * Math as written (`\,` and all), escaped, in `span.math-inline` / `div.math-display`: KaTeX
 * renders it later in the DOM (math.ts, loaded only when a note has math).
 */
const mathHtml: HtmlExtension = {
  enter: {
    mathFlow() {
      this.lineEndingIfNeeded();
      this.tag('<div class="math math-display">');
    },
    mathFlowFenceMeta() {
      this.buffer();
    },
    mathText() {
      this.buffer();
    },
  },
  exit: {
    mathFlow() {
      const value = this.resume();
      this.raw(this.encode(value.replace(/(?:\r?\n|\r)$/, '')));
      this.tag('</div>');
      this.setData('mathFlowOpen');
      this.setData('slurpOneLineEnding');
    },
    mathFlowFence() {
      if (!this.getData('mathFlowOpen')) {
        this.setData('mathFlowOpen', true);
        this.setData('slurpOneLineEnding', true);
        this.buffer();
      }
    },
    mathFlowFenceMeta() {
      this.resume();
    },
    mathFlowValue(token) {
      this.raw(this.sliceSerialize(token));
    },
    mathText(token) {
      const value = this.resume();
      // As in Obsidian, `$` opens math only before a non-space and closes only after one:
      // `$5 and $10` stays text (single dollars only; `$$...$$` inline is always math).
      const single =
        this.sliceSerialize(token).startsWith('$') && !this.sliceSerialize(token).startsWith('$$');
      if (single && (/^\s|\s$/.test(value) || value === '')) {
        this.raw(this.encode(`$${value}$`));
        return;
      }
      this.tag('<span class="math math-inline">');
      this.raw(this.encode(value));
      this.tag('</span>');
    },
    mathTextData(token) {
      this.raw(this.sliceSerialize(token));
    },
  },
};

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
