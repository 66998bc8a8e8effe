import { type Profile, profileStore } from '../flow/profiles.ts';
import type { FolderNode } from '../flow/workspace-api.ts';
import { h } from './dom.ts';
import { describe, type Workspace } from './workspace.ts';

/** The folder tree, folders open. */
export function treeView(node: FolderNode, ws: Workspace): HTMLElement {
  const ul = h('ul', {});
  for (const child of node.children) {
    if (child.type === 'folder') {
      ul.append(
        h(
          'li',
          { class: 'folder' },
          h(
            'details',
            { open: true },
            h('summary', {}, `${child.name} (${child.noteCount})`),
            treeView(child, ws),
          ),
        ),
      );
    } else if (child.type === 'file') {
      ul.append(h('li', { class: 'file', 'data-file': child.path }, h('small', {}, child.name)));
    } else {
      ul.append(
        h(
          'li',
          {},
          h('a', { href: `#note=${encodeURIComponent(child.path)}`, 'data-path': child.path }, child.title),
        ),
      );
    }
  }
  return ul;
}

/** The profile switcher, "Forget" and "Link another". */
export function profileSwitcher(active: Profile): HTMLElement {
  const store = profileStore(localStorage);
  const select = h('select', { 'data-testid': 'profiles', 'aria-label': 'Server' });
  for (const p of store.list()) {
    const opt = h('option', { value: p.id }, p.name);
    opt.selected = p.id === active.id;
    select.append(opt);
  }
  select.addEventListener('change', () => {
    store.activate(select.value);
    location.assign('/workspace');
  });
  const forget = h(
    'button',
    {
      type: 'button',
      'data-testid': 'forget',
      onclick: () => {
        if (!confirm(`Forget ${active.name} on this device? Its key is removed from this browser.`)) return;
        store.forget(active.id);
        location.assign(store.active() ? '/workspace' : '/link');
      },
    },
    'Forget',
  );
  return h('span', { class: 'profiles' }, select, forget, h('a', { href: '/link' }, 'Link another'));
}

/** The new-note form. */
export function newNoteForm(ws: Workspace): HTMLElement {
  const path = h('input', {
    name: 'path',
    placeholder: 'folder/name.md',
    required: true,
    'data-testid': 'new-path',
  });
  const content = h('textarea', { name: 'content', rows: '14', 'data-testid': 'new-content' });
  const form = h(
    'form',
    { class: 'editor' },
    h('h2', {}, 'New note'),
    path,
    content,
    h('button', { type: 'submit', 'data-testid': 'create' }, 'Create'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let p = path.value.trim();
    if (p && !p.endsWith('.md')) p += '.md';
    try {
      const note = await ws.api.create(p, content.value);
      ws.say(`Created ${note.path}.`);
      await ws.refresh();
      await ws.open(note.path);
    } catch (err) {
      ws.say(describe(err, ws.profile.apiKey), 'error');
    }
  });
  return form;
}
