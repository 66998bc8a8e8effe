import { ApiFailure } from '../flow/api.ts';
import type { Note } from '../flow/workspace-api.ts';
import './render.css';
import { backlinksList } from './backlinks.ts';
import { conflictBanner } from './conflict-view.ts';
import { h, mount } from './dom.ts';
import { openEditor } from './editor.ts';
import type { EditorHandle } from './editor-types.ts';
import { isPinned, togglePin } from './home.ts';
import { renderNote } from './markdown.ts';
import { enhance } from './obsidian-render.ts';
import { propertiesPanel, resolveLinks } from './properties.ts';
import { loadRemoteImages, mountNoteHtml } from './remote-images.ts';
import { followTags, tagPill, tagResults } from './tags.ts';
import { describe, type Workspace } from './workspace-context.ts';

/**
 * One note: properties, rendered body, clickable tags, backlinks with their linking sentences;
 * edit (CodeMirror, saved with If-Match), move and delete.
 */
export function noteView(ws: Workspace, note: Note): HTMLElement {
  // `data-checksum`: the version shown, so the change feed can tell this workspace's own save from a change elsewhere.
  const root = h('article', {
    'data-testid': 'note',
    'data-path': note.path,
    'data-checksum': note.checksum,
  });
  const body = h('div', { class: 'markdown', 'data-testid': 'note-body' });
  // micromark output: raw HTML in the note is escaped, unsafe URLs are dropped; remote images wait;
  // vault embeds are then fetched with the key (obsidian-render.ts).
  const held = mountNoteHtml(body, renderNote(note));
  void enhance(body, ws, note);
  const resolve = (target: string) => {
    const t = target.trim().toLowerCase();
    return note.links.find((l) => l.target.trim().toLowerCase() === t)?.path ?? null;
  };
  const properties = propertiesPanel(note.frontmatter, resolve);
  if (properties?.querySelector('em.unresolved')) {
    void ws.api.listNotes().then(
      (notes) => resolveLinks(properties, notes),
      () => {},
    );
  }
  followTags(root, ws, (tag) => {
    void tagResults(ws, tag, show).then((box) => mount(root, box));
  });
  const loadImages = async (e: Event) => {
    (e.target as HTMLButtonElement).remove();
    const r = await loadRemoteImages(body);
    ws.say(`Loaded ${r.loaded} remote image(s)${r.failed ? `; ${r.failed} refused (shown as links)` : ''}.`);
  };
  const shown: ShownNote = { ws, note, root, show: () => show() };
  const show = () =>
    mount(
      root,
      h('h1', {}, note.title),
      h(
        'p',
        { class: 'meta' },
        `${note.path} · ${note.wordCount} words · updated ${new Date(note.updatedAt).toLocaleString()}`,
      ),
      note.tags.length
        ? h('p', { class: 'tags', 'data-testid': 'tags' }, ...note.tags.map((t) => tagPill(t)))
        : null,
      properties,
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'button', 'data-testid': 'edit', onclick: () => void edit(shown) }, 'Edit'),
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'live',
            onclick: () => void import('./live-edit.ts').then((m) => m.editLive(ws, note, root, show)),
          },
          'Edit live',
        ),
        pinButton(ws, note.path),
        h('button', { type: 'button', 'data-testid': 'move', onclick: () => move(shown) }, 'Move'),
        h('button', { type: 'button', 'data-testid': 'delete', onclick: () => void remove(shown) }, 'Delete'),
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'history-open',
            onclick: () => {
              location.hash = `#history=${encodeURIComponent(note.path)}`;
            },
          },
          'History',
        ),
        held
          ? h(
              'button',
              { type: 'button', 'data-testid': 'load-remote-images', onclick: loadImages },
              `Load ${held} remote image${held > 1 ? 's' : ''}`,
            )
          : null,
      ),
      conflictBanner(ws, note),
      body,
      h('h2', {}, 'Backlinks'),
      backlinksList(ws, note),
    );

  show();
  return root;
}

/** A note on the page: what its actions need. */
interface ShownNote {
  ws: Workspace;
  note: Note;
  root: HTMLElement;
  /** Shows the note again (after Cancel). */
  show(): void;
}

