/**
 * People and their shares: the owner adds people, shares folders with them as viewer, editor or
 * manager, invites them (a single-use link that expires), disables or removes them. What a
 * person may do is one scope (roles.ts) fed into the scoped views every surface already asks;
 * disabling or removing a person ends their sessions, keys and invites in the same write, and
 * every request checks the person again, so it takes effect on the next one.
 */
import * as v from 'valibot';
import { newId } from '../auth/keys.ts';
import type { KeyScope } from '../auth/scope.ts';
import { type RandomBytes, sha256Hex, toBase64Url } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import type { Clock, StateStore } from '../ports.ts';
import { checkBody } from '../schemas.ts';
import { managesFolder, personScope } from './roles.ts';
import { createSignIn, type SignInOptions } from './sign-in.ts';
import { PeopleStore } from './store.ts';
import {
  PERSON_ROLES,
  type PeopleState,
  type PersonInfo,
  type PersonRecord,
  type PersonRole,
  SHARE_ROLES,
  type Share,
  type ShareRole,
} from './types.ts';

export interface PeopleDeps extends SignInOptions {
  state: StateStore;
  clock: Clock;
  random?: RandomBytes;
  /** Lifetime of an invite link (default 7 days). */
  inviteTtlMs?: number;
}

/** Body of adding a person. */
export const NewPersonSchema = v.strictObject({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1),
    v.maxLength(100),
    v.regex(/^[^\p{Cc}]+$/u, 'no control characters'),
  ),
  role: v.optional(v.picklist(PERSON_ROLES), 'member'),
});

/** A folder as shares name it: '' (or '/') the whole vault, else a vault path; stored ending in `/`. */
export const ShareFolderSchema = v.pipe(
  v.string(),
  v.maxLength(1024),
  v.transform((s) => s.replace(/^\/+/, '').replace(/\/+$/, '')),
  v.check(
    (s) =>
      s === '' ||
      s.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..' && !/[\p{Cc}\\]/u.test(seg)),
    'a folder is a vault-relative path such as "Work" (no "." or ".." segments), or "" for the whole vault',
  ),
  v.transform((s) => (s === '' ? '' : `${s}/`)),
);

export const NewShareSchema = v.strictObject({
  folder: ShareFolderSchema,
  role: v.picklist(SHARE_ROLES),
});

const notFound = (id: string) => new DomainError('NOT_FOUND', `No person with id "${id}".`);

function info(st: PeopleState, p: PersonRecord): PersonInfo {
  return {
    id: p.id,
    name: p.name,
    role: p.role,
    createdAt: p.createdAt,
    disabled: p.disabled,
    signIn: {
      password: p.password !== undefined,
      passkeys: st.passkeys.filter((k) => k.personId === p.id).length,
      sso: p.sso !== undefined,
    },
    shares: st.shares
      .filter((s) => s.personId === p.id)
      .map((s) => ({ id: s.id, folder: s.folder, role: s.role })),
  };
}

/** Everything a person holds, gone: sessions, keys, invites, passkeys when `all`. */
function withoutHoldings(st: PeopleState, id: string, all: boolean): PeopleState {
  return {
    ...st,
    sessions: st.sessions.filter((s) => s.personId !== id),
    keys: st.keys.filter((k) => k.personId !== id),
    invites: st.invites.filter((i) => i.personId !== id),
    ...(all
      ? {
          shares: st.shares.filter((s) => s.personId !== id),
          passkeys: st.passkeys.filter((k) => k.personId !== id),
        }
      : {}),
  };
}

