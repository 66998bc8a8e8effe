/**
 * The workspace's home (no note open): today's daily note, pinned notes, notes opened recently on
 * this device; an empty vault offers a first note. And the New note form: a title and a folder
 * (completed from the vault's folders), then the editor on the new note.
 * Pins and the recent list are this device's, per server, in localStorage.
 */
import { isUnreachable } from '../flow/api.ts';
import type { FolderNode } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { describe, type Workspace } from './workspace-context.ts';

const RECENT_MAX = 8;
const key = (ws: Workspace, what: string) => `quire.${what}.${ws.profile.id}`;

function readList(ws: Workspace, what: string): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(key(ws, what)) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
function writeList(ws: Workspace, what: string, list: string[]): void {
  try {
    localStorage.setItem(key(ws, what), JSON.stringify(list));
  } catch {
    // Storage full or refused: the home shows less, nothing breaks.
  }
}

/** Notes this device opened, newest first. */
export function noteOpened(ws: Workspace, path: string): void {
  writeList(ws, 'recent', [path, ...readList(ws, 'recent').filter((p) => p !== path)].slice(0, RECENT_MAX));
}

export const isPinned = (ws: Workspace, path: string): boolean => readList(ws, 'pins').includes(path);

/** Pins or unpins `path`; answers whether it is pinned now. */
export function togglePin(ws: Workspace, path: string): boolean {
  const pins = readList(ws, 'pins');
  const on = !pins.includes(path);
  writeList(ws, 'pins', on ? [...pins, path] : pins.filter((p) => p !== path));
  return on;
}

/** Today as a daily note's name: `YYYY-MM-DD` (Obsidian's default format). */
export function todayName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

/** The home view over the vault's notes (path and title). */
export function homeView(ws: Workspace, notes: readonly { path: string; title: string }[]): HTMLElement {
  const titles = new Map(notes.map((n) => [n.path, n.title]));
  const link = (path: string) =>
    h(
      'li',
      {},
      h('a', { href: `#note=${encodeURIComponent(path)}`, 'data-path': path }, titles.get(path) ?? path),
    );
  const root = h('section', { class: 'home', 'data-testid': 'home', 'aria-labelledby': 'home-h' });
  if (!notes.length) {
    mount(
      root,
      h('h1', { id: 'home-h' }, 'Welcome to your vault'),
      h('p', {}, 'It has no notes yet. Write the first one: give it a title, and the editor opens.'),
      h(
        'button',
        { type: 'button', class: 'primary', 'data-testid': 'first-note', onclick: () => ws.newNote() },
        'Create your first note',
      ),
    );
    return root;
  }
  const today = todayName();
  const daily = notes.find((n) => n.path.replace(/^.*\//, '') === `${today}.md`);
  const pins = readList(ws, 'pins').filter((p) => titles.has(p));
  const recent = readList(ws, 'recent').filter((p) => titles.has(p));
  mount(
    root,
    h('h1', { id: 'home-h' }, 'Home'),
    h('h2', {}, 'Today'),
    daily
      ? h('ul', { 'data-testid': 'home-daily' }, link(daily.path))
      : h(
          'p',
          { 'data-testid': 'home-daily' },
          h(
            'button',
            {
              type: 'button',
              onclick: () => void createAndEdit(ws, `${today}.md`, `# ${today}\n\n`),
            },
            `Create today’s note (${today})`,
          ),
        ),
    h('h2', {}, 'Pinned'),
    pins.length
      ? h('ul', { 'data-testid': 'home-pinned' }, ...pins.map(link))
      : h(
          'p',
          { class: 'hint', 'data-testid': 'home-pinned' },
          'Pin a note with its Pin button to keep it here.',
        ),
    h('h2', {}, 'Recent'),
    recent.length
      ? h('ul', { 'data-testid': 'home-recent' }, ...recent.map(link))
      : h('p', { class: 'hint', 'data-testid': 'home-recent' }, 'Notes you open show here.'),
  );
  return root;
}

/** Creates `path` with `content`, opens it and starts editing it. */
async function createAndEdit(ws: Workspace, path: string, content: string): Promise<void> {
  try {
    const note = await ws.api.create(path, content);
    ws.say(`Created ${note.path}.`);
    await ws.refresh();
    await ws.open(note.path);
    // The note shows once its read answers (after the address changed): then its Edit.
    const edit = `article[data-path="${CSS.escape(note.path)}"] [data-testid="edit"]`;
    const until = Date.now() + 10_000;
    while (!document.querySelector(edit) && Date.now() < until)
      await new Promise((r) => requestAnimationFrame(r));
    document.querySelector<HTMLButtonElement>(edit)?.click();
  } catch (err) {
    // Offline: the note is written on this device and created when the server answers again.
    const kept = isUnreachable(err) && ws.draftNote ? ws.draftNote(path, content) : null;
    if (kept) {
      ws.say(`Offline: ${kept} is kept on this device and created when the server answers again.`);
      await ws.open(kept);
      return;
    }
    ws.say(
      isUnreachable(err) && ws.draftNote
        ? 'Offline, and this browser’s storage is full: the note could not be kept on this device.'
        : describe(err, ws.profile.apiKey),
      'error',
    );
  }
}

/** Every folder path of a tree ('' is the root, left out). */
function folderPaths(tree: FolderNode): string[] {
  const out: string[] = [];
  const walk = (n: FolderNode) => {
    for (const c of n.children)
      if (c.type === 'folder') {
        out.push(c.path);
        walk(c as FolderNode);
      }
  };
  walk(tree);
  return out;
}

/** The new-note form: a title and a folder (completed from the vault's), then the editor. */
export function newNoteForm(ws: Workspace): HTMLElement {
  const title = h('input', {
    id: 'new-title',
    name: 'title',
    required: true,
    autocomplete: 'off',
    'data-testid': 'new-title',
  });
  const folder = h('input', {
    id: 'new-folder',
    name: 'folder',
    list: 'new-folders',
    autocomplete: 'off',
    placeholder: 'the vault’s top level',
    'data-testid': 'new-folder',
  });
  const folders = h('datalist', { id: 'new-folders', 'data-testid': 'new-folders' });
  void ws.api
    .tree()
    .then((t) => mount(folders, ...folderPaths(t).map((p) => h('option', { value: p }))))
    .catch(() => {});
  const form = h(
    'form',
    { class: 'editor new-note', 'aria-labelledby': 'new-note-h' },
    h('h1', { id: 'new-note-h' }, 'New note'),
    h('label', { for: 'new-title' }, 'Title'),
    title,
    h('label', { for: 'new-folder' }, 'Folder (optional)'),
    folder,
    folders,
    h('button', { type: 'submit', 'data-testid': 'create' }, 'Create and edit'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = title.value
      .trim()
      .replace(/\.md$/i, '')
      .replace(/[\\/:*?"<>|#^[\]]/g, ' ')
      .trim();
    if (!name) return;
    const dir = folder.value.trim().replace(/^\/+|\/+$/g, '');
    void createAndEdit(ws, `${dir ? `${dir}/` : ''}${name}.md`, `# ${title.value.trim()}\n\n`);
  });
  queueMicrotask(() => title.focus());
  return form;
}
