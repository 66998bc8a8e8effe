/**
 * The note's frontmatter as a properties panel, as Obsidian shows it: one row per key, lists as
 * pills, `tags` as clickable tags, `[[links]]` as note links, booleans as ticks, nested values as
 * text. Values are shown as text: nothing from the frontmatter becomes markup.
 */

import { wikiParts } from '../../../core/render/obsidian-source.ts';
import { h } from './dom.ts';
import { tagPill } from './tags.ts';

type Resolve = (target: string) => string | null;

function value(key: string, v: unknown, resolve: Resolve): Node {
  if (Array.isArray(v)) {
    return h('span', { class: 'prop-list' }, ...v.map((x) => pill(key, x, resolve)));
  }
  if (typeof v === 'boolean') {
    return h('input', { type: 'checkbox', checked: v, disabled: true, 'aria-label': key });
  }
  if (v === null || v === undefined) return h('span', { class: 'hint' }, '—');
  if (typeof v === 'object') return h('code', {}, JSON.stringify(v));
  return text(String(v), resolve);
}

function pill(key: string, v: unknown, resolve: Resolve): Node {
  if (/^tags?$/i.test(key) && typeof v === 'string') return tagPill(v.replace(/^#/, ''));
  return h('span', { class: 'prop-pill' }, value(key, v, resolve));
}

/** A string value; a whole `[[link]]` becomes a note link (resolved now or by `resolveLinks`). */
function text(s: string, resolve: Resolve): Node {
  const m = /^\s*\[\[([^\]]+)\]\]\s*$/.exec(s);
  if (!m) return document.createTextNode(s);
  const parts = wikiParts(m[1]!);
  const path = resolve(parts.target);
  const shown = parts.alias ?? parts.target;
  return path
    ? h('a', { href: `#note=${encodeURIComponent(path)}` }, shown)
    : h('em', { class: 'unresolved', 'data-target': parts.target }, shown);
}

/**
 * Links of the panel the note's `links[]` did not carry (the index reads no frontmatter links),
 * resolved by note path or name like Obsidian (`notes` from `GET /api/v1/notes`).
 */
export function resolveLinks(panel: HTMLElement, notes: readonly { path: string }[]): void {
  for (const em of panel.querySelectorAll<HTMLElement>('em.unresolved[data-target]')) {
    const t = em.dataset.target!.toLowerCase().replace(/\.md$/, '');
    const hit =
      notes.find((n) => n.path.toLowerCase() === `${t}.md`) ??
      notes.find((n) => n.path.toLowerCase().endsWith(`/${t}.md`));
    if (hit) em.replaceWith(h('a', { href: `#note=${encodeURIComponent(hit.path)}` }, em.textContent ?? ''));
  }
}

/** The properties panel, or null when the note has no frontmatter. */
export function propertiesPanel(
  frontmatter: Record<string, unknown> | undefined,
  resolve: Resolve,
): HTMLElement | null {
  const entries = Object.entries(frontmatter ?? {});
  if (!entries.length) return null;
  return h(
    'details',
    { class: 'properties', 'data-testid': 'properties', open: true },
    h('summary', {}, 'Properties'),
    h(
      'dl',
      {},
      ...entries.flatMap(([k, v]) => [
        h('dt', { 'data-key': k }, k),
        h(
          'dd',
          { 'data-key': k },
          /^tags?$/i.test(k) && typeof v === 'string' ? tagPill(v) : value(k, v, resolve),
        ),
      ]),
    ),
  );
}
