/**
 * Tags: inline `#tag/nested` (rewritten to `#tag=` links by obsidian-source.ts) and the note's tag
 * pills open the notes carrying the tag (nested tags included), through the shell's `onTag` when
 * it has one, else as a list of results in place of the note.
 */
import type { NoteEntry } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { describe, type Workspace } from './workspace-context.ts';

/** A clickable tag pill. */
export const tagPill = (tag: string): HTMLAnchorElement =>
  h('a', { class: 'tag', href: `#tag=${encodeURIComponent(tag)}`, 'data-tag': tag }, `#${tag}`);

/** Notes carrying `tag` or a tag nested under it (case-insensitive), by title. */
export function notesTagged<N extends Pick<NoteEntry, 'path' | 'title' | 'tags'>>(
  notes: readonly N[],
  tag: string,
): N[] {
  const want = tag.toLowerCase().replace(/^#/, '');
  return notes
    .filter((n) => n.tags.some((t) => t.toLowerCase() === want || t.toLowerCase().startsWith(`${want}/`)))
    .sort((a, b) => a.title.localeCompare(b.title));
}

/** The list of a tag's notes, with a way back to `back`. */
export async function tagResults(ws: Workspace, tag: string, back?: () => void): Promise<HTMLElement> {
  const box = h(
    'section',
    { class: 'tag-results', 'data-testid': 'tag-results', 'data-tag': tag },
    h('h2', {}, `Notes tagged #${tag}`),
    h('p', { class: 'hint' }, 'Loading…'),
  );
  try {
    const found = notesTagged(await ws.api.listNotes(), tag);
    mount(
      box,
      h('h2', {}, `Notes tagged #${tag}`),
      back
        ? h('button', { type: 'button', onclick: back, 'data-testid': 'tag-back' }, 'Back to the note')
        : null,
      found.length
        ? h(
            'ul',
            {},
            ...found.map((n) =>
              h(
                'li',
                {},
                h('a', { href: `#note=${encodeURIComponent(n.path)}`, 'data-path': n.path }, n.title),
                ' ',
                ...n.tags.map((t) => h('span', { class: 'tag' }, `#${t}`)),
              ),
            ),
          )
        : h('p', { class: 'hint' }, `No note carries #${tag}.`),
    );
  } catch (err) {
    mount(box, h('p', { class: 'alert', role: 'alert' }, describe(err, ws.profile.apiKey)));
  }
  return box;
}

/** Clicks on tag links under `root` open the tag (the shell's `onTag`, or `show` with the results). */
export function followTags(root: HTMLElement, ws: Workspace, show: (tag: string) => void): void {
  root.addEventListener('click', (e) => {
    const a = (e.target as Element).closest?.('a[href^="#tag="]');
    if (!a) return;
    e.preventDefault();
    e.stopPropagation();
    const tag = decodeURIComponent(a.getAttribute('href')!.slice('#tag='.length));
    if (ws.onTag) ws.onTag(tag);
    else show(tag);
  });
}
