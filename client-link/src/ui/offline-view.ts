import { isUnreachable } from '../flow/api.ts';
import type { Draft, OfflineStore } from '../flow/offline-store.ts';
import { needsALook, type SyncOutcome, type SyncReport } from '../flow/offline-sync.ts';
import type { Note } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { renderNote } from './markdown.ts';
import { mountNoteHtml } from './remote-images.ts';

/** True when a failure means the server could not be reached (not that it refused). */
export const isOffline = isUnreachable;

const when = (iso: string) => new Date(iso).toLocaleString();
const titleOf = (path: string) => path.replace(/^.*\//, '').replace(/\.md$/i, '');

/** What an offline note view shows: a note read earlier, or one created offline (its draft). */
export type OfflineNote = { note: Note; savedAt: string } | { path: string };

/**
 * A note while the server cannot be reached: the copy read earlier (marked offline), and its text
 * to edit, every keystroke kept on this device and sent when the server answers again (merged with
 * what changed meanwhile). A note created offline has only its text. Storage that refuses the text
 * says so at once, so nothing is lost without the person knowing.
 */
export function offlineNoteView(shown: OfflineNote, store: OfflineStore): HTMLElement {
  const path = 'note' in shown ? shown.note.path : shown.path;
  const kept = store.draft(path);
  const title = 'note' in shown ? shown.note.title : titleOf(path);
  const base = kept ? kept.baseChecksum : 'note' in shown ? shown.note.checksum : null;
  const body = h('div', { class: 'markdown', 'data-testid': 'note-body' });
  if ('note' in shown) mountNoteHtml(body, renderNote(shown.note));
  const area = h('textarea', {
    id: 'offline-text',
    rows: '12',
    'data-testid': 'offline-draft',
  });
  area.value = kept?.text ?? ('note' in shown ? shown.note.content : '');
  const saved = h('p', { class: 'hint', role: 'status', 'data-testid': 'draft-status' });
  if (kept) saved.textContent = `Kept on this device (${when(kept.savedAt)}); sent when the server answers.`;
  area.addEventListener('input', () => {
    const ok = store.saveDraft({ path, text: area.value, baseChecksum: base });
    saved.className = ok ? 'hint' : 'alert';
    saved.textContent = ok
      ? `Kept on this device (${new Date().toLocaleTimeString()}); sent when the server answers.`
      : 'This browser’s storage is full: this text is NOT kept on this device. Copy it somewhere before closing the page.';
  });
  const banner =
    'note' in shown
      ? `Offline: the server cannot be reached. This is the copy read on ${when(shown.savedAt)}; your edits are kept on this device and merged when it answers again.`
      : 'Offline: this note was created on this device and is created on the server when it answers again.';
  return h(
    'article',
    { 'data-testid': 'note', 'data-path': path, 'data-offline': 'true' },
    h('p', { class: 'offline-banner', 'data-testid': 'offline-note', role: 'note' }, banner),
    h('h1', {}, title),
    'note' in shown ? body : null,
    h(
      'section',
      { class: 'draft editor' },
      h('h2', {}, h('label', { for: 'offline-text' }, `Your text of ${title} (kept on this device)`)),
      area,
      saved,
    ),
  );
}

/** One outcome as a list item: what happened, with links to the notes concerned. */
function outcomeItem(o: SyncOutcome): HTMLElement {
  const link = (path: string) => h('a', { href: `#note=${encodeURIComponent(path)}` }, path);
  switch (o.kind) {
    case 'saved':
      return h('li', {}, link(o.path), ': saved.');
    case 'merged':
      return h('li', {}, link(o.path), ': merged with the changes made meanwhile.');
    case 'created':
      return h('li', {}, link(o.path), ': created.');
    case 'conflict':
      return h(
        'li',
        {},
        link(o.path),
        ': changed meanwhile where you edited too. The note keeps the newer text; your version is whole in ',
        link(o.copy),
        '. Open the note to compare and keep either or both.',
      );
    case 'renamed':
      return h('li', {}, `${o.path} was taken meanwhile: your new note is `, link(o.to), '.');
    case 'recreated':
      return h('li', {}, `${o.path} was deleted or moved meanwhile: your text is kept as `, link(o.to), '.');
    case 'failed':
      return h('li', {}, `${o.path}: not sent (${o.message}). It stays on this device.`);
  }
}

/** The list shown after the drafts were sent: what merged cleanly, and what needs a look. */
export function syncReportView(report: SyncReport, dismiss: () => void): HTMLElement {
  const clean = report.outcomes.filter((o) => !needsALook(o));
  const look = report.outcomes.filter(needsALook);
  return h(
    'section',
    { class: 'sync-report', 'data-testid': 'sync-report', 'aria-labelledby': 'sync-report-h' },
    h('h2', { id: 'sync-report-h' }, 'Your offline edits were sent'),
    report.interrupted
      ? h(
          'p',
          { class: 'hint' },
          'The server stopped answering midway: the rest are sent when it answers again.',
        )
      : null,
    look.length ? h('h3', {}, `Needs a look (${look.length})`) : null,
    look.length ? h('ul', { 'data-testid': 'sync-look' }, ...look.map(outcomeItem)) : null,
    clean.length ? h('h3', {}, `Merged cleanly (${clean.length})`) : null,
    clean.length ? h('ul', { 'data-testid': 'sync-clean' }, ...clean.map(outcomeItem)) : null,
    h('button', { type: 'button', 'data-testid': 'sync-dismiss', onclick: dismiss }, 'Dismiss'),
  );
}

/** Replaces `panel`'s content with the report (or empties and hides it). */
export function showSyncReport(panel: HTMLElement, report: SyncReport | null): void {
  panel.hidden = report === null || report.outcomes.length === 0;
  if (panel.hidden || !report) mount(panel);
  else
    mount(
      panel,
      syncReportView(report, () => showSyncReport(panel, null)),
    );
}

/**
 * A draft of the open note still on this device while the server answers (one it refused, or one
 * not sent yet): its text, to send again or discard.
 */
export function pendingDraftBox(draft: Draft, send: () => Promise<void>, discard: () => void): HTMLElement {
  const area = h('textarea', {
    id: 'pending-text',
    rows: '8',
    readonly: true,
    'data-testid': 'draft-pending-text',
  });
  area.value = draft.text;
  const box = h(
    'section',
    { class: 'draft editor', 'data-testid': 'draft-pending' },
    h(
      'h2',
      {},
      h('label', { for: 'pending-text' }, `Not sent yet: what you typed offline (${when(draft.savedAt)})`),
    ),
    area,
    h(
      'div',
      {},
      h('button', { type: 'button', 'data-testid': 'draft-send', onclick: () => void send() }, 'Send it now'),
      h(
        'button',
        {
          type: 'button',
          'data-testid': 'draft-discard',
          onclick: () => {
            if (!confirm('Discard this text? It is removed from this device.')) return;
            discard();
            box.remove();
          },
        },
        'Discard',
      ),
    ),
  );
  return box;
}
