/**
 * The DOM pass after `renderNote`: callouts, highlights, heading and block anchors, links to
 * files, embeds (images, audio, video and other files fetched as blobs with the key; notes
 * inline, to a depth limit) and task checkboxes that toggle the source line through PUT with
 * If-Match. Nothing here parses HTML from a note: it only rearranges what micromark produced.
 */
import { ApiFailure } from '../flow/api.ts';
import type { Note } from '../flow/workspace-api.ts';
import { h } from './dom.ts';
import { renderNote } from './markdown.ts';
import { blockOf, sectionOf, taskMarks, toggleTask, wikiParts } from './obsidian-source.ts';
import { resolveTarget, type VaultPaths, vaultPaths } from './vault-paths.ts';
import { describe, type Workspace } from './workspace.ts';

/** Embedded notes inside embedded notes stop at this depth. */
export const MAX_EMBED_DEPTH = 3;

const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp|svg|ico)$/i;
const AUDIO = /\.(mp3|wav|m4a|ogg|oga|flac|3gp)$/i;
const VIDEO = /\.(mp4|m4v|webm|mov|ogv|mkv)$/i;

const vaults = new WeakMap<object, { at: number; paths: Promise<VaultPaths> }>();
/** The vault's paths from the folder tree, reused for a few seconds. */
export function vaultOf(ws: Workspace, fresh = false): Promise<VaultPaths> {
  const hit = vaults.get(ws.api);
  if (hit && !fresh && Date.now() - hit.at < 5_000) return hit.paths;
  const paths = ws.api.tree().then(vaultPaths);
  vaults.set(ws.api, { at: Date.now(), paths });
  paths.catch(() => vaults.delete(ws.api));
  return paths;
}

let blobUrls: string[] = [];
let pendingAnchor: { path: string; anchor: string } | null = null;

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The element of `root` an anchor names: `^blockid` or a heading's text. */
function findAnchor(root: HTMLElement, anchor: string): HTMLElement | null {
  if (anchor.startsWith('^')) {
    const id = anchor.slice(1);
    return (
      [...root.querySelectorAll<HTMLElement>('[data-block]')].find((e) => e.dataset.block === id) ?? null
    );
  }
  const want = anchor.trim().toLowerCase();
  return (
    [...root.querySelectorAll<HTMLElement>('h1,h2,h3,h4,h5,h6')].find(
      (e) => (e.textContent ?? '').trim().toLowerCase() === want,
    ) ?? null
  );
}

/** `==highlight==` in text outside code becomes <mark>. */
function highlights(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeValue?.includes('==') && !n.parentElement?.closest('code,pre')) nodes.push(n as Text);
  }
  for (const node of nodes) {
    const text = node.nodeValue!;
    const re = /==([^=\n](?:[^\n]*?[^=\n])?)==/g;
    const parts: (string | Node)[] = [];
    let last = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      parts.push(text.slice(last, m.index), h('mark', {}, m[1]!));
      last = m.index + m[0].length;
    }
    if (!parts.length) continue;
    parts.push(text.slice(last));
    node.replaceWith(...parts);
  }
}

/** `> [!type]± Title` blockquotes become callouts; `-` folds closed, `+` open. */
function callouts(root: HTMLElement): void {
  for (const quote of [...root.querySelectorAll('blockquote')]) {
    const first = quote.firstElementChild;
    const text = first?.tagName === 'P' ? first.firstChild : null;
    if (!text || text.nodeType !== Node.TEXT_NODE) continue;
    const m = /^\[!([\w-]+)\]([+-]?)[ \t]*([^\n]*)\n?/.exec(text.nodeValue ?? '');
    if (!m) continue;
    const type = m[1]!.toLowerCase();
    text.nodeValue = (text.nodeValue ?? '').slice(m[0].length);
    // The rest of the first line (up to a line break) is the title when the marker's text was short.
    const title = m[3]!.trim() || type.charAt(0).toUpperCase() + type.slice(1);
    if (!first!.textContent?.trim() && first!.children.length === 0) first!.remove();
    else if (first!.firstChild?.nodeName === 'BR') first!.firstChild.remove();
    const content = h('div', { class: 'callout-content' }, ...[...quote.childNodes]);
    const fold = m[2];
    const box = fold
      ? h(
          'details',
          { class: 'callout', 'data-callout': type, open: fold === '+' },
          h('summary', { class: 'callout-title' }, title),
          content,
        )
      : h(
          'div',
          { class: 'callout', 'data-callout': type },
          h('div', { class: 'callout-title' }, title),
          content,
        );
    quote.replaceWith(box);
  }
}

