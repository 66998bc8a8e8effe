import type { FolderNode } from '../flow/workspace-api.ts';
import { h } from './dom.ts';

type Child = FolderNode['children'][number];
type Folder = Extract<Child, { type: 'folder' }> | FolderNode;

/** How many children a folder shows before a "Show more" button (a flat 10,000-note folder stays cheap). */
export const TREE_CHUNK = 300;

/** What a folder holds, counted to the bottom: notes and attachments. */
export interface Counts {
  notes: number;
  files: number;
}

/** Counts every folder's notes and files (recursively), keyed by folder path. No DOM: O(nodes). */
export function countTree(root: FolderNode): Map<string, Counts> {
  const out = new Map<string, Counts>();
  const walk = (f: Folder): Counts => {
    const c: Counts = { notes: 0, files: 0 };
    for (const ch of f.children) {
      if (ch.type === 'folder') {
        const sub = walk(ch);
        c.notes += sub.notes;
        c.files += sub.files;
      } else if (ch.type === 'file') c.files++;
      else c.notes++;
    }
    out.set(f.path, c);
    return c;
  };
  walk(root);
  return out;
}

/**
 * The attachments folder: Obsidian's `attachmentFolderPath` when the server names one, else a
 * folder that holds files and no note (at any depth).
 */
export function isAttachmentFolder(
  path: string,
  counts: Counts | undefined,
  attachmentFolder: string | null,
) {
  if (attachmentFolder && path === attachmentFolder) return true;
  return !!counts && counts.notes === 0 && counts.files > 0;
}

/** A folder's children in display order: folders, notes, attachment folders, files (stable otherwise). */
export function orderChildren(
  children: readonly Child[],
  counts: Map<string, Counts>,
  attachmentFolder: string | null,
): Child[] {
  const rank = (c: Child) =>
    c.type === 'folder'
      ? isAttachmentFolder(c.path, counts.get(c.path), attachmentFolder)
        ? 2
        : 0
      : c.type === 'file'
        ? 3
        : 1;
  return children
    .map((c, i) => ({ c, i, r: rank(c) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.c);
}

const countLabel = (c: Counts | undefined) => {
  if (!c) return '';
  const parts: string[] = [];
  if (c.notes) parts.push(`${c.notes}`);
  if (c.files) parts.push(`${c.files} file${c.files === 1 ? '' : 's'}`);
  return parts.length ? `(${parts.join(', ')})` : '(empty)';
};

/** The tree controller: renders lazily and remembers which folders are open across refreshes. */
export interface TreeController {
  /** The tree's element (mount once; `render` replaces its content). */
  readonly el: HTMLElement;
  /** Renders `root`: only the open folders' children are built. */
  render(root: FolderNode, attachmentFolder: string | null): void;
  /** Opens every folder on the way to `path` and marks it current. */
  reveal(path: string): void;
}

/**
 * A folder tree built lazily: a closed folder's children are not in the DOM; opening one builds
 * its children (at most TREE_CHUNK at a time). Folders start closed except the path to the open note.
 */
export function treeController(): TreeController {
  const el = h('nav', { class: 'tree', 'data-testid': 'tree', 'aria-label': 'Folders' });
  const open = new Set<string>();
  let counts = new Map<string, Counts>();
  let attachments: string | null = null;
  let current: string | null = null;
  const byPath = new Map<string, HTMLDetailsElement>();

  const list = (folder: Folder): HTMLUListElement => {
    const ul = h('ul', {});
    const items = orderChildren(folder.children, counts, attachments);
    const add = (from: number) => {
      const end = Math.min(items.length, from + TREE_CHUNK);
      for (let i = from; i < end; i++) ul.append(item(items[i]!));
      if (end < items.length) {
        const more = h(
          'button',
          { type: 'button', class: 'more', 'data-testid': 'tree-more' },
          `Show ${items.length - end} more`,
        );
        more.addEventListener('click', () => {
          more.parentElement?.remove();
          add(end);
        });
        ul.append(h('li', {}, more));
      }
    };
    add(0);
    return ul;
  };

  const item = (c: Child): HTMLLIElement => {
    if (c.type === 'file') return h('li', { class: 'file', 'data-file': c.path }, h('small', {}, c.name));
    if (c.type === 'note') {
      const a = h('a', { href: `#note=${encodeURIComponent(c.path)}`, 'data-path': c.path }, c.title);
      if (c.path === current) a.setAttribute('aria-current', 'page');
      return h('li', { class: 'note' }, a);
    }
    const n = counts.get(c.path);
    const att = isAttachmentFolder(c.path, n, attachments);
    const details = h(
      'details',
      { 'data-folder': c.path },
      h('summary', {}, `${c.name} `, h('span', { class: 'count' }, countLabel(n))),
    );
    byPath.set(c.path, details);
    let built = false;
    const build = () => {
      if (built) return;
      built = true;
      details.append(list(c));
    };
    if (open.has(c.path)) {
      details.open = true;
      build();
    }
    details.addEventListener('toggle', () => {
      if (details.open) {
        open.add(c.path);
        build();
      } else open.delete(c.path);
    });
    return h(
      'li',
      { class: att ? 'folder attachments' : 'folder', 'data-attachments': att ? 'true' : undefined },
      details,
    );
  };

  return {
    el,
    render(root, attachmentFolder) {
      attachments = attachmentFolder;
      counts = countTree(root);
      byPath.clear();
      el.replaceChildren(list(root));
    },
    reveal(path) {
      current = path;
      for (const a of el.querySelectorAll('a[aria-current]')) a.removeAttribute('aria-current');
      const parts = path.split('/').slice(0, -1);
      for (let i = 1; i <= parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        open.add(dir);
        const d = byPath.get(dir);
        if (d && !d.open) d.open = true;
        // 'toggle' fires later; build now so the next level can be found.
        if (d && !d.querySelector(':scope > ul')) d.dispatchEvent(new Event('toggle'));
      }
      el.querySelector(`a[data-path="${CSS.escape(path)}"]`)?.setAttribute('aria-current', 'page');
    },
  };
}
