/**
 * How a person proves who they are: an invite (single use, expiring) to enrol, a password
 * (scrypt) or a passkey (WebAuthn, @simplewebauthn/server), a session after either, and keys of
 * their own that never exceed their shares. Tokens are stored by their SHA-256 only.
 */
import * as v from 'valibot';
import { newId } from '../auth/keys.ts';
import type { KeyScope } from '../auth/scope.ts';
import { sha256Hex, toBase64Url } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { createHoldings, SESSION_PREFIX } from './holdings.ts';
import { createPasskeys, type RelyingParty } from './passkeys.ts';
import {
  DEFAULT_SCRYPT,
  hashPassword,
  PASSWORD_MAX,
  PASSWORD_MIN,
  type ScryptParams,
  verifyPassword,
} from './password.ts';
import { createSso } from './sso.ts';
import type { PeopleStore } from './store.ts';
import type { PeopleState, PersonRecord, Session, SessionStart } from './types.ts';

export type { SessionStart } from './types.ts';

export interface SignInOptions {
  /** scrypt parameters for new passwords (default N=2^14, r=8, p=1). */
  scrypt?: ScryptParams;
  /** Lifetime of a session (default 14 days). */
  sessionTtlMs?: number;
  /** Failed password sign-ins in a row before the account refuses passwords, and for how long. */
  lockout?: { failures: number; ms: number };
}

export { type LiveSession, SESSION_PREFIX } from './holdings.ts';

export const PasswordSchema = v.pipe(
  v.string(),
  v.minLength(PASSWORD_MIN, `a password has at least ${PASSWORD_MIN} characters`),
  v.maxLength(PASSWORD_MAX),
);

const badInvite = () =>
  new DomainError(
    'INVALID_TOKEN',
    'This invite link is not valid: it was used, it expired, or it was replaced. Ask for a new one.',
  );
const badSignIn = () => new DomainError('UNAUTHORIZED', 'Wrong name or password.');

export function createSignIn(
  store: PeopleStore,
  opts: SignInOptions & { scopeOf: (id: string) => KeyScope | undefined },
) {
  const ttl = opts.sessionTtlMs ?? 14 * 86_400_000;
  const lockout = opts.lockout ?? { failures: 5, ms: 15 * 60_000 };
  const now = () => store.clock.now();
  const live = (p: PersonRecord | undefined): p is PersonRecord => p !== undefined && !p.disabled;
  const personOf = (st: PeopleState, id: string) => st.people.find((p) => p.id === id);

  /** Starts a session for `person` in `st` (expired ones dropped). */
  async function start(st: PeopleState, person: PersonRecord) {
    const token = SESSION_PREFIX + toBase64Url(store.random(32));
    const expiresAt = store.iso(now() + ttl);
    const s: Session = {
      id: newId('ses', store.random),
      hash: await sha256Hex(token),
      personId: person.id,
      createdAt: store.iso(),
      expiresAt,
    };
    const sessions = [...st.sessions.filter((x) => Date.parse(x.expiresAt) > now()), s];
    const out: SessionStart = {
      token,
      expiresAt,
      person: { id: person.id, name: person.name, role: person.role },
    };
    return { next: { ...st, sessions }, out };
  }

  /** The person an unexpired invite names; throws INVALID_TOKEN otherwise. */
  async function invited(st: PeopleState, token: unknown): Promise<PersonRecord> {
    if (typeof token !== 'string' || token.length > 200) throw badInvite();
    const h = await sha256Hex(token);
    const inv = st.invites.find((i) => i.hash === h);
    if (!inv || Date.parse(inv.expiresAt) <= now()) throw badInvite();
    const p = personOf(st, inv.personId);
    if (!live(p)) throw badInvite();
    return p;
  }
  const spend = (st: PeopleState, personId: string): PeopleState => ({
    ...st,
    invites: st.invites.filter((i) => i.personId !== personId),
  });
  const withPerson = (st: PeopleState, p: PersonRecord): PeopleState => ({
    ...st,
    people: st.people.map((x) => (x.id === p.id ? p : x)),
  });

  const passkeys = createPasskeys(store, { invited, spend, start, live });
  const sso = createSso(store, { invited, spend, start, live, withPerson });

  return {
    /** Who an invite is for (the enrol page greets them); INVALID_TOKEN when it is not valid. */
    async inviteFor(token: unknown): Promise<{ name: string; expiresAt: string }> {
      const st = store.cur();
      const p = await invited(st, token);
      const inv = st.invites.find((i) => i.personId === p.id)!;
      return { name: p.name, expiresAt: inv.expiresAt };
    },

    /** Sets a password through an invite (spending it) and starts a session. */
    enrolPassword(token: unknown, password: string): Promise<SessionStart> {
      return store.change(async (st) => {
        const p = await invited(st, token);
        const next = {
          ...p,
          password: await hashPassword(password, store.random, opts.scrypt ?? DEFAULT_SCRYPT),
        };
        return start(spend(withPerson(st, next), p.id), next);
      });
    },

    /** Sets or replaces the password of a signed-in person. */
    setPassword(personId: string, password: string): Promise<{ password: true }> {
      return store.change(async (st) => {
        const p = personOf(st, personId);
        if (!live(p)) throw new DomainError('UNAUTHORIZED', 'Sign in again.');
        const next = {
          ...p,
          password: await hashPassword(password, store.random, opts.scrypt ?? DEFAULT_SCRYPT),
        };
        return { next: withPerson(st, next), out: { password: true as const } };
      });
    },

    /**
     * Signs in with a name and password. After `lockout.failures` failures in a row the account
     * refuses passwords for `lockout.ms` (429, even with the right one), as keys are rate limited.
     */
    signInPassword(name: string, password: string): Promise<SessionStart> {
      return store.change(async (st) => {
        const p = st.people.find((x) => x.name.toLowerCase() === name.trim().toLowerCase());
        if (p?.lockedUntil && Date.parse(p.lockedUntil) > now()) {
          const s = Math.ceil((Date.parse(p.lockedUntil) - now()) / 1000);
          throw new DomainError('RATE_LIMITED', `Too many failed sign-ins; try again in ${s} s.`, {
            retryAfter: s,
          });
        }
        // The hash runs even for an unknown name, so the time taken tells nothing about who exists.
        const ok = await verifyPassword(password, p?.password ?? DUMMY_HASH);
        if (!live(p) || !p.password || !ok) {
          if (!p) throw badSignIn();
          const failures = (p.failures ?? 0) + 1;
          const locked = failures >= lockout.failures;
          const next: PersonRecord = {
            ...p,
            failures: locked ? 0 : failures,
            ...(locked ? { lockedUntil: store.iso(now() + lockout.ms) } : {}),
          };
          await store.save(withPerson(st, next));
          throw badSignIn();
        }
        const { failures: _f, lockedUntil: _l, ...clean } = p;
        return start(withPerson(st, clean), clean);
      });
    },

    ...passkeys,

    ...sso,

    ...createHoldings(store, { live, scopeOf: opts.scopeOf }),
  };
}

// A well-formed hash of nothing anyone knows, with the default cost, for unknown names.
const DUMMY_HASH = `scrypt$${DEFAULT_SCRYPT.N}$${DEFAULT_SCRYPT.r}$${DEFAULT_SCRYPT.p}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;

export type { RelyingParty };