/** Headings get data-heading; `[](#block=id)` markers mark their block with data-block. */
function anchors(root: HTMLElement): void {
  for (const a of [...root.querySelectorAll<HTMLAnchorElement>('a[href^="#block="]')]) {
    const block = a.parentElement?.closest<HTMLElement>('li,p,td,th,h1,h2,h3,h4,h5,h6,blockquote');
    if (block) block.dataset.block = decode(a.getAttribute('href')!.slice('#block='.length));
    a.remove();
  }
}

/** Where an embed or a link points, once the vault is known. */
async function linkTargets(root: HTMLElement, ws: Workspace, note: Note): Promise<void> {
  const links = [
    ...root.querySelectorAll<HTMLAnchorElement>('a[href^="#note="],a[href="#anchor"],a[href^="#file="]'),
  ];
  const needsVault = links.some((a) => a.getAttribute('href')!.startsWith('#file='));
  const vault = needsVault ? await vaultOf(ws).catch(() => null) : null;
  for (const a of links) {
    const href = a.getAttribute('href')!;
    const anchor = a.getAttribute('title');
    if (anchor) {
      a.dataset.anchor = anchor;
      a.removeAttribute('title');
    }
    if (href === '#anchor') {
      a.setAttribute('href', `#note=${encodeURIComponent(note.path)}`);
    } else if (href.startsWith('#file=')) {
      const target = decode(href.slice('#file='.length));
      const found = vault ? resolveTarget(vault, target, note.path) : null;
      if (!found) {
        a.replaceWith(
          h('em', { class: 'unresolved', title: `${target} is not in the vault` }, a.textContent ?? target),
        );
        continue;
      }
      if (found.kind === 'note') a.setAttribute('href', `#note=${encodeURIComponent(found.path)}`);
      else {
        a.setAttribute('href', '#');
        a.dataset.file = found.path;
        a.classList.add('file-link');
        a.addEventListener('click', (e) => {
          e.preventDefault();
          void download(ws, found.path);
        });
        continue;
      }
    }
    if (a.dataset.anchor) {
      a.addEventListener('click', (e) => {
        e.preventDefault();
        e.stopPropagation();
        const path = decode(a.getAttribute('href')!.slice('#note='.length));
        pendingAnchor = { path, anchor: a.dataset.anchor! };
        void ws.open(path);
      });
    }
  }
}

/** Saves a file through a blob URL (the key stays in a header). */
async function download(ws: Workspace, path: string): Promise<void> {
  try {
    const url = URL.createObjectURL(await ws.api.files.blob(path));
    blobUrls.push(url);
    const a = h('a', { href: url, download: path.slice(path.lastIndexOf('/') + 1) });
    a.click();
  } catch (err) {
    ws.say(describe(err, ws.profile.apiKey), 'error');
  }
}

interface EmbedContext {
  depth: number;
  /** Notes being embedded above this one (no cycles). */
  ancestors: Set<string>;
}