/** The people of a server (see the head of this file). */
export function createPeopleService(deps: PeopleDeps) {
  const store = new PeopleStore(deps.state, deps.clock, deps.random);
  const inviteTtl = deps.inviteTtlMs ?? 7 * 86_400_000;
  // One scope object per person while the state is unchanged: the scoped views memoize on it.
  let scopes = { generation: -1, byId: new Map<string, KeyScope | undefined>() };
  const person = (id: string): PersonRecord => {
    const p = store.cur().people.find((x) => x.id === id);
    if (!p) throw notFound(id);
    return p;
  };
  const sharesOf = (id: string): Share[] => store.cur().shares.filter((s) => s.personId === id);
  const scopeOf = (id: string): KeyScope | undefined => {
    if (scopes.generation !== store.generation) scopes = { generation: store.generation, byId: new Map() };
    if (!scopes.byId.has(id)) scopes.byId.set(id, personScope(person(id), sharesOf(id)));
    return scopes.byId.get(id);
  };
  const signIn = createSignIn(store, { ...deps, scopeOf });

  return {
    /** Loads `people.json` (empty when absent). */
    init: () => store.load(),
    /** Changes with every saved change; caches of verified sessions compare it. */
    get generation(): number {
      return store.generation;
    },
    list: (): PersonInfo[] => store.cur().people.map((p) => info(store.cur(), p)),
    get: (id: string): PersonInfo => info(store.cur(), person(id)),
    /** The person's record when they exist and are enabled; null otherwise. */
    active(id: string): PersonRecord | null {
      const p = store.cur().people.find((x) => x.id === id);
      return p && !p.disabled ? p : null;
    },
    /** What the person may do, as a key scope; undefined: everything (an owner). */
    scopeOf,
    /** True when the person may share `folder` (an owner, or a manager of it). */
    manages: (id: string, folder: string) => managesFolder(person(id), sharesOf(id), folder),

    async add(input: unknown): Promise<PersonInfo> {
      const body = checkBody(NewPersonSchema, input);
      return store.change((st) => {
        if (st.people.some((p) => p.name.toLowerCase() === body.name.toLowerCase()))
          throw new DomainError('CONFLICT', `A person named "${body.name}" already exists.`);
        const p: PersonRecord = {
          id: newId('psn', store.random),
          name: body.name,
          role: body.role,
          createdAt: store.iso(),
          disabled: false,
        };
        const next = { ...st, people: [...st.people, p] };
        return { next, out: info(next, p) };
      });
    },

    /** Disables (or enables) a person; disabling ends every session, key and invite they hold. */
    setDisabled(id: string, disabled: boolean): Promise<PersonInfo> {
      return store.change((st) => {
        const p = { ...person(id), disabled };
        let next: PeopleState = { ...st, people: st.people.map((x) => (x.id === id ? p : x)) };
        if (disabled) next = withoutHoldings(next, id, false);
        return { next, out: info(next, p) };
      });
    },

    /** Changes a person's role (owner or member). */
    setRole(id: string, role: PersonRole): Promise<PersonInfo> {
      return store.change((st) => {
        const p = { ...person(id), role };
        const next = { ...st, people: st.people.map((x) => (x.id === id ? p : x)) };
        return { next, out: info(next, p) };
      });
    },

    /** Removes a person and everything they hold. */
    remove(id: string): Promise<{ removed: string }> {
      return store.change((st) => {
        person(id);
        const next = withoutHoldings({ ...st, people: st.people.filter((p) => p.id !== id) }, id, true);
        return { next, out: { removed: id } };
      });
    },

    /** Shares `folder` with a person as `role` (replacing their share of that same folder). */
    async share(id: string, input: unknown, by: string): Promise<Share> {
      const body = checkBody(NewShareSchema, input);
      return store.change((st) => {
        person(id);
        const s: Share = {
          id: newId('shr', store.random),
          personId: id,
          folder: body.folder,
          role: body.role as ShareRole,
          createdAt: store.iso(),
          by,
        };
        const kept = st.shares.filter((x) => !(x.personId === id && x.folder === body.folder));
        return { next: { ...st, shares: [...kept, s] }, out: s };
      });
    },

    /** The share with this id of a person (for a manager's check before removing it). */
    shareOf(id: string, shareId: string): Share {
      const s = sharesOf(id).find((x) => x.id === shareId);
      if (!s) throw new DomainError('NOT_FOUND', `No share "${shareId}" for this person.`);
      return s;
    },

    /** Removes one share; it takes effect on the person's next request. */
    unshare(id: string, shareId: string): Promise<{ removed: string }> {
      return store.change((st) => {
        if (!st.shares.some((s) => s.personId === id && s.id === shareId))
          throw new DomainError('NOT_FOUND', `No share "${shareId}" for this person.`);
        return {
          next: { ...st, shares: st.shares.filter((s) => s.id !== shareId) },
          out: { removed: shareId },
        };
      });
    },

    /**
     * A new invite for a person: a token shown once (the link carries it), single use, expiring;
     * any earlier invite of theirs ends.
     */
    invite(id: string): Promise<{ token: string; expiresAt: string }> {
      return store.change(async (st) => {
        if (person(id).disabled)
          throw new DomainError('CONFLICT', 'Enable this person before inviting them.');
        const token = `quire_inv_${toBase64Url(store.random(32))}`;
        const expiresAt = store.iso(store.clock.now() + inviteTtl);
        const rec = { hash: await sha256Hex(token), personId: id, createdAt: store.iso(), expiresAt };
        const invites = [...st.invites.filter((i) => i.personId !== id), rec];
        return { next: { ...st, invites }, out: { token, expiresAt } };
      });
    },

    ...signIn,
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
