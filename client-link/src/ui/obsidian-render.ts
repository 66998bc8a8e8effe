/**
 * The DOM pass after `renderNote`: callouts (callouts.ts), math, diagrams and code (rich.ts), highlights, heading and block anchors, links to
 * files and embeds (embeds.ts, resolved by the server's `links[]`), and task checkboxes that toggle
 * the source line through PUT with If-Match. Nothing here parses HTML from a note: it only
 * rearranges what micromark produced.
 */

import { taskMarks, toggleTask } from '../../../core/render/obsidian-source.ts';
import { ApiFailure } from '../flow/api.ts';
import type { Note } from '../flow/workspace-api.ts';
import { callouts } from './callouts.ts';
import { h } from './dom.ts';
import { decode, type EmbedContext, embed, fileLink, revokeBlobs } from './embeds.ts';
import { log } from './log.ts';
import { renderRich } from './rich.ts';
import { locate } from './vault-paths.ts';
import { describe, openPath, type Workspace } from './workspace-context.ts';

export { MAX_EMBED_DEPTH } from './embeds.ts';

let pendingAnchor: { path: string; anchor: string } | null = null;

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
    if (n.nodeValue?.includes('==') && !n.parentElement?.closest('code,pre,.math')) nodes.push(n as Text);
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

/** Headings get data-heading; `[](#block=id)` markers mark their block with data-block. */
function anchors(root: HTMLElement): void {
  for (const a of [...root.querySelectorAll<HTMLAnchorElement>('a[href^="#block="]')]) {
    const block = a.parentElement?.closest<HTMLElement>('li,p,td,th,h1,h2,h3,h4,h5,h6,blockquote');
    if (block) block.dataset.block = decode(a.getAttribute('href')!.slice('#block='.length));
    a.remove();
  }
}

/** A markdown link to a vault path (`[x](../a b.md#h)`, `[pdf](/docs/r.pdf)`): `#file=`, anchor kept. */
function localLink(a: HTMLAnchorElement): void {
  const raw = a.getAttribute('href')!;
  const hash = raw.indexOf('#');
  const target = decode(hash < 0 ? raw : raw.slice(0, hash));
  a.removeAttribute('title'); // the link's own title is no anchor
  if (hash >= 0 && hash < raw.length - 1) a.setAttribute('title', decode(raw.slice(hash + 1)));
  a.setAttribute('href', `#file=${encodeURIComponent(target)}`);
}

/** Where a link points: notes by `#note=`, files (by the server's `links[]`) as downloads. */
function linkTargets(root: HTMLElement, ws: Workspace, note: Note): void {
  // Markdown links to local paths resolve like wiki-links (micromark left them as written).
  for (const a of root.querySelectorAll<HTMLAnchorElement>('a[href]')) {
    const href = a.getAttribute('href')!;
    if (href && !href.startsWith('#') && !/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(href)) localLink(a);
  }
  const links = [
    ...root.querySelectorAll<HTMLAnchorElement>('a[href^="#note="],a[href="#anchor"],a[href^="#file="]'),
  ];
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
      const found = locate(note, target);
      if (!found) {
        a.replaceWith(
          h('em', { class: 'unresolved', title: `${target} is not in the vault` }, a.textContent ?? target),
        );
        continue;
      }
      if (found.kind === 'file') {
        fileLink(a, ws, found.path);
        continue;
      }
      a.setAttribute('href', `#note=${encodeURIComponent(found.path)}`);
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

/**
 * Task checkboxes of the note itself: a click flips the source line and saves with If-Match. The
 * boxes are rendered disabled; they are matched to their source lines (a parse of the note of its
 * own) and enabled in the frame after the note is shown, not before it.
 */
function tasks(root: HTMLElement, ws: Workspace, note: Note): void {
  const boxes = [...root.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
  if (!boxes.length) return;
  requestAnimationFrame(() => setTimeout(() => enableTasks(boxes, ws, note), 0));
}

function enableTasks(boxes: HTMLInputElement[], ws: Workspace, note: Note): void {
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
        // Shown again only while it is still the note open: a save that answers after the user went
        // to another note does not take them back.
        if (openPath() === saved.path) await ws.open(saved.path);
        else log.info('workspace: saved a tick on', saved.path, '(another note is open now)');
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

/**
 * What assistive technology needs of the rendered markdown: each task box is named by its item's
 * text, and code blocks (which scroll sideways on a phone) can be reached and scrolled by keyboard.
 */
function accessible(root: HTMLElement): void {
  for (const box of root.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) {
    const text = (box.closest('li')?.textContent ?? '').trim().replace(/\s+/g, ' ');
    box.setAttribute('aria-label', text ? `Task: ${text.slice(0, 120)}` : 'Task');
  }
  for (const pre of root.querySelectorAll('pre')) {
    pre.tabIndex = 0;
    pre.setAttribute('aria-label', 'Code block');
  }
}

/** Finishes a rendered note in place; resolves once every embed is in. */
export async function enhance(
  root: HTMLElement,
  ws: Workspace,
  note: Note,
  ctx?: EmbedContext,
): Promise<void> {
  const c = ctx ?? { depth: 0, ancestors: new Set([note.path]), enhance };
  if (c.depth === 0) {
    revokeBlobs();
    tasks(root, ws, note);
  } else for (const b of root.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) b.disabled = true;
  accessible(root);
  anchors(root);
  callouts(root);
  highlights(root);
  const embeds = [...root.querySelectorAll<HTMLAnchorElement>('a[href^="#embed="]')];
  linkTargets(root, ws, note);
  // Math, diagrams and code finish on their own (`data-rich="done"`): the note is usable before.
  const rich = renderRich(root).then(() => {
    root.dataset.rich = 'done';
  });
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
  await rich;
}
