/**
 * Embeds and links to the vault's files, resolved by the server: each note's `links[]` says where
 * a target points (`path`) and whether it is a note or a file (`type`), by Obsidian's rules
 * (docs/guide/obsidian.md). Images, audio and video are fetched as blobs with the key (never a key in a
 * URL); other files are downloads; embedded notes render inline, down to a depth limit.
 */

import { blockOf, sectionOf, wikiParts } from '../../../core/render/obsidian-source.ts';
import type { Note } from '../flow/workspace-api.ts';
import { h } from './dom.ts';
import { renderNote } from './markdown.ts';
import { locate } from './vault-paths.ts';
import { describe, type Workspace } from './workspace-context.ts';

/** Embedded notes inside embedded notes stop at this depth. */
export const MAX_EMBED_DEPTH = 3;

const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp|svg|ico)$/i;
const AUDIO = /\.(mp3|wav|m4a|ogg|oga|flac|3gp)$/i;
const VIDEO = /\.(mp4|m4v|webm|mov|ogv|mkv)$/i;

export interface EmbedContext {
  depth: number;
  /** Notes being embedded above this one (no cycles). */
  ancestors: Set<string>;
  /** Finishes an embedded note's body (the DOM pass of obsidian-render.ts). */
  enhance: (root: HTMLElement, ws: Workspace, note: Note, ctx: EmbedContext) => Promise<void>;
}

/** Percent-decoding that keeps malformed text as written. */
export const decode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

let blobUrls: string[] = [];
/** Frees the blob URLs of the note shown before. */
export function revokeBlobs(): void {
  for (const u of blobUrls) URL.revokeObjectURL(u);
  blobUrls = [];
}

const blobUrl = async (ws: Workspace, path: string): Promise<string> => {
  const url = URL.createObjectURL(await ws.api.files.blob(path));
  blobUrls.push(url);
  return url;
};

/** Saves a file through a blob URL (the key stays in a header). */
export async function download(ws: Workspace, path: string): Promise<void> {
  try {
    h('a', { href: await blobUrl(ws, path), download: path.slice(path.lastIndexOf('/') + 1) }).click();
  } catch (err) {
    ws.say(describe(err, ws.profile.apiKey), 'error');
  }
}

/** A download link for a file of the vault. */
export function fileLink(a: HTMLAnchorElement, ws: Workspace, path: string): void {
  a.setAttribute('href', '#');
  a.dataset.file = path;
  a.classList.add('file-link');
  a.addEventListener('click', (e) => {
    e.preventDefault();
    void download(ws, path);
  });
}

/** Replaces one `#embed=` link by the embedded file or note. */
export async function embed(
  a: HTMLAnchorElement,
  ws: Workspace,
  note: Note,
  ctx: EmbedContext,
): Promise<void> {
  const raw = decode(a.getAttribute('href')!.slice('#embed='.length));
  const fromMarkdown = raw.endsWith('|md');
  const parts = fromMarkdown ? { target: raw.slice(0, -3), subpath: '', alias: undefined } : wikiParts(raw);
  const found = locate(note, parts.target);
  const holder =
    a.parentElement?.tagName === 'P' && a.parentElement.childNodes.length === 1 ? a.parentElement : a;
  const place = (el: HTMLElement) => holder.replaceWith(el);
  if (!found) {
    place(
      h(
        'span',
        { class: 'embed-missing', 'data-testid': 'embed-missing' },
        `⚠ ${parts.target} is not in the vault`,
      ),
    );
    return;
  }
  if (found.kind === 'note') return embedNote(place, ws, found.path, parts.subpath, ctx);
  const name = found.path.slice(found.path.lastIndexOf('/') + 1);
  const size = /^(\d+)(?:x(\d+))?$/.exec(parts.alias ?? '');
  const media = IMAGE.test(found.path)
    ? 'img'
    : AUDIO.test(found.path)
      ? 'audio'
      : VIDEO.test(found.path)
        ? 'video'
        : null;
  if (!media) {
    const link = h('a', { class: 'embed-file' }, `Download ${name}`);
    fileLink(link, ws, found.path);
    if (/\.pdf$/i.test(found.path)) return embedPdf(place, ws, found.path, link);
    place(link);
    return;
  }
  // An image amid text (an icon before a word, as Obsidian's help writes `![[x.svg#icon]] **Sort**`)
  // stays on its line; one alone in its paragraph is a block.
  const inline = media === 'img' && (holder === a || parts.subpath === 'icon');
  const el = h(media, {
    class: inline
      ? `embed-media embed-inline${parts.subpath === 'icon' ? ' embed-icon' : ''}`
      : 'embed-media',
    'data-embed': found.path,
    alt: parts.alias && !size ? parts.alias : name,
    controls: media !== 'img',
  });
  if (size) {
    el.setAttribute('width', size[1]!);
    if (size[2]) el.setAttribute('height', size[2]);
  }
  place(el);
  try {
    el.setAttribute('src', await blobUrl(ws, found.path));
  } catch (err) {
    el.replaceWith(h('span', { class: 'embed-missing' }, `⚠ ${name}: ${describe(err, ws.profile.apiKey)}`));
  }
}

