/**
 * The people pages: `/sign-in` (a password or a passkey), `/invite#<token>` (enrol a passkey
 * and/or set a password through an owner's invite) and `/people` (the owner adds people, shares
 * folders and makes invite links). A signed-in person's workspace profile carries no key: the
 * session cookie (HttpOnly, so never readable here) goes with every same-origin call.
 *
 * Through the relay (a server with no open port) the page names the server's address on the relay
 * (`#<token>&via=<address>` in the invite link, `/sign-in?via=<address>` after): the calls go there,
 * no cookie crosses the relay, and the session's token is kept in the profile as its credential.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { type Profile, profileStore } from '../flow/profiles.ts';
import { h, mount } from './dom.ts';

type Envelope<T> = { success: boolean; data?: T; error?: { code: string; message: string } };

/** The server's address on the relay when this page reaches it there; null: this page's server. */
let via: string | null = null;

/** A relayed session's profile id, and the token it holds (set once signed in). */
const relayProfileId = (at: string) => `session:${at}`;
const relayToken = () =>
  via
    ? (profiles()
        .list()
        .find((p) => p.id === relayProfileId(via!))?.apiKey ?? '')
    : '';

/**
 * A JSON call to this page's server (the session cookie goes with it) or, through the relay, to
 * `via` with the session's token; the key when `key` is given.
 */
