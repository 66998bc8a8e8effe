import type { ListEntry } from '../flow/offline-store.ts';
import { type Profile, profileStore } from '../flow/profiles.ts';
import { h, mount } from './dom.ts';
import { themeToggle } from './theme.ts';
import { describe, type Workspace } from './workspace-context.ts';

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

/** How many entries "All notes" shows before a "Show all" button. */
const LIST_CHUNK = 200;

/** The "All notes" list: the first LIST_CHUNK entries, the rest on demand (a 10,000-note list stays cheap). */
export function noteList(): { el: HTMLUListElement; show(notes: readonly ListEntry[]): void } {
  const el = h('ul', { class: 'note-list', 'data-testid': 'note-list' });
  const row = (n: ListEntry) =>
    h(
      'li',
      {},
      h('a', { href: `#note=${encodeURIComponent(n.path)}`, 'data-path': n.path }, n.title),
      h('small', {}, ` ${n.path}`),
    );
  return {
    el,
    show(notes) {
      mount(el, ...notes.slice(0, LIST_CHUNK).map(row));
      if (notes.length <= LIST_CHUNK) return;
      const more = h('button', { type: 'button' }, `Show all ${notes.length}`);
      more.addEventListener('click', () => mount(el, ...notes.map(row)));
      el.append(h('li', {}, more));
    },
  };
}

/**
 * The search box and its results, shown as their own view in the main pane (the note under them
 * is hidden) until a note opens or "Close" is pressed.
 */
export function searchView(ws: Workspace, notePanel: HTMLElement, showMain: () => void) {
  const input = h('input', {
    type: 'search',
    placeholder: 'Search notes',
    'data-testid': 'search',
    'aria-label': 'Search notes',
  });
  const form = h('form', { class: 'search', role: 'search' }, input);
  const results = h('ul', { class: 'results', 'data-testid': 'search-results' });
  // The view replaces the note in the main pane: its heading is the page's first level.
  const heading = h('h1', { tabindex: '-1' }, 'Search results');
  const view = h(
    'section',
    { class: 'results-view', 'data-testid': 'search-view', hidden: true, 'aria-label': 'Search results' },
    h(
      'header',
      {},
      heading,
      h('button', { type: 'button', 'data-testid': 'search-close', onclick: () => close() }, 'Close'),
    ),
    results,
  );
  const close = () => {
    view.hidden = true;
    notePanel.hidden = false;
    mount(results);
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const q = input.value.trim();
    if (!q) return close();
    try {
      const hits = await ws.api.search(q);
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
      showMain();
      view.hidden = false;
      notePanel.hidden = true;
    } catch (err) {
      ws.say(describe(err, ws.profile.apiKey), 'error');
    }
  });
  return { form, view, close };
}

/**
 * The header: the drawer button (phones), the brand, the server, search, new note, the chat
 * view button (narrow screens), the quick switcher and the theme toggle.
 */
export function shellHeader(
  ws: Workspace,
  shell: HTMLElement,
  search: HTMLElement,
  openSwitcher: () => void,
) {
  const drawerButton = h(
    'button',
    {
      type: 'button',
      class: 'only-phone',
      'data-testid': 'drawer-toggle',
      'aria-controls': 'tree-pane',
      'aria-expanded': 'false',
    },
    'Notes',
  );
  drawerButton.addEventListener('click', () => {
    const opening = shell.dataset.drawer !== 'open';
    if (opening) shell.dataset.drawer = 'open';
    else delete shell.dataset.drawer;
    drawerButton.setAttribute('aria-expanded', String(opening));
    if (opening) shell.querySelector<HTMLElement>('#tree-pane summary, #tree-pane a')?.focus();
  });
  new MutationObserver(() =>
    drawerButton.setAttribute('aria-expanded', String(shell.dataset.drawer === 'open')),
  ).observe(shell, { attributes: true, attributeFilter: ['data-drawer'] });
  const chatButton = h(
    'button',
    {
      type: 'button',
      class: 'only-narrow',
      'data-testid': 'chat-toggle',
      onclick: () => {
        shell.dataset.view = shell.dataset.view === 'chat' ? 'note' : 'chat';
        if (shell.dataset.view === 'chat')
          shell.querySelector<HTMLElement>('[data-testid="chat-input"]')?.focus();
      },
    },
    'Chat',
  );
  const profiles = profileSwitcher(ws.profile);
  const theme = themeToggle();
  const el = h(
    'header',
    {},
    drawerButton,
    h('strong', { class: 'brand' }, 'Quire'),
    profiles,
    search,
    h('button', { type: 'button', 'data-testid': 'new-note', onclick: () => ws.newNote() }, 'New note'),
    chatButton,
    h(
      'button',
      {
        type: 'button',
        class: 'switcher-button',
        'data-testid': 'switcher-open',
        'aria-keyshortcuts': 'Control+K Meta+K',
        onclick: openSwitcher,
      },
      'Go to…',
    ),
    theme,
    h('span', { class: 'offline-badge', 'data-testid': 'offline' }, 'Offline · edits kept on this device'),
  );
  // On a phone the server switcher and the theme toggle move into the drawer (one header row).
  const drawerExtras = h('div', { class: 'drawer-extras' });
  const phone = matchMedia('(max-width: 699px)');
  const place = () => {
    if (phone.matches) drawerExtras.append(profiles, theme);
    else {
      el.insertBefore(profiles, search);
      el.insertBefore(theme, el.querySelector('.offline-badge'));
    }
  };
  phone.addEventListener('change', place);
  place();
  return { el, drawerButton, drawerExtras };
}