/** Pin / Unpin: a pinned note is listed on the home (this device's). */
function pinButton(ws: Workspace, path: string): HTMLElement {
  const b = h(
    'button',
    { type: 'button', 'data-testid': 'pin', 'aria-pressed': String(isPinned(ws, path)) },
    'Pin',
  );
  b.addEventListener('click', () => b.setAttribute('aria-pressed', String(togglePin(ws, path))));
  return b;
}

/** Opens the editor in place of the note; a save is checked against the version shown (If-Match). */
async function edit({ ws, note, root, show }: ShownNote): Promise<void> {
  let editor: { host: HTMLElement; handle: EditorHandle };
  // Marked while the editor's code loads: a change from the feed meanwhile leaves this view alone
  // (workspace-live.ts), as it leaves an open editor; re-shown, the editor would open into a view
  // no longer on the page. The editor holds the version shown; its save is checked against it.
  root.dataset.opening = 'editor';
  try {
    editor = await openEditor(ws, note.path, note.content);
  } catch (err) {
    ws.say(describe(err, ws.profile.apiKey), 'error');
    return;
  } finally {
    delete root.dataset.opening;
  }
  const problem = h('div', { class: 'alert', role: 'alert', hidden: true, 'data-testid': 'conflict' });
  const form = h(
    'form',
    { class: 'editor' },
    h('h1', {}, `Editing ${note.title}`),
    editor.host,
    problem,
    h('button', { type: 'submit', 'data-testid': 'save' }, 'Save'),
    h('button', { type: 'button', onclick: show }, 'Cancel'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const saved = await ws.api.update(note.path, editor.handle.value(), note.checksum);
      const copy = saved.merge?.copy;
      if (copy) {
        // Merged, but some edits overlapped: nothing was lost, the person looks at both.
        problem.hidden = false;
        mount(
          problem,
          'This note changed on the server since you opened it. Your edits that did not overlap were merged; the whole of your version is kept in ',
          h('button', { type: 'button', onclick: () => void ws.open(copy) }, copy),
          ', and the note keeps the newer text where both changed. ',
          h('button', { type: 'button', onclick: () => void ws.open(note.path) }, 'Open the note'),
        );
        await ws.refresh();
        return;
      }
      ws.say(
        saved.merge ? `Saved ${saved.path}, merged with the changes made since.` : `Saved ${saved.path}.`,
      );
      await ws.refresh();
      await ws.open(saved.path);
    } catch (err) {
      problem.hidden = false;
      if (err instanceof ApiFailure && err.status === 412) {
        // Never overwrite: keep the person's text and let them decide.
        mount(
          problem,
          'This note changed on the server since you opened it, so your version was not saved. Your text is still here: copy what you need, then ',
          h('button', { type: 'button', onclick: () => void ws.open(note.path) }, 'load the server version'),
          '.',
        );
      } else mount(problem, describe(err, ws.profile.apiKey));
    }
  });
  mount(root, form);
  editor.handle.focus();
}

/** The move form: links in other notes are updated by the server. */
function move({ ws, note, root, show }: ShownNote): void {
  const to = h('input', { name: 'to', 'data-testid': 'move-to' });
  to.value = note.path;
  const form = h(
    'form',
    { class: 'editor' },
    h('h2', {}, `Move ${note.path}`),
    to,
    h('p', { class: 'hint' }, 'Links in other notes are updated.'),
    h('button', { type: 'submit', 'data-testid': 'move-save' }, 'Move'),
    h('button', { type: 'button', onclick: show }, 'Cancel'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const moved = await ws.api.move(note.path, to.value.trim(), note.checksum);
      ws.say(`Moved to ${moved.path}.`);
      await ws.refresh();
      await ws.open(moved.path);
    } catch (err) {
      ws.say(describe(err, ws.profile.apiKey), 'error');
    }
  });
  mount(root, form);
}

/** Deletes the note after a confirmation (to the trash when the server keeps a history). */
async function remove({ ws, note, root }: ShownNote): Promise<void> {
  if (!confirm(`Delete ${note.path}? It goes to the trash when the server keeps a history.`)) return;
  try {
    const gone = await ws.api.remove(note.path, note.checksum);
    ws.say(gone.trashId ? `Deleted ${note.path} (moved to the trash).` : `Deleted ${note.path} for good.`);
    history.replaceState(null, '', '/workspace');
    mount(root, h('p', { class: 'hint' }, `${note.path} was deleted.`));
    await ws.refresh();
  } catch (err) {
    ws.say(describe(err, ws.profile.apiKey), 'error');
  }
}