async function api<T>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const credential = key ?? relayToken();
  if (credential) headers['x-service-key'] = credential;
  const res = await fetch(`${via ?? ''}/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: via ? 'omit' : 'same-origin',
  });
  const env = (await res.json().catch(() => ({}))) as Envelope<T>;
  if (!res.ok || !env.success)
    throw new CallFailure(res.status, env.error?.message ?? `The server answered ${res.status}.`);
  return env.data as T;
}

/** A call the server (or the relay) refused, with its status. */
class CallFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Started = { person: { id: string; name: string }; token?: string };

const profiles = () => profileStore(localStorage);
const sessionProfileId = () => (via ? relayProfileId(via) : `session:${location.origin}`);

/** Keeps a key-less profile for this server and opens the workspace. */
async function enterWorkspace(s: Started): Promise<void> {
  if (via) return enterThroughRelay(via, s);
  const setup = await api<{ serverId: string }>('GET', '/system/setup');
  const profile: Profile = {
    id: sessionProfileId(),
    serverId: setup.serverId,
    serverUrl: location.origin,
    apiKey: '',
    mode: 'direct',
    relayUrl: null,
    name: `${s.person.name} on ${location.host}`,
    linkedAt: new Date().toISOString(),
  };
  profiles().save(profile);
  location.assign('/workspace');
}

/** Keeps a profile of the server on the relay, holding the session's token, and opens the workspace. */
function enterThroughRelay(at: string, s: Started): void {
  const known = profiles()
    .list()
    .find((p) => p.id === relayProfileId(at));
  const token = s.token ?? known?.apiKey;
  if (!token) throw new Error('The server did not answer a session for the relay; sign in again.');
  const i = at.lastIndexOf('/r/');
  profiles().save({
    id: relayProfileId(at),
    serverId: decodeURIComponent(at.slice(i + 3)),
    serverUrl: at,
    apiKey: token,
    mode: 'relay',
    relayUrl: at.slice(0, i),
    name: `${s.person.name} on ${new URL(at).host} (relay)`,
    linkedAt: new Date().toISOString(),
  });
  location.assign('/workspace');
}

/** `via` from an address: an http(s) address ending in `/r/<server id>`, else null. */
export function relayAddress(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (!/^https?:$/.test(url.protocol) || url.search || url.hash) return null;
    return /\/r\/[^/]+$/.test(url.pathname) ? `${url.origin}${url.pathname}` : null;
  } catch {
    return null;
  }
}

function page(title: string, ...children: (Node | string)[]) {
  return h('main', { class: 'link-page' }, h('h1', {}, title), ...children);
}
const alertBox = () => h('div', { class: 'alert', role: 'alert', hidden: true });
const fail = (box: HTMLElement, err: unknown) => {
  box.hidden = false;
  box.textContent = err instanceof Error ? err.message : 'Something went wrong.';
};

/** The single sign-on provider's name when the server offers it, else null. */
const ssoProvider = () =>
  api<{ provider: string }>('GET', '/session/sso').then(
    (s) => s.provider,
    () => null,
  );

/**
 * A button that sends the browser to the single sign-on provider (`path`: sign in, or link
 * through an invite); null when none is offered.
 */
function ssoButton(provider: string | null, label: string, path: string, body: unknown, alert: HTMLElement) {
  if (!provider) return null;
  const button = h('button', { type: 'button' }, `${label} (${provider})`);
  button.addEventListener('click', async () => {
    try {
      location.assign((await api<{ url: string }>('POST', path, body)).url);
    } catch (err) {
      fail(alert, err);
    }
  });
  return button;
}

/** `/sign-in`: who is signed in (and sign out), or the password and passkey forms. */
export async function renderSignIn(root: HTMLElement): Promise<void> {
  via = relayAddress(new URLSearchParams(location.search).get('via'));
  const here = via ? `/sign-in?via=${encodeURIComponent(via)}` : '/sign-in';
  const alert = alertBox();
  // Back from the single sign-on provider: what went wrong, said once.
  const ssoError = location.hash.match(/^#sso-error=(.*)$/)?.[1];
  if (ssoError) {
    history.replaceState(null, '', '/sign-in');
    fail(alert, new Error(decodeURIComponent(ssoError)));
  }
  const me = await api<Started & { person: { name: string } | null }>('GET', '/session').catch((err) => {
    // A relayed session that ended (expired, signed out elsewhere, revoked: 401) loses its token;
    // one the server could not be asked about (offline, the network) keeps it, and says so.
    if (via && err instanceof CallFailure && err.status === 401) profiles().forget(relayProfileId(via));
    else if (via) fail(alert, err);
    return { person: null };
  });
  // Signed in by the provider just now: straight on to the workspace, as the other ways go.
  if (me.person && new URLSearchParams(location.search).has('sso')) return enterWorkspace(me as Started);
  if (me.person) {
    const out = h('button', { type: 'button' }, 'Sign out');
    out.addEventListener('click', async () => {
      await api('DELETE', '/session').catch(() => {});
      profiles().forget(sessionProfileId());
      location.assign(here);
    });
    const open = h('a', { href: '/workspace' }, 'Open the workspace');
    mount(root, page(`Signed in as ${me.person.name}`, h('p', {}, open), out, alert));
    return;
  }
  const name = h('input', {
    id: 'sign-in-name',
    name: 'name',
    autocomplete: 'username webauthn',
    required: true,
  });
  const password = h('input', {
    id: 'sign-in-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
  });
  const form = h(
    'form',
    {},
    h('label', { for: 'sign-in-name' }, 'Name'),
    name,
    h('label', { for: 'sign-in-password' }, 'Password'),
    password,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await enterWorkspace(
        await api<Started>('POST', '/session', { name: name.value, password: password.value }),
      );
    } catch (err) {
      fail(alert, err);
    }
  });
  const passkey = h('button', { type: 'button' }, 'Sign in with a passkey');
  passkey.addEventListener('click', async () => {
    try {
      const optionsJSON = await api<Parameters<typeof startAuthentication>[0]['optionsJSON']>(
        'POST',
        '/session/passkey/options',
      );
      const response = await startAuthentication({ optionsJSON });
      await enterWorkspace(await api<Started>('POST', '/session/passkey', { response }));
    } catch (err) {
      fail(alert, err);
    }
  });
  // Single sign-on comes back to one registered address, this server's: not through the relay.
  const sso = via
    ? null
    : ssoButton(await ssoProvider(), 'Sign in with single sign-on', '/session/sso', {}, alert);
  mount(root, page('Sign in to Quire', passkey, ...(sso ? [sso] : []), form, alert));
}

/** `/invite#<token>`: enrol a passkey or set a password; the token leaves the address bar at once. */
export async function renderInvite(root: HTMLElement): Promise<void> {
  const [token = '', ...rest] = location.hash.slice(1).split('&via=');
  via = relayAddress(rest.length ? decodeURIComponent(rest.join('&via=')) : null);
  history.replaceState(null, '', '/invite');
  // An invite starts a new session: a relayed one this device held for that server is let go.
  if (via) profiles().forget(relayProfileId(via));
  const alert = alertBox();
  let who: { name: string };
  try {
    who = await api<{ name: string }>('POST', '/invites/lookup', { token });
  } catch (err) {
    fail(alert, err);
    mount(
      root,
      page('This invite cannot be used', alert, h('p', {}, h('a', { href: '/sign-in' }, 'Sign in'))),
    );
    return;
  }
  const passkey = h('button', { type: 'button' }, 'Create a passkey');
  passkey.addEventListener('click', async () => {
    try {
      const optionsJSON = await api<Parameters<typeof startRegistration>[0]['optionsJSON']>(
        'POST',
        '/invites/passkey/options',
        { token },
      );
      const response = await startRegistration({ optionsJSON });
      await enterWorkspace(await api<Started>('POST', '/invites/passkey', { token, response }));
    } catch (err) {
      fail(alert, err);
    }
  });
  const password = h('input', {
    id: 'invite-password',
    type: 'password',
    autocomplete: 'new-password',
    minlength: '10',
  });
  const form = h(
    'form',
    {},
    h('label', { for: 'invite-password' }, 'Or choose a password (10 characters or more)'),
    password,
    h('button', { type: 'submit' }, 'Set the password'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await enterWorkspace(
        await api<Started>('POST', '/invites/password', { token, password: password.value }),
      );
    } catch (err) {
      fail(alert, err);
    }
  });
  const sso = via
    ? null
    : ssoButton(await ssoProvider(), 'Use single sign-on', '/invites/sso', { token }, alert);
  mount(
    root,
    page(
      `Welcome, ${who.name}`,
      h('p', {}, 'You were invited to this Quire server.'),
      passkey,
      ...(sso ? [sso] : []),
      form,
      alert,
    ),
  );
}

