/**
 * The /workspace page's state and the two things it does with it: load the tree and the list
 * (`refreshPage`), and show what the address bar names (`showFromHash`). workspace.ts builds the
 * page and wires the events; the panels only see the `Workspace` handle.
 */
import type { ListEntry, OfflineStore } from '../flow/offline-store.ts';
import { nthName, syncDrafts } from '../flow/offline-sync.ts';
import type { Profile } from '../flow/profiles.ts';
import type { WorkspaceApi } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { homeView, noteOpened } from './home.ts';
import { log } from './log.ts';
import { warmRenderer } from './markdown.ts';
import { noteView } from './note-view.ts';
import { isOffline, offlineNoteView, pendingDraftBox, showSyncReport } from './offline-view.ts';
import { historyOf, trashView } from './trash-view.ts';
import type { TreeController } from './tree-view.ts';
import { describe, openPath, type Workspace } from './workspace-context.ts';
import { filterByTag, renderTagPane } from './workspace-live.ts';
import type { noteList } from './workspace-parts.ts';

export interface WorkspacePage {
  api: WorkspaceApi;
  profile: Profile;
  offline: OfflineStore;
  ws: Workspace;
  /** Elements. */
  shell: HTMLElement;
  status: HTMLElement;
  mainPanel: HTMLElement;
  tagPane: HTMLElement;
  tree: TreeController;
  list: ReturnType<typeof noteList>;
  /** The search box; set once the page is built. */
  search: { close(): void } | null;
  /** What the list shows, before the tag filter. */
  allNotes: ListEntry[];
  tagFilter: string | null;
  /** The attachments folder, asked once with the first load (undefined: not yet). */
  attachmentFolder: string | null | undefined;
  /** Whether the renderer was warmed (once, when idle after the first paint). */
  warmed: boolean;
  /**
   * Each showing takes a number; a read that answers after a newer showing began is dropped, so a
   * slow earlier read (a live-feed reload, say) never replaces the note the user went to since.
   */
  showing: number;
  /** A note whose title takes the focus when it is next shown (see Workspace.open). */
  focusHeadingOf: string | null;
  /** Where the report of the drafts sent on reconnect shows. */
  syncPanel: HTMLElement;
  /** True while the drafts are being sent (one sending at a time). */
  syncing: boolean;
  /** Drafts the server refused (path and time), not sent again until typed into. */
  refused: Set<string>;
}

export const renderList = (page: WorkspacePage): void =>
  page.list.show(filterByTag(page.allNotes, page.tagFilter));

export async function loadTags(page: WorkspacePage): Promise<void> {
  renderTagPane(page.tagPane, await page.api.tags(), page.tagFilter, (t) => {
    page.tagFilter = t;
    renderList(page);
    void loadTags(page).catch(() => {});
  });
}

export function setOffline(page: WorkspacePage, off: boolean): void {
  if (off) page.shell.dataset.offline = 'true';
  else {
    delete page.shell.dataset.offline;
    // The server answers: what was typed offline (this session or one before a reload) goes now.
    void sendDrafts(page);
  }
}

/**
 * Sends the drafts kept offline (offline-sync.ts), then shows what merged cleanly and what needs a
 * look, reloads the list, and shows the open note again when it was an offline view of it.
 */
