import { offlineStore } from '../flow/offline-store.ts';
import { type Profile, profileStore } from '../flow/profiles.ts';
import { workspaceApi } from '../flow/workspace-api.ts';
import { chatPanel } from './chat.ts';
import { h, mount } from './dom.ts';
import { newNoteForm } from './home.ts';
import { quickSwitcher } from './switcher.ts';
import { treeController } from './tree-view.ts';
import type { Workspace } from './workspace-context.ts';
import { followWorkspace } from './workspace-live.ts';
import { draftNewNote, refreshPage, showFromHash, type WorkspacePage } from './workspace-page.ts';
import { noteList, searchView, shellHeader } from './workspace-parts.ts';

/** The /workspace page for the active profile; without one, a pointer to /link. */
export function renderWorkspace(root: HTMLElement): void {
  const active = profileStore(localStorage).active();
  if (!active) {
    mount(
      root,
      h(
        'main',
        { class: 'empty' },
        h('h1', {}, 'No server linked yet'),
        h('p', {}, 'Open a connect link from your server’s setup page, or '),
        h('a', { href: '/link', 'data-testid': 'go-link' }, 'enter a server by hand'),
      ),
    );
    return;
  }
  const page = newPage(active);
  const show = () => showFromHash(page);
  window.addEventListener('hashchange', () => void show());
  // The network back: reload the list, which sends what was typed offline (workspace-page.ts).
  window.addEventListener('online', () => void page.ws.refresh());
  followWorkspace(page.ws, page.mainPanel, show);

  // A link to the note already in the address bar changes no hash: open it all the same.
  root.addEventListener('click', (e) => {
    const a = (e.target as Element).closest?.('a[href^="#note="]');
    if (!a) return;
    e.preventDefault();
    void page.ws.open(decodeURIComponent(a.getAttribute('href')!.slice('#note='.length)));
  });
  mount(root, layout(page));
  // The first list can take a while; a note the person opened meanwhile (and maybe began to edit)
  // is already shown and is not shown again under them.
  const before = page.showing;
  void page.ws.refresh().then(() => (page.showing === before ? show() : undefined));
}

/** The page's state, and the `Workspace` handle the panels use over it. */
function newPage(profile: Profile): WorkspacePage {
  const page: WorkspacePage = {
    api: workspaceApi(profile),
    profile,
    offline: offlineStore(localStorage, profile.id),
    ws: null as unknown as Workspace, // set just below: the handle needs the page
    shell: h('div', { class: 'workspace', 'data-view': 'note' }),
    status: h('p', { class: 'status', 'data-testid': 'status', role: 'status' }),
    mainPanel: h(
      'section',
      { class: 'note', 'data-testid': 'note-panel' },
      h('p', { class: 'hint' }, 'Pick a note, search, or create one (Ctrl+K opens a note by name).'),
    ),
    tagPane: h('ul', { class: 'tag-pane', 'data-testid': 'tag-pane' }),
    tree: treeController(),
    list: noteList(),
    search: null,
    allNotes: [],
    tagFilter: null,
    attachmentFolder: undefined,
    warmed: false,
    showing: 0,
    focusHeadingOf: null,
    syncPanel: h('div', { class: 'sync-panel', hidden: true }),
    syncing: false,
    refused: new Set(),
  };
  page.ws = {
    api: page.api,
    profile,
    async open(path, options) {
      if (options?.focusHeading) page.focusHeadingOf = path;
      const hash = `#note=${encodeURIComponent(path)}`;
      if (location.hash === hash) await showFromHash(page);
      else location.hash = hash;
    },
    refresh: () => refreshPage(page),
    say(text, kind = 'info') {
      page.status.textContent = text;
      page.status.dataset.kind = kind;
    },
    newNote() {
      page.search?.close();
      page.shell.dataset.view = 'note';
      mount(page.mainPanel, newNoteForm(page.ws));
    },
    draftNote: (path, text) => draftNewNote(page, path, text),
  };
  return page;
}

/** The shell: header, the tree pane (drawer on narrow screens), the main pane, chat and the switcher. */
function layout(page: WorkspacePage): HTMLElement {
  const { ws, shell, mainPanel, offline } = page;
  const search = searchView(ws, mainPanel, () => {
    shell.dataset.view = 'note';
  });
  page.search = search;
  // The list carries the aliases (offline, the list as last seen and the kept notes do).
  const switcher = quickSwitcher(
    () => {
      const kept = page.allNotes.some((n) => n.aliases) ? null : offline.aliases();
      return page.allNotes.map((n) => ({
        path: n.path,
        title: n.title,
        aliases: n.aliases ?? kept?.get(n.path) ?? [],
      }));
    },
    (path) => void ws.open(path),
  );
  const header = shellHeader(ws, shell, search.form, () => switcher.show());
  document.addEventListener('keydown', (e) => {
    // A key the editor took (Ctrl+K makes a link there) is not the switcher's.
    if (e.defaultPrevented) return;
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      switcher.show();
    } else if (e.key === 'Escape' && shell.dataset.drawer === 'open') {
      delete shell.dataset.drawer;
      header.drawerButton.focus();
    }
  });
  const backdrop = h('div', { class: 'drawer-backdrop', 'aria-hidden': 'true' });
  backdrop.addEventListener('click', () => delete shell.dataset.drawer);

  mount(
    shell,
    header.el,
    h(
      'aside',
      { class: 'pane tree-pane', id: 'tree-pane', 'aria-label': 'Your notes' },
      h('h2', {}, 'Folders'),
      page.tree.el,
      h('h2', {}, 'Tags'),
      page.tagPane,
      h('h2', {}, 'All notes'),
      page.list.el,
      h('p', {}, h('a', { href: '#trash', 'data-testid': 'trash-open' }, 'Trash')),
      header.drawerExtras,
    ),
    backdrop,
    h(
      'main',
      { class: 'pane main-pane', 'data-testid': 'main' },
      page.status,
      page.syncPanel,
      search.view,
      mainPanel,
    ),
    chatAsView(
      shell,
      chatPanel(
        ws,
        () => location.hash.match(/^#note=(.+)$/)?.[1],
        () => {
          shell.dataset.view = 'note';
        },
      ),
    ),
    switcher.el,
  );
  return shell;
}

/**
 * On narrow screens the chat takes the main pane's place (which is hidden): while it does, it is
 * the page's main landmark and its heading the first level, so the page keeps one of each.
 */
function chatAsView(shell: HTMLElement, chat: HTMLElement): HTMLElement {
  const heading = chat.querySelector('h2');
  const follow = () => {
    const own = shell.dataset.view === 'chat';
    chat.setAttribute('role', own ? 'main' : 'complementary');
    if (own) heading?.setAttribute('aria-level', '1');
    else heading?.removeAttribute('aria-level');
  };
  new MutationObserver(follow).observe(shell, { attributes: true, attributeFilter: ['data-view'] });
  return chat;
}