type Person = {
  id: string;
  name: string;
  disabled: boolean;
  shares: { id: string; folder: string; role: string }[];
};

/** `/people`: the owner's page (with the active profile's key). */
export async function renderPeople(root: HTMLElement): Promise<void> {
  const key = profiles().active()?.apiKey || undefined;
  const alert = alertBox();
  const list = h('ul', { 'data-testid': 'people' });
  const invite = h('p', { 'data-testid': 'invite-link' });
  const refresh = async () => {
    const people = await api<Person[]>('GET', '/people', undefined, key);
    mount(
      list,
      ...people.map((p) => {
        const shares =
          p.shares.map((s) => `${s.folder || '(whole vault)'} as ${s.role}`).join(', ') || 'nothing shared';
        const inv = h('button', { type: 'button' }, `Invite ${p.name}`);
        inv.addEventListener('click', async () => {
          const r = await api<{ link: string }>('POST', `/people/${p.id}/invite`, undefined, key);
          mount(invite, 'Send this link (single use): ', h('code', {}, r.link));
        });
        const off = h('button', { type: 'button' }, p.disabled ? `Enable ${p.name}` : `Disable ${p.name}`);
        off.addEventListener('click', async () => {
          await api('PATCH', `/people/${p.id}`, { disabled: !p.disabled }, key);
          await refresh();
        });
        return h('li', {}, h('strong', {}, p.name), ` (${p.disabled ? 'disabled' : shares}) `, inv, ' ', off);
      }),
    );
  };
  const name = h('input', { id: 'person-name', required: true });
  const folder = h('input', { id: 'share-folder', placeholder: 'Team (empty: the whole vault)' });
  const role = h(
    'select',
    { id: 'share-role' },
    ...['viewer', 'editor', 'manager'].map((r) => h('option', { value: r }, r)),
  );
  const form = h(
    'form',
    {},
    h('label', { for: 'person-name' }, 'Name'),
    name,
    h('label', { for: 'share-folder' }, 'Share the folder'),
    folder,
    h('label', { for: 'share-role' }, 'as'),
    role,
    h('button', { type: 'submit' }, 'Add and invite'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const p = await api<Person>('POST', '/people', { name: name.value }, key);
      if (folder.value.trim() || role.value)
        await api('POST', `/people/${p.id}/shares`, { folder: folder.value.trim(), role: role.value }, key);
      const r = await api<{ link: string }>('POST', `/people/${p.id}/invite`, undefined, key);
      mount(invite, 'Send this link (single use): ', h('code', {}, r.link));
      await refresh();
    } catch (err) {
      fail(alert, err);
    }
  });
  const activity = h('ol', { 'data-testid': 'activity' });
  mount(root, page('People', form, invite, alert, list, h('h2', {}, 'Recent activity'), activity));
  await refresh().catch((err) => fail(alert, err));
  await showActivity(activity, key).catch((err) => fail(alert, err));
}

type Activity = { at: string; path: string; change: string; author: string };

/** Who did what lately (`GET /activity`): when, who with their device, what, which note. */
async function showActivity(list: HTMLElement, key: string | undefined): Promise<void> {
  const items = await api<Activity[]>('GET', '/activity?limit=30', undefined, key);
  if (!items.length) return mount(list, h('li', {}, 'Nothing yet.'));
  mount(
    list,
    ...items.map((a) =>
      h(
        'li',
        {},
        h('time', { datetime: a.at }, new Date(a.at).toLocaleString()),
        ` ${a.author}: ${a.change} `,
        h('code', {}, a.path),
      ),
    ),
  );
}
