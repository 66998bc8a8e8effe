import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { ApiFailure } from '../flow/api.ts';
import { h } from './dom.ts';
import { mountNoteHtml } from './remote-images.ts';
import { describe, type Workspace } from './workspace-context.ts';

/** Scrolls the chat log (only it) so the start of `li` shows: a long answer is read from its top. */
function reveal(log: HTMLElement, li: HTMLElement): void {
  log.scrollTop = li.offsetTop - log.offsetTop;
}

/**
 * A reply as rendered markdown: a model writes markdown, and the offline agent's quotes, lists and
 * code read as such. micromark escapes raw HTML and drops dangerous URLs; remote images wait.
 */
function replyBody(markdown: string): HTMLElement {
  const body = h('div', { class: 'reply markdown', 'data-testid': 'chat-reply-body' });
  mountNoteHtml(body, micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }));
  return body;
}

/**
 * The agent chat panel; the open note (if any) goes along as `notePath`. Its log scrolls on its
 * own and keeps the latest answer in view; `back` leaves the chat view on narrow screens.
 */
export function chatPanel(
  ws: Workspace,
  currentNote: () => string | undefined,
  back: () => void,
): HTMLElement {
  const log = h('ol', { class: 'chat-log', 'data-testid': 'chat-log' });
  const input = h('textarea', {
    rows: '3',
    placeholder: 'Ask about your notes…',
    'data-testid': 'chat-input',
    'aria-label': 'Message',
  });
  const send = h('button', { type: 'submit', 'data-testid': 'chat-send' }, 'Send');
  const form = h('form', { class: 'chat-form' }, input, send);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const message = input.value.trim();
    if (!message) return;
    const mine = h('li', { class: 'me' }, message);
    log.append(mine);
    reveal(log, mine);
    input.value = '';
    send.disabled = true;
    try {
      const encoded = currentNote();
      const reply = await ws.api.chat(message, encoded ? decodeURIComponent(encoded) : undefined);
      const answer = h(
        'li',
        { class: 'agent', 'data-testid': 'chat-reply' },
        replyBody(reply.reply),
        reply.actions.length
          ? h('ul', { class: 'did' }, ...reply.actions.map((a) => h('li', {}, a.summary)))
          : null,
        reply.relatedNotes.length
          ? h(
              'p',
              { class: 'related' },
              'Notes: ',
              ...reply.relatedNotes.map((n) =>
                h('a', { href: `#note=${encodeURIComponent(n.path)}` }, `${n.title} `),
              ),
            )
          : null,
      );
      log.append(answer);
      reveal(log, answer);
      if (reply.actions.some((a) => a.type === 'create_note' || a.type === 'append_to_note'))
        await ws.refresh();
    } catch (err) {
      const off = err instanceof ApiFailure && (err.status === 404 || err.code === 'AGENT_DISABLED');
      const failed = h(
        'li',
        { class: 'agent error' },
        off ? 'The agent is not available on this server.' : describe(err, ws.profile.apiKey),
      );
      log.append(failed);
      reveal(log, failed);
    } finally {
      send.disabled = false;
    }
  });
  return h(
    // A section, not an aside: on narrow screens it becomes the main view (workspace.ts).
    'section',
    { class: 'chat', 'data-testid': 'chat', 'aria-label': 'Chat', role: 'complementary' },
    h(
      'div',
      { class: 'chat-head' },
      h('h2', {}, 'Ask your notes'),
      h(
        'button',
        { type: 'button', class: 'only-narrow', 'data-testid': 'chat-back', onclick: back },
        'Back to note',
      ),
    ),
    log,
    form,
  );
}