export async function sendDrafts(page: WorkspacePage): Promise<void> {
  // Drafts the server refused stay on this device; they are not sent again at every reload.
  const waiting = page.offline.drafts().filter((d) => !page.refused.has(`${d.path}\n${d.savedAt}`));
  if (page.syncing || !waiting.length) return;
  page.syncing = true;
  try {
    const report = await syncDrafts(page.api, page.offline);
    for (const o of report.outcomes)
      if (o.kind === 'failed') {
        const d = page.offline.draft(o.path);
        if (d) page.refused.add(`${d.path}\n${d.savedAt}`);
      }
    if (!report.outcomes.length) return;
    showSyncReport(page.syncPanel, report);
    const look = report.outcomes.filter(
      (o) => o.kind !== 'saved' && o.kind !== 'merged' && o.kind !== 'created',
    );
    page.ws.say(
      `Sent ${report.outcomes.length} offline edit(s)${look.length ? `; ${look.length} need a look` : ', all merged cleanly'}.`,
    );
    await refreshPage(page);
    const open = openPath();
    const moved = report.outcomes.find(
      (o) => (o.kind === 'renamed' || o.kind === 'recreated') && o.path === open,
    );
    if (moved && 'to' in moved) await page.ws.open(moved.to);
    else if (page.mainPanel.querySelector('article[data-offline]')) await showFromHash(page);
  } finally {
    page.syncing = false;
  }
}

/**
 * Keeps a note created while the server cannot be reached as a draft (created when it answers),
 * under a name free among the notes and drafts this device knows; answers that name, or null when
 * storage refused it.
 */
export function draftNewNote(page: WorkspacePage, path: string, text: string): string | null {
  const taken = new Set([...page.allNotes.map((n) => n.path), ...page.offline.drafts().map((d) => d.path)]);
  let n = 1;
  while (taken.has(nthName(path, n))) n++;
  const at = nthName(path, n);
  if (!page.offline.saveDraft({ path: at, text, baseChecksum: null })) return null;
  page.allNotes = [
    ...page.allNotes,
    { path: at, title: at.replace(/^.*\//, '').replace(/\.md$/i, ''), tags: [] },
  ];
  renderList(page);
  return at;
}

/** The notes created offline and not sent yet, as list entries. */
const draftEntries = (page: WorkspacePage, known: readonly ListEntry[]): ListEntry[] => {
  const have = new Set(known.map((n) => n.path));
  return page.offline
    .drafts()
    .filter((d) => d.baseChecksum === null && !have.has(d.path))
    .map((d) => ({ path: d.path, title: d.path.replace(/^.*\//, '').replace(/\.md$/i, ''), tags: [] }));
};

/** Loads the tree, the list and the tags; offline, shows the list as last seen on this device. */
export async function refreshPage(page: WorkspacePage): Promise<void> {
  const { api, tree, offline } = page;
  try {
    // The attachments folder is asked once, alongside the first load.
    const folder =
      page.attachmentFolder === undefined
        ? api.files
            .attachmentPath('probe.png', 'probe.md')
            .then((r) => r.folder || null)
            .catch(() => null)
        : page.attachmentFolder;
    const [t, notes] = await Promise.all([api.tree(), api.listNotes(), loadTags(page)]);
    page.attachmentFolder = await folder;
    performance.mark('quire:list-arrived');
    setOffline(page, false);
    tree.render(t, page.attachmentFolder);
    const open = openPath();
    if (open) tree.reveal(open);
    page.allNotes = notes;
    renderList(page);
    performance.mark('quire:tree-rendered');
    // The copy for offline use is written after the first paint, not before it.
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('quire:tree-painted');
        offline.keepList(t, notes);
        if (!page.warmed) {
          page.warmed = true;
          const idle = window.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 50));
          idle(() => warmRenderer());
        }
      }, 0),
    );
  } catch (err) {
    const kept = isOffline(err) ? offline.list() : null;
    if (isOffline(err)) setOffline(page, true);
    if (kept) {
      if (kept.tree) tree.render(kept.tree, null);
      page.allNotes = [...kept.list, ...draftEntries(page, kept.list)];
      renderList(page);
      page.ws.say(
        'Offline: showing your notes as last seen on this device. Notes read recently open from their copy; what you type is kept here and sent when the server answers.',
      );
    } else page.ws.say(`Could not load your notes: ${describe(err, page.profile.apiKey)}`, 'error');
  }
}

/** Starts a showing in the main panel: its number, the search closed, the drawer shut. */
function beginShowing(page: WorkspacePage): number {
  const mine = ++page.showing;
  page.search?.close();
  page.shell.dataset.view = 'note';
  delete page.shell.dataset.drawer;
  return mine;
}

/** What the address bar names: the Trash, a note's History, or a note. */
export async function showFromHash(page: WorkspacePage): Promise<void> {
  // The Trash view and a note's History view have addresses of their own, so a
  // live-feed reload shows them again (with what changed) instead of the note.
  const special = /^#(trash$|history=(.+))/.exec(location.hash);
  // A wish to focus a note's title lapses once another view is shown.
  if (page.focusHeadingOf !== openPath()) page.focusHeadingOf = null;
  if (special) {
    const mine = beginShowing(page);
    const at = special[2] ? decodeURIComponent(special[2]) : null;
    const view = at ? await historyOf(page.ws, at) : trashView(page.ws);
    if (mine === page.showing) mount(page.mainPanel, view);
    return;
  }
  const path = openPath();
  if (path === null) {
    if (page.mainPanel.querySelector('form')) return; // a form the person is filling in stays
    mount(page.mainPanel, homeView(page.ws, page.allNotes));
    return;
  }
  // Showing the same note again (a live-feed reload) keeps a focused title focused.
  if (headingOf(page.mainPanel, path) === document.activeElement) page.focusHeadingOf = path;
  const mine = beginShowing(page);
  page.tree.reveal(path);
  mount(page.mainPanel, h('p', { class: 'hint' }, 'Loading…'));
  const view = await noteViewOf(page, path);
  if (mine === page.showing) {
    mount(page.mainPanel, ...view());
    performance.mark('quire:note-shown');
    if (page.focusHeadingOf === path) {
      page.focusHeadingOf = null;
      const heading = headingOf(page.mainPanel, path);
      heading?.setAttribute('tabindex', '-1');
      heading?.focus();
    }
  } else log.info('workspace: dropped a late read of', path, '(a newer note was opened meanwhile)');
}

const headingOf = (panel: HTMLElement, path: string): HTMLElement | null =>
  panel.querySelector<HTMLElement>(`article[data-path="${CSS.escape(path)}"] h1`);

/** Runs `fn` once the next frame is painted and the page is idle (within half a second). */
function afterPaintWhenIdle(fn: () => void): void {
  const idle = window.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 50));
  requestAnimationFrame(() => setTimeout(() => idle(fn, { timeout: 500 }), 0));
}

