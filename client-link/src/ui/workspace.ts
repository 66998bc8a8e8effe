import { ApiFailure } from '../flow/api.ts';
import { followChanges, type LiveEvent } from '../flow/live-feed.ts';
import { type Profile, profileStore } from '../flow/profiles.ts';
import { redact } from '../flow/redact.ts';
import { type NoteSummary, type WorkspaceApi, workspaceApi } from '../flow/workspace-api.ts';
import { chatPanel } from './chat.ts';
import { h, mount } from './dom.ts';
import { log } from './log.ts';
import { noteView } from './note-view.ts';
import { changeFor, filterByTag, remoteChangeNotice, renderTagPane } from './workspace-live.ts';
import { newNoteForm, profileSwitcher, treeView } from './workspace-parts.ts';

/** Shared by the workspace's panels. */
export interface Workspace {
  api: WorkspaceApi;
  profile: Profile;
  /** Opens a note in the main panel. */
  open(path: string): Promise<void>;
  /** Reloads the tree and the list (after a write). */
  refresh(): Promise<void>;
  /** Shows a message in the status line. */
  say(text: string, kind?: 'info' | 'error'): void;
  /** Shows the new-note form. */
  newNote(): void;
  /** Optional: shows the notes of a tag (a tag link or pill was clicked); note-view lists them itself without it. */
  onTag?(tag: string): void;
}

