import { followChanges, type LiveEvent } from '../flow/live-feed.ts';
import type { NoteSummary } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { openPath, type Workspace } from './workspace-context.ts';

/** The tag pane: every tag with its count; a click filters the note list (again: shows all). */
export function renderTagPane(
  pane: HTMLElement,
  tags: { tag: string; count: number }[],
  active: string | null,
  choose: (tag: string | null) => void,
): void {
  mount(
    pane,
    ...tags.map((t) => {
      const on = active !== null && t.tag.toLowerCase() === active.toLowerCase();
      return h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            class: on ? 'tag active' : 'tag',
            'aria-pressed': on ? 'true' : 'false',
            'data-tag': t.tag,
            onclick: () => choose(on ? null : t.tag),
          },
          `#${t.tag} (${t.count})`,
        ),
      );
    }),
  );
}

/**
 * The notes carrying `tag` (case-insensitive), or all of them. Tags nest as in Obsidian (and the
 * server's `tagMatches`): `project` also shows the notes tagged `project/alpha`.
 */
export function filterByTag<N extends Pick<NoteSummary, 'tags'>>(
  notes: readonly N[],
  tag: string | null,
): N[] {
  if (tag === null) return [...notes];
  const want = tag.toLowerCase();
  return notes.filter((n) =>
    n.tags.some((t) => {
      const l = t.toLowerCase();
      return l === want || l.startsWith(`${want}/`);
    }),
  );
}

/** What the change feed means for the note open in the main panel. */
export type OpenNoteChange =
  | { kind: 'none' }
  | { kind: 'changed' }
  | { kind: 'deleted' }
  | { kind: 'moved'; to: string };

/**
 * Folds the events about `open` into one change (the last one wins; a move follows the note). An
 * update to `shown`, the version the workspace shows (its own save, come back through the feed),
 * is no change: reshowing it would close an editor opened meanwhile, and the notice would say the
 * note changed elsewhere when it did not.
 */
export function changeFor(
  open: string | null,
  events: readonly LiveEvent[],
  reset: boolean,
  shown?: string | null,
): OpenNoteChange {
  if (open === null) return { kind: 'none' };
  let path = open;
  let change: OpenNoteChange = reset ? { kind: 'changed' } : { kind: 'none' };
  for (const e of events) {
    if (e.type === 'note.moved' && e.data.from === path) {
      path = e.data.path;
      change = { kind: 'moved', to: path };
    } else if (e.data.path === path) {
      if (e.type === 'note.updated' && shown && e.data.checksum === shown && path === open) continue;
      if (e.type === 'note.deleted') change = { kind: 'deleted' };
      else if (change.kind !== 'moved') change = { kind: 'changed' };
    }
  }
  return change;
}

/** The notice shown in an open editor when the note changed elsewhere: the text is never replaced. */
export function remoteChangeNotice(what: string, reload: () => void): HTMLElement {
  return h(
    'div',
    { class: 'alert', role: 'alert', 'data-testid': 'remote-change' },
    `${what} Your text is kept and was not saved; saving now would be refused. Copy what you need, then `,
    h('button', { type: 'button', onclick: reload }, 'load the server version'),
    '.',
  );
}

/**
 * Follows the change feed: changes made elsewhere (another device, an editor on the server's disk)
 * reload the tree and list and the open note within 2 s; an open editor is never overwritten.
 */
export function followWorkspace(ws: Workspace, mainPanel: HTMLElement, reshow: () => Promise<void>): void {
  let pending: { events: LiveEvent[]; reset: boolean } | null = null;
  const applyChanges = async () => {
    const batch = pending!;
    pending = null;
    await ws.refresh();
    const shown = mainPanel.querySelector('article[data-testid="note"]')?.getAttribute('data-checksum');
    const change = changeFor(openPath(), batch.events, batch.reset, shown);
    if (change.kind === 'none') return;
    const editor = mainPanel.querySelector('form.editor');
    // A live editor takes every change of its note into its document (core/live): nothing to say.
    if (editor?.classList.contains('live')) return;
    // An editor still loading (note-view.ts) opens on the version shown: left alone as an open one.
    if (!editor && mainPanel.querySelector('[data-opening="editor"]')) return;
    if (editor) {
      editor.querySelector('[data-testid="remote-change"]')?.remove();
      const what =
        change.kind === 'deleted'
          ? 'This note was deleted elsewhere.'
          : change.kind === 'moved'
            ? `This note was moved elsewhere to ${change.to}.`
            : 'This note was changed elsewhere while you edit it.';
      editor.prepend(
        remoteChangeNotice(what, () => void (change.kind === 'moved' ? ws.open(change.to) : reshow())),
      );
    } else if (change.kind === 'moved') await ws.open(change.to);
    else if (change.kind === 'deleted') {
      mount(
        mainPanel,
        h('p', { class: 'hint', 'data-testid': 'deleted-elsewhere' }, 'This note was deleted elsewhere.'),
      );
    } else await reshow();
  };
  followChanges(ws.profile, {
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
}
