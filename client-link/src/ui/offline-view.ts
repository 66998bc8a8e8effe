import { ApiFailure } from '../flow/api.ts';
import type { Draft, OfflineStore } from '../flow/offline-store.ts';
import type { Note } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { renderNote } from './markdown.ts';
import { mountNoteHtml } from './remote-images.ts';
import { describe, type Workspace } from './workspace-context.ts';

/** True when a failure means the server could not be reached (not that it refused). */
export const isOffline = (err: unknown) =>
  err instanceof ApiFailure && (err.kind === 'UNREACHABLE' || err.kind === 'TIMEOUT');

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * A note read earlier, shown while the server cannot be reached: marked offline and read-only,
 * with a draft box whose every keystroke is kept on this device (offered again when back online).
 */
export function offlineNoteView(note: Note, savedAt: string, store: OfflineStore): HTMLElement {
  const body = h('div', { class: 'markdown', 'data-testid': 'note-body' });
  mountNoteHtml(body, renderNote(note));
  const kept = store.draft(note.path);
  const area = h('textarea', {
    rows: '10',
    'data-testid': 'offline-draft',
    'aria-label': `Draft for ${note.title}`,
  });
  area.value = kept?.text ?? note.content;
  const saved = h('p', { class: 'hint', role: 'status', 'data-testid': 'draft-status' });
  if (kept) saved.textContent = `Draft kept on this device (${when(kept.savedAt)}).`;
  area.addEventListener('input', () => {
    const ok = store.saveDraft({
      path: note.path,
      text: area.value,
      baseChecksum: kept?.baseChecksum ?? note.checksum,
    });
    saved.textContent = ok
      ? `Draft kept on this device (${new Date().toLocaleTimeString()}).`
      : 'This browser refused to store the draft: copy your text before closing the page.';
  });
  return h(
    'article',
    { 'data-testid': 'note', 'data-path': note.path, 'data-offline': 'true' },
    h(
      'p',
      { class: 'offline-banner', 'data-testid': 'offline-note', role: 'note' },
      `Offline: the server cannot be reached. This is the copy read on ${when(savedAt)}, read-only.`,
    ),
    h('h1', {}, note.title),
    body,
    h(
      'section',
      { class: 'draft editor' },
      h('h2', {}, 'Draft (kept on this device until the server answers again)'),
      area,
      saved,
    ),
  );
}

/**
 * A draft typed offline, offered when the note is opened again online: save it (refused if the
 * note changed since the draft began: the draft then stays) or discard it.
 */
export function draftOffer(ws: Workspace, draft: Draft, store: OfflineStore): HTMLElement {
  const area = h('textarea', { rows: '8', 'data-testid': 'draft-offer-text', 'aria-label': 'Offline draft' });
  area.value = draft.text;
  const problem = h('p', { class: 'alert', role: 'alert', hidden: true });
  const save = async () => {
    try {
      const saved = await ws.api.update(draft.path, area.value, draft.baseChecksum);
      store.dropDraft(draft.path);
      const copy = saved.merge?.copy;
      // Merged on the server: what overlapped is kept whole in a conflict copy, linked from the note.
      ws.say(
        copy
          ? `Merged your offline draft of ${draft.path}; the edits that overlapped are kept in ${copy}.`
          : `Saved your offline draft of ${draft.path}${saved.merge ? ', merged with the changes made since' : ''}.`,
      );
      await ws.refresh();
      await ws.open(draft.path);
    } catch (err) {
      problem.hidden = false;
      mount(
        problem,
        err instanceof ApiFailure && err.status === 412
          ? 'The note changed on the server since your draft began, so it was not saved. Your draft is kept here: copy what you need into the note, then discard it.'
          : describe(err, ws.profile.apiKey),
      );
    }
  };
  const box = h(
    'section',
    { class: 'draft editor', 'data-testid': 'draft-offer' },
    h('h2', {}, `A draft you wrote offline (${when(draft.savedAt)})`),
    area,
    problem,
    h(
      'div',
      {},
      h(
        'button',
        { type: 'button', 'data-testid': 'draft-save', onclick: () => void save() },
        'Save it to the note',
      ),
      h(
        'button',
        {
          type: 'button',
          'data-testid': 'draft-discard',
          onclick: () => {
            if (!confirm('Discard this draft? It is removed from this device.')) return;
            store.dropDraft(draft.path);
            box.remove();
          },
        },
        'Discard',
      ),
    ),
  );
  return box;
}