/** A failure as one sentence, keys redacted. */
export function describe(err: unknown, key?: string): string {
  const msg = err instanceof ApiFailure ? err.message : 'Something went wrong.';
  return redact(msg, [key]);
}

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
  const status = h('p', { class: 'status', 'data-testid': 'status', role: 'status' });
  const side = h('nav', { class: 'side', 'data-testid': 'tree' });
  const list = h('ul', { class: 'note-list', 'data-testid': 'note-list' });
  const mainPanel = h(
    'section',
    { class: 'note', 'data-testid': 'note-panel' },
    h('p', { class: 'hint' }, 'Pick a note, search, or create one.'),
  );
  const results = h('ul', { class: 'results', 'data-testid': 'search-results' });
  const tagPane = h('ul', { class: 'tag-pane', 'data-testid': 'tag-pane' });
  let allNotes: NoteSummary[] = [];
  let tagFilter: string | null = null;
  const renderList = () =>
    mount(
      list,
      ...filterByTag(allNotes, tagFilter).map((n) =>
        h(
          'li',
          {},
          h('a', { href: `#note=${encodeURIComponent(n.path)}`, 'data-path': n.path }, n.title),
          h('small', {}, ` ${n.path}`),
        ),
      ),
    );
  const loadTags = async () => {
    renderTagPane(tagPane, await api.tags(), tagFilter, (t) => {
      tagFilter = t;
      renderList();
      void loadTags().catch(() => {});
    });
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
        const [tree, notes] = await Promise.all([api.tree(), api.listNotes(), loadTags()]);
        mount(side, treeView(tree, ws));
        allNotes = notes;
        renderList();
      } catch (err) {
        ws.say(`Could not load your notes: ${describe(err, profile.apiKey)}`, 'error');
      }
    },
    say(text, kind = 'info') {
      status.textContent = text;
      status.dataset.kind = kind;
    },
    newNote() {
      mount(mainPanel, newNoteForm(ws));
    },
  };

  // Each showing takes a number; a read that answers after a newer showing began is dropped, so a
  // slow earlier read (a live-feed reload, say) never replaces the note the user went to since.
  let showing = 0;
  async function showFromHash() {
    const m = location.hash.match(/^#note=(.+)$/);
    if (!m) return;
    const mine = ++showing;
    const path = decodeURIComponent(m[1]!);
    mount(mainPanel, h('p', { class: 'hint' }, 'Loading…'));
    let view: () => HTMLElement;
    try {
      const note = await api.read(path);
      view = () => noteView(ws, note);
    } catch (err) {
      view = () => h('p', { class: 'alert', role: 'alert' }, describe(err, profile.apiKey));
    }
    if (mine === showing) mount(mainPanel, view());
    else log.info('workspace: dropped a late read of', path, '(a newer note was opened meanwhile)');
  }
  window.addEventListener('hashchange', () => void showFromHash());

  // Changes made elsewhere (another device, an editor on the server's disk) show within 2 s.
  let pending: { events: LiveEvent[]; reset: boolean } | null = null;
  const applyChanges = async () => {
    const batch = pending!;
    pending = null;
    await ws.refresh();
    const m = location.hash.match(/^#note=(.+)$/);
    const change = changeFor(m ? decodeURIComponent(m[1]!) : null, batch.events, batch.reset);
    if (change.kind === 'none') return;
    const editor = mainPanel.querySelector('form.editor');
    if (editor) {
      editor.querySelector('[data-testid="remote-change"]')?.remove();
      const what =
        change.kind === 'deleted'
          ? 'This note was deleted elsewhere.'
          : change.kind === 'moved'
            ? `This note was moved elsewhere to ${change.to}.`
            : 'This note was changed elsewhere while you edit it.';
      editor.prepend(
        remoteChangeNotice(what, () => void (change.kind === 'moved' ? ws.open(change.to) : showFromHash())),
      );
    } else if (change.kind === 'moved') await ws.open(change.to);
    else if (change.kind === 'deleted') {
      mount(
        mainPanel,
        h('p', { class: 'hint', 'data-testid': 'deleted-elsewhere' }, 'This note was deleted elsewhere.'),
      );
    } else await showFromHash();
  };
  followChanges(profile, {
    onConnected: () => void ws.refresh(),
    onEvents(events, reset) {
      if (pending) {
        pending.events.push(...events);
        pending.reset ||= reset;
        return;
      }
      pending = { events: [...events], reset };
      setTimeout(() => void applyChanges().catch(() => {}), 100);
    },
  });
  // A link to the note already in the address bar changes no hash: open it all the same.
  root.addEventListener('click', (e) => {
    const a = (e.target as Element).closest?.('a[href^="#note="]');
    if (!a) return;
    e.preventDefault();
    void ws.open(decodeURIComponent(a.getAttribute('href')!.slice('#note='.length)));
  });

  const search = h('input', {
    type: 'search',
    placeholder: 'Search notes',
    'data-testid': 'search',
    'aria-label': 'Search notes',
  });
  const searchForm = h('form', { class: 'search' }, search);
  searchForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const q = search.value.trim();
    if (!q) return mount(results);
    try {
      const hits = await api.search(q);
      mount(
        results,
        ...(hits.length
          ? hits.map((hit) =>
              h(
                'li',
                {},
                h('a', { href: `#note=${encodeURIComponent(hit.path)}` }, hit.title),
                h('p', {}, hit.snippet),
              ),
            )
          : [h('li', { class: 'hint' }, `Nothing found for “${q}”.`)]),
      );
    } catch (err) {
      ws.say(describe(err, profile.apiKey), 'error');
    }
  });

  mount(
    root,
    h(
      'div',
      { class: 'workspace' },
      h(
        'header',
        {},
        h('strong', { class: 'brand' }, 'Quire'),
        profileSwitcher(profile),
        searchForm,
        h('button', { type: 'button', 'data-testid': 'new-note', onclick: () => ws.newNote() }, 'New note'),
      ),
      h(
        'aside',
        {},
        h('h2', {}, 'Folders'),
        side,
        h('h2', {}, 'Tags'),
        tagPane,
        h('h2', {}, 'All notes'),
        list,
      ),
      h('main', {}, status, results, mainPanel),
      chatPanel(ws, () => location.hash.match(/^#note=(.+)$/)?.[1]),
    ),
  );
  void ws.refresh().then(showFromHash);
}