/** Renders another note (or one heading's section, or one block of it) inline. */
async function embedNote(
  place: (el: HTMLElement) => void,
  ws: Workspace,
  path: string,
  subpath: string,
  ctx: EmbedContext,
): Promise<void> {
  const link = h('a', { href: `#note=${encodeURIComponent(path)}` }, path);
  if (ctx.depth >= MAX_EMBED_DEPTH || ctx.ancestors.has(path)) {
    place(h('p', { class: 'embed-stop' }, '↪ ', link, ' (embedded too deep)'));
    return;
  }
  const box = h(
    'section',
    { class: 'embed-note', 'data-embed-note': path },
    h('p', { class: 'hint' }, 'Loading…'),
  );
  place(box);
  try {
    const other = await ws.api.read(path);
    const content = subpath.startsWith('^')
      ? blockOf(other.content, subpath.slice(1))
      : subpath
        ? sectionOf(other.content, subpath)
        : other.content;
    const body = h('div', { class: 'markdown' });
    body.innerHTML = renderNote(
      { ...other, content: content ?? `*${subpath} is not in ${path}.*` },
      { keepTitle: !!subpath },
    );
    box.replaceChildren(h('p', { class: 'embed-title' }, link), body);
    await ctx.enhance(body, ws, other, {
      ...ctx,
      depth: ctx.depth + 1,
      ancestors: new Set([...ctx.ancestors, path]),
    });
  } catch (err) {
    box.replaceChildren(h('p', { class: 'embed-missing' }, `⚠ ${path}: ${describe(err, ws.profile.apiKey)}`));
  }
}

/**
 * A PDF shown inline by the browser's own viewer in a frame on a blob URL (`frame-src blob:` in
 * the CSP). The blob's type is forced to application/pdf and its bytes must start with `%PDF-`,
 * so a file named .pdf that holds HTML can never run as a page of this origin. The download link
 * stays below it.
 */
async function embedPdf(
  place: (el: HTMLElement) => void,
  ws: Workspace,
  path: string,
  link: HTMLAnchorElement,
): Promise<void> {
  const frame = h('iframe', { class: 'embed-pdf-frame', 'data-embed': path, title: path });
  const box = h('figure', { class: 'embed-pdf' }, frame, h('figcaption', {}, link));
  place(box);
  try {
    const bytes = await (await ws.api.files.blob(path)).arrayBuffer();
    const head = new TextDecoder().decode(new Uint8Array(bytes, 0, Math.min(5, bytes.byteLength)));
    if (head !== '%PDF-') throw new Error('not a PDF');
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
    blobUrls.push(url);
    frame.setAttribute('src', url);
  } catch {
    frame.replaceWith(h('span', { class: 'embed-missing' }, `⚠ ${path} could not be shown inline`));
  }
}