/** Reads a note: its view (with a draft's offer), or offline the copy kept on this device. */
async function noteViewOf(page: WorkspacePage, path: string): Promise<() => Node[]> {
  const { offline, ws } = page;
  try {
    const note = await page.api.read(path);
    performance.mark('quire:note-arrived');
    setOffline(page, false);
    // The copy kept for offline use rewrites up to 30 notes in localStorage (parsed and
    // serialized again): after the note is painted, not between the click and its text.
    afterPaintWhenIdle(() => {
      offline.keepNote(note);
      noteOpened(ws, note.path);
    });
    // A draft the server refused stays on this device: shown above the note, to send again or drop.
    const draft = offline.draft(path);
    const pending =
      draft &&
      page.refused.has(`${draft.path}\n${draft.savedAt}`) &&
      pendingDraftBox(
        draft,
        async () => {
          page.refused.delete(`${draft.path}\n${draft.savedAt}`);
          await sendDrafts(page);
        },
        () => offline.dropDraft(path),
      );
    return () => (pending ? [pending, noteView(ws, note)] : [noteView(ws, note)]);
  } catch (err) {
    const kept = isOffline(err) ? offline.note(path) : null;
    const draft = isOffline(err) ? offline.draft(path) : null;
    if (isOffline(err)) setOffline(page, true);
    return () => [
      kept || draft
        ? offlineNoteView(kept ?? { path }, offline)
        : h(
            'p',
            { class: 'alert', role: 'alert' },
            isOffline(err) && !kept
              ? `Offline, and ${path} was not read on this device before, so there is no copy to show.`
              : describe(err, page.profile.apiKey),
          ),
    ];
  }
}
