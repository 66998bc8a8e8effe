/**
 * The "Trash" view: deleted notes and files, newest first, with restore (to the
 * original path, or beside it when that is taken: never overwrites) and delete for good.
 */
import './history.css';
import { h, mount } from './dom.ts';
import { author, historyView } from './history-view.ts';
import { describe, type Workspace } from './workspace-context.ts';

/** The trash of the workspace's server. */
export function trashView(ws: Workspace): HTMLElement {
  const list = h('ul', { class: 'trash-items', 'data-testid': 'trash-items' });
  const heading = h('h1', { tabindex: '-1' }, 'Trash');
  const root = h(
    'section',
    { class: 'trash-view', 'data-testid': 'trash', 'aria-label': 'Trash' },
    heading,
    h('p', { class: 'hint' }, 'Deleted notes and files stay here until the server’s retention ends.'),
    list,
  );

  const load = async () => {
    try {
      const items = await ws.api.trash.list();
      mount(
        list,
        ...(items.length
          ? items.map((item) => {
              const when = new Date(item.deletedAt).toLocaleString();
              return h(
                'li',
                { 'data-testid': 'trash-item', 'data-path': item.path, 'data-id': item.id },
                h('strong', {}, item.path),
                h(
                  'small',
                  { class: 'meta' },
                  ` ${item.kind} · deleted ${when} by ${author(item)} · ${item.size} bytes`,
                ),
                h(
                  'span',
                  { class: 'version-actions' },
                  h(
                    'button',
                    {
                      type: 'button',
                      'data-testid': 'trash-restore',
                      'aria-label': `Restore ${item.path}`,
                      onclick: () => void restore(item.id),
                    },
                    'Restore',
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      'data-testid': 'trash-delete',
                      'aria-label': `Delete for good: ${item.path}`,
                      onclick: () => void remove(item.id, item.path),
                    },
                    'Delete for good',
                  ),
                ),
              );
            })
          : [h('li', { class: 'hint', 'data-testid': 'trash-empty' }, 'The trash is empty.')]),
      );
    } catch (err) {
      mount(list, h('li', { class: 'alert', role: 'alert' }, describe(err, ws.profile.apiKey)));
    }
  };

  const restore = async (id: string) => {
    try {
      const { path } = await ws.api.trash.restore(id);
      ws.say(`Restored ${path}.`);
      await ws.refresh();
      await ws.open(path);
    } catch (err) {
      ws.say(describe(err, ws.profile.apiKey), 'error');
    }
  };

  const remove = async (id: string, path: string) => {
    if (!confirm(`Delete ${path} for good? This cannot be undone.`)) return;
    try {
      await ws.api.trash.remove(id);
      ws.say(`Deleted ${path} for good.`);
      await load();
    } catch (err) {
      ws.say(describe(err, ws.profile.apiKey), 'error');
    }
  };

  void load().then(() => heading.focus());
  return root;
}

/** The History view of the note at `path` (read first), or what went wrong. */
export async function historyOf(ws: Workspace, path: string): Promise<HTMLElement> {
  try {
    const note = await ws.api.read(path);
    return historyView(ws, note, () => void ws.open(path));
  } catch (err) {
    return h('p', { class: 'alert', role: 'alert' }, describe(err, ws.profile.apiKey));
  }
}
