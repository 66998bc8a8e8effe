import { h, mount } from './dom.ts';

/** One entry the switcher can open. */
export interface SwitchItem {
  path: string;
  title: string;
  aliases: readonly string[];
}

/** How many matches are listed. */
const LIMIT = 50;

/**
 * The entries matching `query` (case-insensitive), best first: title starts with it, title
 * contains it, an alias does, the path does. An empty query lists the first entries as given.
 */
export function rankMatches(items: readonly SwitchItem[], query: string): SwitchItem[] {
  const q = query.trim().toLowerCase();
  if (!q) return items.slice(0, LIMIT);
  const scored: { it: SwitchItem; s: number }[] = [];
  for (const it of items) {
    const t = it.title.toLowerCase();
    const s = t.startsWith(q)
      ? 0
      : t.includes(q)
        ? 1
        : it.aliases.some((a) => a.toLowerCase().includes(q))
          ? 2
          : it.path.toLowerCase().includes(q)
            ? 3
            : -1;
    if (s >= 0) scored.push({ it, s });
  }
  scored.sort((a, b) => a.s - b.s || a.it.title.localeCompare(b.it.title));
  return scored.slice(0, LIMIT).map((x) => x.it);
}

/** The quick switcher: a modal dialog over titles and aliases. */
export interface Switcher {
  readonly el: HTMLDialogElement;
  /** Opens it with the current entries; focus goes to its input. */
  show(): void;
}

/**
 * Builds the switcher. `items` is read on every opening; `choose` opens the picked note.
 * Arrow keys move, Enter opens, Esc closes (the dialog's own cancel), focus returns where it was.
 */
export function quickSwitcher(
  items: () => readonly SwitchItem[],
  choose: (path: string) => void,
  /** Called on each opening; the list is matched again when it settles (aliases loaded late). */
  prepare: () => Promise<void> = async () => {},
): Switcher {
  const input = h('input', {
    type: 'text',
    role: 'combobox',
    'aria-expanded': 'true',
    'aria-controls': 'switcher-list',
    'aria-autocomplete': 'list',
    'aria-label': 'Open a note by title or alias',
    placeholder: 'Open a note…',
    'data-testid': 'switcher-input',
    autocomplete: 'off',
  });
  const listEl = h('ul', { id: 'switcher-list', role: 'listbox', 'aria-label': 'Matching notes' });
  const dialog = h(
    'dialog',
    { class: 'switcher', 'data-testid': 'switcher', 'aria-label': 'Quick switcher' },
    input,
    listEl,
  );
  let matches: SwitchItem[] = [];
  let at = 0;
  const paint = () => {
    const q = input.value.trim().toLowerCase();
    // The alias a match was found by, when its title alone would not have matched.
    const byAlias = (m: SwitchItem) =>
      q && !m.title.toLowerCase().includes(q)
        ? m.aliases.find((a) => a.toLowerCase().includes(q))
        : undefined;
    mount(
      listEl,
      ...matches.map((m, i) => {
        const alias = byAlias(m);
        const li = h(
          'li',
          {
            id: `switcher-${i}`,
            role: 'option',
            'aria-selected': i === at ? 'true' : 'false',
            'data-path': m.path,
          },
          m.title,
          alias ? h('span', { class: 'alias' }, ` (${alias})`) : null,
          h('small', {}, m.path),
        );
        li.addEventListener('click', () => pick(i));
        return li;
      }),
      matches.length
        ? null
        : h('li', { class: 'hint', role: 'option', 'aria-selected': 'false' }, 'No note matches.'),
    );
    if (matches.length) input.setAttribute('aria-activedescendant', `switcher-${at}`);
    else input.removeAttribute('aria-activedescendant');
    listEl.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  };
  const update = () => {
    matches = rankMatches(items(), input.value);
    at = 0;
    paint();
  };
  const pick = (i: number) => {
    const m = matches[i];
    if (!m) return;
    dialog.close();
    choose(m.path);
  };
  input.addEventListener('input', update);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!matches.length) return;
      at = (at + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length;
      paint();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      pick(at);
    }
  });
  // A click on the backdrop (outside the box) closes it.
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog.close();
  });
  return {
    el: dialog,
    show() {
      if (dialog.open) return;
      input.value = '';
      update();
      dialog.showModal();
      input.focus();
      void prepare()
        .then(() => {
          if (dialog.open) {
            const keep = at > 0 ? matches[at]?.path : undefined;
            matches = rankMatches(items(), input.value);
            at = Math.max(
              0,
              matches.findIndex((m) => m.path === keep),
            );
            paint();
          }
        })
        .catch(() => {});
    },
  };
}
