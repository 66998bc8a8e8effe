/**
 * Editing a note live with the others in it (core/live on the server): the editor is bound to the
 * shared document, the others' cursors show with their names, and the server writes the note to
 * its file once typing pauses: there is no Save. A read-only key watches. A dropped connection is
 * tried again; what was typed and not yet acknowledged is carried into the new session.
 */
import { carryOver, type LiveSocket, openLiveSocket } from '../flow/live-socket.ts';
import type { Note } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import { openEditor } from './editor.ts';
import type { EditorHandle } from './editor-types.ts';
import { describe, type Workspace } from './workspace-context.ts';

const COLORS = ['#b4004e', '#006d77', '#7a4f01', '#3d5a80', '#6a4c93', '#2b7a0b'];
/** Waits between tries to reconnect, then the last one again. */
const RETRY_MS = [500, 1000, 2000, 4000, 8000];

/** A colour per name, the same on every device. */
function userOf(name: string) {
  let n = 0;
  for (const c of name) n = (n * 31 + c.charCodeAt(0)) >>> 0;
  const color = COLORS[n % COLORS.length]!;
  return { name, color, colorLight: `${color}33` };
}

const WATCHING = 'Watching: this key may read this note, not change it.';
const LIVE = 'Live: changes are saved as you type.';

/** Opens the live editor of `note` in `root`; `show` goes back to the note. */
export async function editLive(
  ws: Workspace,
  note: Note,
  root: HTMLElement,
  show: () => void,
): Promise<void> {
  const open = () => openLiveSocket(ws.profile, (p) => ws.api.liveTicket(p), note.path, userOf);
  const bind = async (s: LiveSocket) => {
    try {
      const { client } = s;
      return await openEditor(ws, note.path, client.text.toString(), {
        text: client.text,
        awareness: client.awareness,
        readOnly: client.readOnly,
      });
    } catch (err) {
      s.close();
      throw err;
    }
  };
  root.dataset.opening = 'editor';
  let session: LiveSocket;
  let editor: { host: HTMLElement; handle: EditorHandle };
  try {
    session = await open();
    editor = await bind(session);
  } catch (err) {
    ws.say(describe(err, ws.profile.apiKey), 'error');
    return;
  } finally {
    delete root.dataset.opening;
  }
  const status = h('p', { class: 'hint', 'data-testid': 'live-status', role: 'status' });
  const people = h('p', { class: 'hint', 'data-testid': 'live-people' });
  const setStatus = (s: string) => {
    status.textContent = s;
    status.dataset.state = s.split(/[ :.]/, 1)[0]!.toLowerCase();
  };
  let done = false;

  /** Wires one session to the page: the status, who is here, and what happens when it ends. */
  const follow = (s: LiveSocket) => {
    const { client } = s;
    setStatus(client.readOnly ? WATCHING : LIVE);
    const showPeople = () => {
      const names = [...client.awareness.getStates().entries()]
        .filter(([id]) => id !== client.doc.clientID)
        .map(([, st]) => (st as { user?: { name?: string } }).user?.name)
        .filter((n): n is string => !!n);
      people.textContent = names.length ? `Also here: ${names.join(', ')}` : 'Nobody else is here.';
    };
    client.awareness.on('change', showPeople);
    showPeople();
    client.onNotice = (n) => {
      if (n.type === 'saved' && !client.readOnly && !client.unsaved) setStatus('Saved.');
      else if (n.type === 'refused') setStatus(WATCHING);
    };
    client.text.observe(() => {
      if (!client.readOnly && status.dataset.state === 'saved') setStatus(LIVE);
    });
    s.onClosed = (code, reason) => {
      if (done) return;
      // Typing now would go nowhere: the editor stops taking it until a new session is bound.
      editor.handle.setReadOnly?.(true);
      if (reason === 'deleted') setStatus('Closed: this note was deleted elsewhere.');
      else if (reason === 'moved') setStatus('Closed: this note was moved elsewhere; open it again.');
      else if (reason === 'revoked') setStatus('Closed: this key or sign-in may no longer edit this note.');
      else if (code === 4401 || code === 4404) setStatus(`Closed (${code}): open the note again.`);
      else void reconnect(s, 0);
    };
  };

  const reconnect = async (old: LiveSocket, attempt: number): Promise<void> => {
    setStatus(
      `Reconnecting: the connection dropped${old.client.unsaved ? '; your latest typing is kept here' : ''}.`,
    );
    await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
    if (done) return;
    let next: LiveSocket;
    let bound: { host: HTMLElement; handle: EditorHandle };
    try {
      next = await open();
      const carried = carryOver(old.client, next.client);
      bound = await bind(next);
      if (carried.overlaps)
        ws.say(`Reconnected; ${carried.overlaps} place(s) of your typing overlapped changes made meanwhile.`);
    } catch {
      return reconnect(old, attempt + 1);
    }
    if (done) return void next.close();
    editor.host.replaceWith(bound.host);
    editor.handle.destroy();
    old.client.destroy();
    editor = bound;
    session = next;
    follow(next);
    if (!next.client.readOnly) editor.handle.focus();
  };

  const leave = () => {
    done = true;
    session.close();
    editor.handle.destroy();
    session.client.destroy();
    show();
  };
  follow(session);
  const form = h(
    'form',
    { class: 'editor live', 'data-testid': 'live-editor' },
    h('h1', {}, `${note.title} (live)`),
    status,
    people,
    editor.host,
    h('button', { type: 'button', 'data-testid': 'live-done', onclick: leave }, 'Done'),
  );
  form.addEventListener('submit', (e) => e.preventDefault());
  mount(root, form);
  if (!session.client.readOnly) editor.handle.focus();
}