/** Replaces one `#embed=` link by the embedded file or note. */
async function embed(a: HTMLAnchorElement, ws: Workspace, note: Note, ctx: EmbedContext): Promise<void> {
  const raw = decode(a.getAttribute('href')!.slice('#embed='.length));
  const fromMarkdown = raw.endsWith('|md');
  const parts = fromMarkdown ? { target: raw.slice(0, -3), subpath: '', alias: undefined } : wikiParts(raw);
  const vault = await vaultOf(ws).catch(() => null);
  const found = vault ? resolveTarget(vault, parts.target, note.path) : null;
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
    const link = h(
      'a',
      { href: '#', class: 'file-link embed-file', 'data-file': found.path },
      `Download ${name}`,
    );
    link.addEventListener('click', (e) => {
      e.preventDefault();
      void download(ws, found.path);
    });
    place(link);
    return;
  }
  const el = h(media, {
    class: 'embed-media',
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
    const url = URL.createObjectURL(await ws.api.files.blob(found.path));
    blobUrls.push(url);
    el.setAttribute('src', url);
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
    await enhance(body, ws, other, { depth: ctx.depth + 1, ancestors: new Set([...ctx.ancestors, path]) });
  } catch (err) {
    box.replaceChildren(h('p', { class: 'embed-missing' }, `⚠ ${path}: ${describe(err, ws.profile.apiKey)}`));
  }
}

/** Task checkboxes of the note itself: a click flips the source line and saves with If-Match. */
function tasks(root: HTMLElement, ws: Workspace, note: Note): void {
  const boxes = [...root.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
  const marks = taskMarks(note.content);
  // A mismatch (tasks inside comments, odd nesting) would flip the wrong line: leave them read-only.
  if (boxes.length !== marks.length) return;
  boxes.forEach((box, i) => {
    box.disabled = false;
    box.dataset.task = String(i);
    box.addEventListener('change', async () => {
      for (const b of boxes) b.disabled = true;
      try {
        const saved = await ws.api.update(note.path, toggleTask(note.content, marks[i]!), note.checksum);
        ws.say(`Saved ${saved.path}.`);
        await ws.open(saved.path);
      } catch (err) {
        box.checked = !box.checked;
        for (const b of boxes) b.disabled = false;
        ws.say(
          err instanceof ApiFailure && err.status === 412
            ? 'This note changed on the server: reload it before ticking tasks.'
            : describe(err, ws.profile.apiKey),
          'error',
        );
      }
    });
  });
}

/** Finishes a rendered note in place; resolves once every embed is in. */
export async function enhance(
  root: HTMLElement,
  ws: Workspace,
  note: Note,
  ctx?: EmbedContext,
): Promise<void> {
  const c = ctx ?? { depth: 0, ancestors: new Set([note.path]) };
  if (c.depth === 0) {
    for (const u of blobUrls) URL.revokeObjectURL(u);
    blobUrls = [];
    tasks(root, ws, note);
  } else for (const b of root.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) b.disabled = true;
  anchors(root);
  callouts(root);
  highlights(root);
  const embeds = [...root.querySelectorAll<HTMLAnchorElement>('a[href^="#embed="]')];
  await linkTargets(root, ws, note);
  await Promise.all(embeds.map((a) => embed(a, ws, note, c)));
  if (c.depth === 0 && pendingAnchor?.path === note.path) {
    findAnchor(root, pendingAnchor.anchor)?.scrollIntoView({ block: 'start' });
    pendingAnchor = null;
  }
  if (c.depth === 0) {
    // Same-note anchors scroll without reloading.
    for (const a of root.querySelectorAll<HTMLAnchorElement>('a[data-anchor]')) {
      if (decode(a.getAttribute('href')!.slice('#note='.length)) !== note.path) continue;
      a.addEventListener(
        'click',
        (e) => {
          e.preventDefault();
          e.stopImmediatePropagation();
          findAnchor(root, a.dataset.anchor!)?.scrollIntoView({ block: 'start' });
        },
        { capture: true },
      );
    }
  }
  root.dataset.rendered = 'true';
}
