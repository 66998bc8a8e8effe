/**
 * The "History" view of the open note: its kept versions newest first (time, who,
 * what kind of change), a diff between a version and the note as it is now, and restore (a
 * normal write with If-Match: it is itself a version, so it can be undone).
 */
import { ApiFailure } from '../flow/api.ts';
import type { Note } from '../flow/workspace-api.ts';
import './history.css';
import { h, mount } from './dom.ts';
import { describe, type Workspace } from './workspace-context.ts';

/** How a change kind reads in the list. */
const CHANGE: Record<string, string> = {
  create: 'created',
  update: 'edited',
  patch: 'edited (patch)',
  move: 'moved',
  delete: 'deleted',
  restore: 'restored',
  links: 'links updated',
  outside: 'edited outside',
  baseline: 'first seen',
};

/** Who made a change, for people: the server's `author` (a key by its name); `by` from an older server. */
export const author = (item: { by: string; author?: string }): string =>
  item.author ?? (item.by === 'outside' ? 'another program' : item.by.replace(':', ' '));

/** A unified diff as lines marked added, removed or hunk header. */
export function diffBlock(diff: string): HTMLElement {
  const pre = h('pre', { class: 'diff', 'data-testid': 'history-diff', tabindex: '0' });
  for (const line of diff.split('\n')) {
    const kind = line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+++') || line.startsWith('---')
        ? 'file'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'same';
    pre.append(h('span', { class: `d-${kind}` }, line), '\n');
  }
  return pre;
}

/** The history of `note`; `back` shows the note again. */
export function historyView(ws: Workspace, note: Note, back: () => void): HTMLElement {
  const root = h('section', { class: 'history-view', 'data-testid': 'history', 'aria-label': 'History' });
  const list = h('ol', { class: 'versions', 'data-testid': 'versions' });
  const detail = h('div', {
    class: 'version-detail',
    'data-testid': 'version-detail',
    'aria-live': 'polite',
  });
  const heading = h('h1', { tabindex: '-1' }, `History of ${note.title}`);
  mount(
    root,
    h(
      'header',
      {},
      heading,
      h('button', { type: 'button', 'data-testid': 'history-close', onclick: back }, 'Back to the note'),
    ),
    h(
      'p',
      { class: 'hint' },
      'Each change keeps the version before it. Restoring is itself a change you can undo.',
    ),
    list,
    detail,
  );

  const compare = async (id: string, when: string) => {
    try {
      const d = await ws.api.history.diff(note.path, id, 'current');
      mount(
        detail,
        h('h2', {}, `Changes since ${when}`),
        h(
          'p',
          { class: 'hint', 'data-testid': 'diff-scope' },
          d.frontmatter === 'excluded'
            ? 'Compared without the properties (frontmatter) on either side. '
            : 'Compared as whole files, properties (frontmatter) included on both sides. ',
          d.diff.trim()
            ? 'Lines marked − are in the note now; lines marked + come back on restore.'
            : 'This version is the same as the note now.',
        ),
        d.diff.trim() ? diffBlock(d.diff) : null,
      );
    } catch (err) {
      ws.say(describe(err, ws.profile.apiKey), 'error');
    }
  };

  const restore = async (id: string, when: string) => {
    if (
      !confirm(`Restore ${note.path} to its version of ${when}? The text it has now is kept in the history.`)
    )
      return;
    try {
      await ws.api.history.restore(note.path, id, note.checksum);
      ws.say(`Restored ${note.path} to its version of ${when}.`);
      await ws.refresh();
      await ws.open(note.path);
    } catch (err) {
      ws.say(
        err instanceof ApiFailure && err.status === 412
          ? `${note.path} changed since you opened it: nothing was restored. Open it again and retry.`
          : describe(err, ws.profile.apiKey),
        'error',
      );
    }
  };

  void (async () => {
    try {
      const versions = await ws.api.history.list(note.path);
      if (!versions.length) {
        mount(list, h('li', { class: 'hint' }, 'No versions kept yet (or this server keeps no history).'));
        return;
      }
      mount(
        list,
        ...versions.map((v, i) => {
          const when = new Date(v.at).toLocaleString();
          const current = i === 0 && v.checksum === note.checksum;
          return h(
            'li',
            { 'data-testid': 'version', 'data-id': v.id, 'data-change': v.change },
            h('time', { datetime: new Date(v.at).toISOString() }, when),
            h('span', { class: 'who' }, ` ${CHANGE[v.change] ?? v.change} by ${author(v)}`),
            h('small', { class: 'meta' }, ` · ${v.size} bytes${current ? ' · current' : ''}`),
            h(
              'span',
              { class: 'version-actions' },
              h(
                'button',
                {
                  type: 'button',
                  'data-testid': 'version-diff',
                  'aria-label': `Compare the version of ${when} with the note now`,
                  onclick: () => void compare(v.id, when),
                },
                'Compare',
              ),
              current
                ? null
                : h(
                    'button',
                    {
                      type: 'button',
                      'data-testid': 'version-restore',
                      'aria-label': `Restore the version of ${when}`,
                      onclick: () => void restore(v.id, when),
                    },
                    'Restore',
                  ),
            ),
          );
        }),
      );
      heading.focus();
    } catch (err) {
      mount(list, h('li', { class: 'alert', role: 'alert' }, describe(err, ws.profile.apiKey)));
    }
  })();
  return root;
}
