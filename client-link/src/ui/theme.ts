import { h } from './dom.ts';

/** Where the chosen theme is remembered; absent means "follow the system". */
export const THEME_KEY = 'quire.theme';
type Theme = 'light' | 'dark';

const dark = () => typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;

/** The remembered choice, or null when the page follows `prefers-color-scheme`. */
export function chosenTheme(): Theme | null {
  try {
    const v = localStorage.getItem(THEME_KEY);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    return null;
  }
}

/** The theme in effect: the remembered choice, else the system's. */
export const currentTheme = (): Theme => chosenTheme() ?? (dark() ? 'dark' : 'light');

/**
 * Sets `data-theme` on <html> (the stylesheet's one set of colour variables reads it) and keeps
 * following the system's preference while nothing was chosen. Called once, before the first render.
 */
export function applyTheme(): void {
  const set = () => {
    document.documentElement.dataset.theme = currentTheme();
  };
  set();
  if (typeof matchMedia === 'function')
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', set);
}

/** A button that flips light/dark and remembers the choice on this device. */
export function themeToggle(): HTMLButtonElement {
  const btn = h(
    'button',
    { type: 'button', 'data-testid': 'theme-toggle', 'aria-pressed': 'false' },
    'Dark theme',
  );
  const sync = () => {
    btn.setAttribute('aria-pressed', currentTheme() === 'dark' ? 'true' : 'false');
  };
  btn.addEventListener('click', () => {
    const next: Theme = currentTheme() === 'dark' ? 'light' : 'dark';
    try {
      localStorage.setItem(THEME_KEY, next);
    } catch {
      // Private mode: the choice lasts for this page only.
    }
    document.documentElement.dataset.theme = next;
    sync();
  });
  sync();
  return btn;
}
