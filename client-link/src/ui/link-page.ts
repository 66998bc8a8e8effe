import { type LinkFailure, type LinkFlowDeps, runLinkFlow, runManualLink, STEPS } from '../flow/link-flow.ts';
import { profileStore } from '../flow/profiles.ts';
import type { StepId } from '../flow/steps.ts';
import { h, mount } from './dom.ts';
import { log } from './log.ts';

const STATE_TEXT = { running: '…', done: '✓', skipped: '–', failed: '✗' } as const;

/** The /link page: runs the flow with progress; on failure, the message and a manual form. */
export function renderLinkPage(root: HTMLElement): void {
  const items = new Map<StepId, HTMLLIElement>();
  const list = h('ol', { class: 'steps', 'data-testid': 'steps' });
  for (const s of STEPS) {
    const li = h(
      'li',
      { 'data-step': s.id, 'data-state': 'pending' },
      h('span', { class: 'mark' }, '○'),
      ` ${s.label}`,
    );
    items.set(s.id, li);
    list.append(li);
  }
  const alert = h('div', { class: 'alert', role: 'alert', 'data-testid': 'link-error', hidden: true });
  const welcome = h(
    'section',
    {
      class: 'link-welcome',
      'data-testid': 'link-welcome',
      hidden: true,
      'aria-labelledby': 'link-welcome-h',
    },
    h('h2', { id: 'link-welcome-h' }, 'This browser is not linked yet'),
    h(
      'p',
      {},
      'Quire opens your notes once this browser knows your server. Open the connect link your server gave at setup (it prints it on its first start, and ',
      h('code', {}, 'GET /api/v1/system/setup'),
      ' answers it until setup is done), or a link from a device already linked. Or enter the server address and an API key below.',
    ),
  );
  const formSlot = h('div');
  mount(
    root,
    h(
      'main',
      { class: 'link-page' },
      h('h1', {}, 'Link this device to your Quire server'),
      list,
      welcome,
      alert,
      formSlot,
    ),
  );

  const deps: Omit<LinkFlowDeps, 'href' | 'replaceUrl'> = {
    fetch: (...args) => fetch(...args),
    profiles: profileStore(localStorage),
    redirect: (path) => location.assign(path),
    defaultRelayUrl: document.querySelector<HTMLMetaElement>('meta[name="quire-relay-url"]')?.content || null,
    onStep(id, state) {
      const li = items.get(id);
      if (!li) return;
      li.dataset.state = state;
      li.querySelector('.mark')!.textContent = STATE_TEXT[state];
      log.info('link step', id, state);
    },
  };

  const showFailure = (failure: LinkFailure) => {
    // A first visit (the root URL, or /link with nothing to link): not an error, an explanation.
    const firstVisit = failure.code === 'MISSING_PARAMS' && !location.search && !location.hash;
    list.hidden = firstVisit;
    welcome.hidden = !firstVisit;
    if (firstVisit) log.info('link page: nothing to link yet');
    else {
      log.warn('link failed at', failure.step, failure.code, failure.message);
      alert.hidden = false;
      alert.dataset.code = failure.code;
      mount(alert, h('strong', {}, 'Could not link automatically. '), failure.message);
    }
    mount(
      formSlot,
      manualForm(failure.prefill.serverUrl, async (input) => {
        for (const li of items.values()) {
          li.dataset.state = 'pending';
          li.querySelector('.mark')!.textContent = '○';
        }
        alert.hidden = true;
        welcome.hidden = true;
        list.hidden = false;
        const out = await runManualLink(deps, input);
        if (!out.ok) showFailure(out.failure);
      }),
    );
  };

  void runLinkFlow({
    ...deps,
    href: location.href,
    replaceUrl: (path) => history.replaceState(null, '', path),
  }).then((out) => {
    if (!out.ok) showFailure(out.failure);
  });
}

/** Server address and key, entered by hand; the address comes prefilled, the key never does. */
function manualForm(
  serverUrl: string,
  submit: (input: { serverUrl: string; apiKey: string }) => Promise<void>,
) {
  const url = h('input', {
    id: 'manual-server-url',
    name: 'serverUrl',
    type: 'text',
    inputmode: 'url',
    placeholder: 'https://notes.example.com',
    autocomplete: 'url',
    required: true,
  });
  url.value = serverUrl;
  const key = h('input', {
    id: 'manual-api-key',
    name: 'apiKey',
    type: 'password',
    placeholder: 'quire_sk_…',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
  });
  const button = h('button', { type: 'submit' }, 'Link');
  const form = h(
    'form',
    { class: 'manual', 'data-testid': 'manual-form' },
    h('h2', {}, 'Enter the server by hand'),
    h('label', { for: 'manual-server-url' }, 'Server address'),
    url,
    h('label', { for: 'manual-api-key' }, 'API key'),
    key,
    button,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    button.disabled = true;
    void submit({ serverUrl: url.value, apiKey: key.value }).finally(() => {
      button.disabled = false;
    });
  });
  return form;
}
