/** The client's calls for people, shares, invites and sessions (docs/guide/sharing.md). */
import type { KeyScope } from '../core/auth/scope.ts';
import type { Call } from './operations.ts';

type ShareRole = 'viewer' | 'editor' | 'manager';
type Person = {
  id: string;
  name: string;
  role: 'owner' | 'member';
  createdAt: string;
  disabled: boolean;
  signIn: { password: boolean; passkeys: number };
  shares: { id: string; folder: string; role: ShareRole }[];
};
type Started = {
  person: { id: string; name: string; role: 'owner' | 'member' };
  expiresAt: string;
  token?: string;
};
type OwnKey = { id: string; name: string; prefix: string; createdAt: string; scope: KeyScope | null };

/** The owner's calls (a manager may share and unshare inside the folders they manage). */
export const peopleCalls = (call: Call) => ({
  list: () => call<Person[]>('listPeople'),
  add: (name: string, role?: 'owner' | 'member') =>
    call<Person>('addPerson', {}, { body: role ? { name, role } : { name } }),
  get: (id: string) => call<Person>('getPerson', { id }),
  update: (id: string, body: { disabled?: boolean; role?: 'owner' | 'member' }) =>
    call<Person>('updatePerson', { id }, { body }),
  remove: (id: string) => call<{ removed: string }>('removePerson', { id }),
  invite: (id: string) => call<{ token: string; expiresAt: string; link: string }>('invitePerson', { id }),
  share: (id: string, folder: string, role: ShareRole) =>
    call<{ id: string; folder: string; role: ShareRole }>('sharePerson', { id }, { body: { folder, role } }),
  unshare: (id: string, share: string) => call<{ removed: string }>('unsharePerson', { id, share }),
});

/** A person's own calls: enrol, sign in (as a bearer: the client holds the token), keys. */
export const sessionCalls = (call: Call) => ({
  lookupInvite: (token: string) =>
    call<{ name: string; expiresAt: string }>('lookupInvite', {}, { body: { token } }),
  enrolPassword: (token: string, password: string) =>
    call<Started>('enrolPassword', {}, { body: { token, password, as: 'bearer' } }),
  enrolPasskeyOptions: (token: string) =>
    call<{ challenge: string }>('enrolPasskeyOptions', {}, { body: { token } }),
  enrolPasskey: (token: string, response: unknown) =>
    call<Started>('enrolPasskey', {}, { body: { token, response, as: 'bearer' } }),
  signIn: (name: string, password: string) =>
    call<Started>('signIn', {}, { body: { name, password, as: 'bearer' } }),
  passkeyOptions: () => call<{ challenge: string }>('signInPasskeyOptions'),
  passkey: (response: unknown) => call<Started>('signInPasskey', {}, { body: { response, as: 'bearer' } }),
  get: () => call<{ person: { id: string; name: string; role: string } | null }>('getSession'),
  signOut: () => call<{ signedOut: boolean }>('signOut'),
  setPassword: (password: string) =>
    call<{ password: boolean }>('setOwnPassword', {}, { body: { password } }),
  addPasskeyOptions: () => call<{ challenge: string }>('addOwnPasskeyOptions'),
  addPasskey: (response: unknown) => call<unknown>('addOwnPasskey', {}, { body: { response } }),
  listKeys: () => call<OwnKey[]>('listOwnKeys'),
  mintKey: (name: string, scope?: KeyScope) =>
    call<OwnKey & { apiKey: string }>('mintOwnKey', {}, { body: scope ? { name, scope } : { name } }),
  revokeKey: (id: string) => call<{ revoked: string }>('revokeOwnKey', { id }),
});

type Publication = {
  id: string;
  kind: 'note' | 'folder';
  path: string;
  createdAt: string;
  by: string;
  expiresAt: string | null;
  password: boolean;
  noindex: boolean;
  active: boolean;
  url: string;
  relayUrl: string | null;
};

/** Publishing (docs/guide/sharing.md#publish-to-the-web): a note or a folder read-only at a link. */
export const publicationCalls = (call: Call) => ({
  list: () => call<Publication[]>('listPublications'),
  publish: (path: string, opts: { expiresAt?: string; password?: string; noindex?: boolean } = {}) =>
    call<Publication>('publish', {}, { body: { path, ...opts } }),
  get: (id: string) => call<Publication>('getPublication', { id }),
  revoke: (id: string) => call<{ id: string; revoked: true }>('revokePublication', { id }),
});
