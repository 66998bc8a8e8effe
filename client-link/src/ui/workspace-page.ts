/**
 * The /workspace page's state and the two things it does with it: load the tree and the list
 * (`refreshPage`), and show what the address bar names (`showFromHash`). workspace.ts builds the
 * page and wires the events; the panels only see the `Workspace` handle.
 */
import type { ListEntry, OfflineStore } from '../flow/offline-store.ts';
import type { Profile } from '../flow/profiles.ts';
import type { WorkspaceApi } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { homeView, noteOpened } from './home.ts';
import { log } from './log.ts';
import { warmRenderer } from './markdown.ts';
import { noteView } from './note-view.ts';
import { draftOffer, isOffline, offlineNoteView } from './offline-view.ts';
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
  else delete page.shell.dataset.offline;
}

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
      page.allNotes = kept.list;
      renderList(page);
      page.ws.say(
        'Offline: showing your notes as last seen on this device. Notes read recently open read-only.',
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
  const mine = beginShowing(page);
  page.tree.reveal(path);
  mount(page.mainPanel, h('p', { class: 'hint' }, 'Loading…'));
  const view = await noteViewOf(page, path);
  if (mine === page.showing) {
    mount(page.mainPanel, ...view());
    performance.mark('quire:note-shown');
  } else log.info('workspace: dropped a late read of', path, '(a newer note was opened meanwhile)');
}

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
    const draft = offline.draft(path);
    return () =>
      [draft ? draftOffer(ws, draft, offline) : null, noteView(ws, note)].filter((n) => n !== null);
  } catch (err) {
    const kept = isOffline(err) ? offline.note(path) : null;
    if (isOffline(err)) setOffline(page, true);
    return () => [
      kept
        ? offlineNoteView(kept.note, kept.savedAt, offline)
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
