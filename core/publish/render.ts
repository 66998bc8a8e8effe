/**
 * A published note's body as HTML, with the workspace's renderer (micromark with GFM and math,
 * after the Obsidian rewrite of core/render/obsidian-source.ts), then every link decided against
 * the publication alone: a link to a published note points at its page, an embedded attachment
 * at its published copy, and anything else becomes plain text showing only what the note itself
 * wrote (never the target's title or path). micromark escapes raw HTML and drops dangerous URLs.
 */
import { micromark } from 'micromark';
import { gfmHtml } from 'micromark-extension-gfm';
import { contentTypeOf, isImageType } from '../files/content-types.ts';
import type { NoteLink } from '../notes/note-index.ts';
import { basename } from '../paths.ts';
import { noteSyntax } from '../render/code-ranges.ts';
import { mathHtml } from '../render/math-html.ts';
import { rewriteObsidian, wikiParts } from '../render/obsidian-source.ts';
import { esc } from './escape.ts';

/** What the renderer asks of the publication. */
export interface RenderLinks {
  /** The note's links as a reader of the publication sees them (resolved among its notes only). */
  links: readonly NoteLink[];
  /** Whether a vault path is a note of the publication. */
  published(path: string): boolean;
  /** The page's href for a published note (relative to the page being rendered). */
  noteHref(path: string): string;
  /** The href of an attachment this note embeds; null when it is not served. */
  fileHref(path: string): string | null;
}

const unesc = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const decode = (s: string): string | null => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

const plain = (inner: string) => `<span class="unpublished">${inner}</span>`;
const EXTERNAL = /^(https?:|mailto:)/i;

/** The body of `note` (its content without frontmatter) as HTML, its first `# title` line dropped. */
export function renderPublished(
  note: { path: string; title: string; content: string },
  r: RenderLinks,
): string {
  const wiki = new Map<string, string>();
  const md = new Map<string, string>();
  for (const l of r.links) {
    if (l.path === null) continue;
    if (l.kind === 'markdown') md.set(l.target, l.path);
    else wiki.set(l.target.trim().toLowerCase(), l.path);
  }
  const maps = { wiki, md };
  const body = note.content.replace(/^\s*# (.+)\n/, (line, heading: string) =>
    heading.trim() === note.title ? '' : line,
  );
  const text = rewriteObsidian(body, (target) => {
    const path = wiki.get(target.trim().toLowerCase()) ?? null;
    return path && r.published(path) ? path : null;
  });
  const html = micromark(text, { extensions: noteSyntax(), htmlExtensions: [gfmHtml(), mathHtml] });
  return html
    .replace(/<a href="([^"]*)"(?: title="[^"]*")?>([\s\S]*?)<\/a>/g, (_all, href: string, inner: string) =>
      anchor(unesc(href), inner, maps, r),
    )
    .replace(/<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? \/>/g, (_all, src: string, alt: string) =>
      EXTERNAL.test(unesc(src))
        ? `<a href="${src}" rel="nofollow noopener noreferrer">${alt || 'image'}</a>`
        : plain(alt),
    );
}

type Maps = { wiki: Map<string, string>; md: Map<string, string> };

/** One `<a>` of micromark's output, decided against the publication. */
function anchor(href: string, inner: string, maps: Maps, r: RenderLinks): string {
  if (href.startsWith('#note=')) {
    const path = decode(href.slice(6));
    return path && r.published(path) ? `<a href="${esc(r.noteHref(path))}">${inner}</a>` : plain(inner);
  }
  if (href.startsWith('#embed=')) return embed(decode(href.slice(7)) ?? '', inner, maps, r);
  if (href.startsWith('#block=')) return '';
  if (href.startsWith('#user-content-') || /^#[^=]*$/.test(href))
    return `<a href="${esc(href)}">${inner}</a>`;
  if (href.startsWith('#')) return plain(inner);
  if (EXTERNAL.test(href)) return `<a href="${esc(href)}" rel="nofollow noopener noreferrer">${inner}</a>`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/')) return plain(inner);
  // A relative markdown link, as the index resolved it: a published note, or text.
  const rel = decode(href.replace(/[?#].*$/, ''));
  const path = rel === null ? null : (maps.md.get(rel) ?? null);
  return path && r.published(path) ? `<a href="${esc(r.noteHref(path))}">${inner}</a>` : plain(inner);
}

/** `![[target]]` or a local `![alt](src)`: an image or a link when published, else text. */
function embed(value: string, inner: string, maps: Maps, r: RenderLinks): string {
  const path = value.endsWith('|md')
    ? (maps.md.get(value.slice(0, -3)) ?? null)
    : (maps.wiki.get(wikiParts(value).target.toLowerCase()) ?? null);
  if (path === null) return plain(inner);
  if (r.published(path)) return `<a href="${esc(r.noteHref(path))}">${inner}</a>`;
  const href = r.fileHref(path);
  if (href === null) return plain(inner);
  if (isImageType(contentTypeOf(path)))
    return `<img src="${esc(href)}" alt="${esc(unesc(inner.replace(/<[^>]*>/g, '')) || basename(path))}">`;
  return `<a href="${esc(href)}">${inner}</a>`;
}
