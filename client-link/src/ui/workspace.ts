import { type ListEntry, offlineStore } from '../flow/offline-store.ts';
import { type Profile, profileStore } from '../flow/profiles.ts';
import { workspaceApi } from '../flow/workspace-api.ts';
import { chatPanel } from './chat.ts';
import { h, mount } from './dom.ts';
import { log } from './log.ts';
import { warmRenderer } from './markdown.ts';
import { noteView } from './note-view.ts';
import { draftOffer, isOffline, offlineNoteView } from './offline-view.ts';
import { quickSwitcher } from './switcher.ts';
import { historyOf, trashView } from './trash-view.ts';
import { treeController } from './tree-view.ts';
import { describe, openPath, type Workspace } from './workspace-context.ts';
import { filterByTag, followWorkspace, renderTagPane } from './workspace-live.ts';
import { newNoteForm, noteList, searchView, shellHeader } from './workspace-parts.ts';

/** The /workspace page for the active profile; without one, a pointer to /link. */
export function renderWorkspace(root: HTMLElement): void {
  const profiles = profileStore(localStorage);
  const active = profiles.active();
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
  const profile: Profile = active;
  const api = workspaceApi(profile);
  const offline = offlineStore(localStorage, profile.id);
  const status = h('p', { class: 'status', 'data-testid': 'status', role: 'status' });
  const tree = treeController();
  const list = noteList();
  const mainPanel = h(
    'section',
    { class: 'note', 'data-testid': 'note-panel' },
    h('p', { class: 'hint' }, 'Pick a note, search, or create one (Ctrl+K opens a note by name).'),
  );
  const tagPane = h('ul', { class: 'tag-pane', 'data-testid': 'tag-pane' });
  let allNotes: ListEntry[] = [];
  let tagFilter: string | null = null;
  let attachmentFolder: string | null | undefined;
  let warmed = false;
  const renderList = () => list.show(filterByTag(allNotes, tagFilter));
  const loadTags = async () => {
    renderTagPane(tagPane, await api.tags(), tagFilter, (t) => {
      tagFilter = t;
      renderList();
      void loadTags().catch(() => {});
    });
  };
  const shell = h('div', { class: 'workspace', 'data-view': 'note' });
  const setOffline = (off: boolean) => {
    if (off) shell.dataset.offline = 'true';
    else delete shell.dataset.offline;
  };

  const ws: Workspace = {
    api,
    profile,
    async open(path) {
      const hash = `#note=${encodeURIComponent(path)}`;
      if (location.hash === hash) await showFromHash();
      else location.hash = hash;
    },
    async refresh() {
      try {
        // The attachments folder is asked once, alongside the first load.
        const folder =
          attachmentFolder === undefined
            ? api.files
                .attachmentPath('probe.png', 'probe.md')
                .then((r) => r.folder || null)
                .catch(() => null)
            : attachmentFolder;
        const [t, notes] = await Promise.all([api.tree(), api.listNotes(), loadTags()]);
        attachmentFolder = await folder;
        performance.mark('quire:list-arrived');
        setOffline(false);
        tree.render(t, attachmentFolder);
        const open = openPath();
        if (open) tree.reveal(open);
        allNotes = notes;
        renderList();
        performance.mark('quire:tree-rendered');
        // The copy for offline use is written after the first paint, not before it.
        requestAnimationFrame(() =>
          setTimeout(() => {
            performance.mark('quire:tree-painted');
            offline.keepList(t, notes);
            if (!warmed) {
              warmed = true;
              const idle = window.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 50));
              idle(() => warmRenderer());
            }
          }, 0),
        );
      } catch (err) {
        const kept = isOffline(err) ? offline.list() : null;
        if (isOffline(err)) setOffline(true);
        if (kept) {
          if (kept.tree) tree.render(kept.tree, null);
          allNotes = kept.list;
          renderList();
          ws.say(
            'Offline: showing your notes as last seen on this device. Notes read recently open read-only.',
          );
        } else ws.say(`Could not load your notes: ${describe(err, profile.apiKey)}`, 'error');
      }
    },
    say(text, kind = 'info') {
      status.textContent = text;
      status.dataset.kind = kind;
    },
    newNote() {
      search.close();
      shell.dataset.view = 'note';
      mount(mainPanel, newNoteForm(ws));
    },
  };

  // Each showing takes a number; a read that answers after a newer showing began is dropped, so a
  // slow earlier read (a live-feed reload, say) never replaces the note the user went to since.
  let showing = 0;
  async function showFromHash() {
    // The Trash view and a note's History view have addresses of their own, so a
    // live-feed reload shows them again (with what changed) instead of the note.
    const special = /^#(trash$|history=(.+))/.exec(location.hash);
    if (special) {
      const mine = ++showing;
      search.close();
      shell.dataset.view = 'note';
      delete shell.dataset.drawer;
      const at = special[2] ? decodeURIComponent(special[2]) : null;
      const view = at ? await historyOf(ws, at) : trashView(ws);
      if (mine === showing) mount(mainPanel, view);
      return;
    }
    const path = openPath();
    if (path === null) return;
    const mine = ++showing;
    search.close();
    shell.dataset.view = 'note';
    delete shell.dataset.drawer;
    tree.reveal(path);
    mount(mainPanel, h('p', { class: 'hint' }, 'Loading…'));
    let view: () => Node[];
    try {
      const note = await api.read(path);
      performance.mark('quire:note-arrived');
      setOffline(false);
      offline.keepNote(note);
      const draft = offline.draft(path);
      view = () =>
        [draft ? draftOffer(ws, draft, offline) : null, noteView(ws, note)].filter((n) => n !== null);
    } catch (err) {
      const kept = isOffline(err) ? offline.note(path) : null;
      if (isOffline(err)) setOffline(true);
      view = () => [
        kept
          ? offlineNoteView(kept.note, kept.savedAt, offline)
          : h(
              'p',
              { class: 'alert', role: 'alert' },
              isOffline(err) && !kept
                ? `Offline, and ${path} was not read on this device before, so there is no copy to show.`
                : describe(err, profile.apiKey),
            ),
      ];
    }
    if (mine === showing) {
      mount(mainPanel, ...view());
      performance.mark('quire:note-shown');
    } else log.info('workspace: dropped a late read of', path, '(a newer note was opened meanwhile)');
  }
  window.addEventListener('hashchange', () => void showFromHash());
  followWorkspace(ws, mainPanel, showFromHash);

  // A link to the note already in the address bar changes no hash: open it all the same.
  root.addEventListener('click', (e) => {
    const a = (e.target as Element).closest?.('a[href^="#note="]');
    if (!a) return;
    e.preventDefault();
    void ws.open(decodeURIComponent(a.getAttribute('href')!.slice('#note='.length)));
  });

  const search = searchView(ws, mainPanel, () => {
    shell.dataset.view = 'note';
  });
  // The list carries the aliases (offline, the list as last seen and the kept notes do).
  const switcher = quickSwitcher(
    () => {
      const kept = allNotes.some((n) => n.aliases) ? null : offline.aliases();
      return allNotes.map((n) => ({
        path: n.path,
        title: n.title,
        aliases: n.aliases ?? kept?.get(n.path) ?? [],
      }));
    },
    (path) => void ws.open(path),
  );
  const header = shellHeader(ws, shell, search.form, () => switcher.show());
  document.addEventListener('keydown', (e) => {
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
      tree.el,
      h('h2', {}, 'Tags'),
      tagPane,
      h('h2', {}, 'All notes'),
      list.el,
      h('p', {}, h('a', { href: '#trash', 'data-testid': 'trash-open' }, 'Trash')),
      header.drawerExtras,
    ),
    backdrop,
    h('main', { class: 'pane main-pane', 'data-testid': 'main' }, status, search.view, mainPanel),
    chatPanel(
      ws,
      () => location.hash.match(/^#note=(.+)$/)?.[1],
      () => {
        shell.dataset.view = 'note';
      },
    ),
    switcher.el,
  );
  mount(root, shell);
  void ws.refresh().then(showFromHash);
}
