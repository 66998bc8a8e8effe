import { ApiFailure } from '../flow/api.ts';
import { h } from './dom.ts';
import { describe, type Workspace } from './workspace.ts';

/** The agent chat panel; the open note (if any) goes along as `notePath`. */
export function chatPanel(ws: Workspace, currentNote: () => string | undefined): HTMLElement {
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
    log.append(h('li', { class: 'me' }, message));
    input.value = '';
    send.disabled = true;
    try {
      const encoded = currentNote();
      const reply = await ws.api.chat(message, encoded ? decodeURIComponent(encoded) : undefined);
      log.append(
        h(
          'li',
          { class: 'agent', 'data-testid': 'chat-reply' },
          h('p', { class: 'reply' }, reply.reply),
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
        ),
      );
      if (reply.actions.some((a) => a.type === 'create_note' || a.type === 'append_to_note'))
        await ws.refresh();
    } catch (err) {
      const off = err instanceof ApiFailure && (err.status === 404 || err.code === 'AGENT_DISABLED');
      log.append(
        h(
          'li',
          { class: 'agent error' },
          off ? 'The agent is not available on this server.' : describe(err, ws.profile.apiKey),
        ),
      );
    } finally {
      send.disabled = false;
    }
  });
  return h('aside', { class: 'chat', 'data-testid': 'chat' }, h('h2', {}, 'Ask your notes'), log, form);
}
