/**
 * The people pages: `/sign-in` (a password or a passkey), `/invite#<token>` (enrol a passkey
 * and/or set a password through an owner's invite) and `/people` (the owner adds people, shares
 * folders and makes invite links). A signed-in person's workspace profile carries no key: the
 * session cookie (HttpOnly, so never readable here) goes with every same-origin call.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { type Profile, profileStore } from '../flow/profiles.ts';
import { h, mount } from './dom.ts';

type Envelope<T> = { success: boolean; data?: T; error?: { code: string; message: string } };

/** A same-origin JSON call: the session cookie goes with it; the key when `key` is given. */
async function api<T>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers['x-service-key'] = key;
  const res = await fetch(`/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const env = (await res.json().catch(() => ({}))) as Envelope<T>;
  if (!res.ok || !env.success) throw new Error(env.error?.message ?? `The server answered ${res.status}.`);
  return env.data as T;
}

type Started = { person: { id: string; name: string } };

const profiles = () => profileStore(localStorage);
const sessionProfileId = () => `session:${location.origin}`;

/** Keeps a key-less profile for this server and opens the workspace. */
async function enterWorkspace(s: Started): Promise<void> {
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

function page(title: string, ...children: (Node | string)[]) {
  return h('main', { class: 'link-page' }, h('h1', {}, title), ...children);
}
const alertBox = () => h('div', { class: 'alert', role: 'alert', hidden: true });
const fail = (box: HTMLElement, err: unknown) => {
  box.hidden = false;
  box.textContent = err instanceof Error ? err.message : 'Something went wrong.';
};

/** `/sign-in`: who is signed in (and sign out), or the password and passkey forms. */
export async function renderSignIn(root: HTMLElement): Promise<void> {
  const alert = alertBox();
  const me = await api<{ person: { name: string } | null }>('GET', '/session').catch(() => ({
    person: null,
  }));
  if (me.person) {
    const out = h('button', { type: 'button' }, 'Sign out');
    out.addEventListener('click', async () => {
      await api('DELETE', '/session').catch(() => {});
      profiles().forget(sessionProfileId());
      location.assign('/sign-in');
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
  mount(root, page('Sign in to Quire', passkey, form, alert));
}

/** `/invite#<token>`: enrol a passkey or set a password; the token leaves the address bar at once. */
export async function renderInvite(root: HTMLElement): Promise<void> {
  const token = decodeURIComponent(location.hash.slice(1));
  history.replaceState(null, '', '/invite');
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
  mount(
    root,
    page(`Welcome, ${who.name}`, h('p', {}, 'You were invited to this Quire server.'), passkey, form, alert),
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
  mount(root, page('People', form, invite, alert, list));
  await refresh().catch((err) => fail(alert, err));
}
