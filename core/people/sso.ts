/**
 * Single sign-on: a person links an identity of the server's OpenID Connect provider through an
 * invite, then signs in with it. Nobody gets an account by signing in: an identity no invite
 * linked is refused (no open sign-up), and the provider's e-mail is never trusted to match one.
 * The protocol (discovery, PKCE, state, nonce, the ID token's checks) is the adapter's, behind
 * the `SsoProvider` port.
 */
import { DomainError } from '../errors.ts';
import type { PeopleStore } from './store.ts';
import type { PeopleState, PersonRecord, SessionStart } from './types.ts';

/** An identity as the provider vouches for it: its issuer and its subject (stable per person). */
export interface SsoIdentity {
  issuer: string;
  subject: string;
}

/** One sign-in attempt's secrets (state, nonce, PKCE verifier), kept by the adapter until the callback. */
export type SsoAttempt = Readonly<Record<string, string>>;

/** The server's OpenID Connect provider, as the people need it. */
export interface SsoProvider {
  /** The issuer's name, shown on the sign-in page ("Sign in with ..."). */
  readonly label: string;
  /** Where to send the browser to sign in, and the attempt's secrets to check its return with. */
  begin(redirectUri: string): Promise<{ url: string; attempt: SsoAttempt }>;
  /** The identity the provider vouches for on its return to `callbackUrl`; throws when it does not. */
  finish(callbackUrl: URL, redirectUri: string, attempt: SsoAttempt): Promise<SsoIdentity>;
}

interface Helpers {
  invited(st: PeopleState, token: unknown): Promise<PersonRecord>;
  spend(st: PeopleState, personId: string): PeopleState;
  start(st: PeopleState, p: PersonRecord): Promise<{ next: PeopleState; out: SessionStart }>;
  live(p: PersonRecord | undefined): p is PersonRecord;
  withPerson(st: PeopleState, p: PersonRecord): PeopleState;
}

const same = (a: SsoIdentity | undefined, b: SsoIdentity) =>
  a !== undefined && a.issuer === b.issuer && a.subject === b.subject;

export function createSso(store: PeopleStore, h: Helpers) {
  return {
    /** Links `id` to the person an invite names (spending it) and starts a session. */
    enrolSso(token: unknown, id: SsoIdentity): Promise<SessionStart> {
      return store.change(async (st) => {
        const p = await h.invited(st, token);
        if (st.people.some((x) => x.id !== p.id && same(x.sso, id)))
          throw new DomainError(
            'CONFLICT',
            'This single sign-on account is already linked to someone else here; sign in with another one.',
          );
        const next: PersonRecord = { ...p, sso: { issuer: id.issuer, subject: id.subject } };
        return h.start(h.spend(h.withPerson(st, next), p.id), next);
      });
    },

    /** Starts a session for the enabled person `id` is linked to; UNAUTHORIZED when none is. */
    signInSso(id: SsoIdentity): Promise<SessionStart> {
      return store.change(async (st) => {
        const p = st.people.find((x) => same(x.sso, id));
        if (!h.live(p))
          throw new DomainError(
            'UNAUTHORIZED',
            'This single sign-on account is not linked to anyone here. Ask the owner for an invite, and link it from the invite page.',
          );
        return h.start(st, p);
      });
    },
  };
}
