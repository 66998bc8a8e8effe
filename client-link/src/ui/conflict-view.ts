/**
 * The banner of a note that carries a conflict line (an edit made from an older version overlapped
 * it, and is kept whole in a conflict copy): the note and the copy side by side, the lines only one
 * of them has marked, and one action per choice (the note, the copy, or both) that writes the note
 * without the conflict line and deletes the copy. Both are ordinary writes, kept in the history;
 * the note's write is checked against the version shown, so a change made meanwhile is never lost.
 */
import { ApiFailure } from '../flow/api.ts';
import {
  type ConflictLink,
  compareLines,
  conflictsIn,
  type DiffLine,
  keepBoth,
  withConflictLines,
  withoutConflictLine,
} from '../flow/conflict.ts';
import type { Note } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { describe, type Workspace } from './workspace-context.ts';

type Choice = 'note' | 'copy' | 'both';

const CHOSEN: Record<Choice, string> = {
  note: 'kept the note’s text',
  copy: 'took the conflict copy’s text',
  both: 'kept both texts',
};

/** One side of the comparison: its lines, those the other side lacks marked (and named for a screen reader). */
function side(id: string, heading: string, lines: DiffLine[], own: 'note' | 'copy'): HTMLElement {
  const only = own === 'note' ? 'only in the note: ' : 'only in the copy: ';
  const pre = h('pre', {
    class: 'conflict-text',
    tabindex: '0',
    'aria-labelledby': id,
    'data-testid': `conflict-${own}`,
  });
  for (const l of lines) {
    if (l.side === 'both') pre.append(`${l.text}\n`);
    else if (l.side === own)
      pre.append(h('mark', {}, h('span', { class: 'visually-hidden' }, only), l.text), '\n');
  }
  return h('div', { class: 'conflict-side' }, h('h3', { id }, heading), pre);
}

/** The banner for the first conflict line of `note`, or null when it has none. */
export function conflictBanner(ws: Workspace, note: Note): HTMLElement | null {
  const link = conflictsIn(note.content)[0];
  if (!link) return null;
  const status = h('p', { class: 'hint', role: 'status', 'data-testid': 'conflict-status' });
  const compare = h(
    'div',
    { class: 'conflict-compare', 'data-testid': 'conflict-compare' },
    'Loading the copy…',
  );
  const buttons = (['note', 'copy', 'both'] as const).map((choice) =>
    h(
      'button',
      { type: 'button', disabled: true, 'data-testid': `conflict-keep-${choice}` },
      choice === 'note' ? 'Keep the note' : choice === 'copy' ? 'Take the copy' : 'Keep both',
    ),
  );
  const banner = h(
    'section',
    { class: 'conflict-banner', 'data-testid': 'conflict-banner', 'aria-labelledby': 'conflict-h' },
    h('h2', { id: 'conflict-h' }, 'This note has a conflict'),
    h(
      'p',
      {},
      'An edit made from an older version overlapped this note. The note kept the newer text; that edit is whole in ',
      h('a', { href: `#note=${encodeURIComponent(link.copy)}` }, link.copy),
      '. Compare them, then keep one or both: the note is saved without the conflict line and the copy is deleted (both stay in the history).',
    ),
    compare,
    h('div', { class: 'actions', role: 'group', 'aria-label': 'Resolve the conflict' }, ...buttons),
    status,
  );
  void ws.api.read(link.copy).then(
    (copy) => {
      const noteText = withoutConflictLine(note.content, link.copy);
      const lines = compareLines(noteText, copy.content);
      mount(
        compare,
        side('conflict-note-h', 'The note now', lines, 'note'),
        side('conflict-copy-h', 'The conflict copy', lines, 'copy'),
      );
      buttons.forEach((b, i) => {
        b.disabled = false;
        b.addEventListener(
          'click',
          () => void resolve(ws, note, link, copy, (['note', 'copy', 'both'] as const)[i]!, buttons, status),
        );
      });
    },
    (err) => {
      // The copy is gone (deleted elsewhere): only the line is left to remove.
      mount(compare, `The copy could not be read: ${describe(err, ws.profile.apiKey)}`);
      buttons[0]!.disabled = false;
      buttons[0]!.addEventListener(
        'click',
        () => void resolve(ws, note, link, null, 'note', buttons, status),
      );
    },
  );
  return banner;
}

/** Writes the choice: the note (If-Match the version shown), then the copy deleted. */
async function resolve(
  ws: Workspace,
  note: Note,
  link: ConflictLink,
  copy: Note | null,
  choice: Choice,
  buttons: HTMLButtonElement[],
  status: HTMLElement,
): Promise<void> {
  for (const b of buttons) b.disabled = true;
  const noteText = withoutConflictLine(note.content, link.copy);
  const others = conflictsIn(noteText).map((c) => c.line);
  const text =
    choice === 'note' || !copy
      ? noteText
      : choice === 'copy'
        ? withConflictLines(copy.content, others)
        : keepBoth(noteText, copy.content);
  status.textContent = 'Saving…';
  try {
    await ws.api.replace(note.path, text, note.checksum);
  } catch (err) {
    status.textContent =
      err instanceof ApiFailure && err.status === 412
        ? 'The note changed meanwhile, so nothing was written: it is shown again with that change.'
        : describe(err, ws.profile.apiKey);
    if (err instanceof ApiFailure && err.status === 412) await ws.open(note.path);
    else for (const b of buttons) b.disabled = false;
    return;
  }
  let gone = true;
  if (copy)
    await ws.api.remove(copy.path, copy.checksum).catch((err) => {
      gone = err instanceof ApiFailure && err.status === 404;
    });
  ws.say(
    `Resolved the conflict in ${note.path}: ${CHOSEN[choice]}${gone ? '' : `; the copy ${link.copy} changed meanwhile and was kept`}.`,
  );
  await ws.refresh();
  // The buttons pressed are gone: the keyboard's focus goes to the note written.
  await ws.open(note.path, { focusHeading: true });
}
