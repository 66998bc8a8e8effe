/**
 * Passkeys (WebAuthn) through @simplewebauthn/server: enrol one through an invite or while
 * signed in, and sign in with one (a discoverable credential: no name to type). Challenges live
 * in memory for five minutes and are used once; the relying party is the origin the browser is
 * on (decided by the adapter from PUBLIC_URL or the request, never from a header alone).
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { fromBase64, toBase64Url } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import type { PeopleStore } from './store.ts';
import type { Passkey, PeopleState, PersonRecord, SessionStart } from './types.ts';

/** Where the browser is: `id` the host name, `origin` its scheme, host and port. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

const CHALLENGE_TTL_MS = 5 * 60_000;

// Loaded on the first passkey request, not at start: the library and its ASN.1 and X.509 parts
// are most of 0.7 MiB of bundle that a server whose people use no passkey never runs.
let lib: Promise<typeof import('@simplewebauthn/server')> | null = null;
const webauthn = () => {
  lib ??= import('@simplewebauthn/server');
  return lib;
};
const MAX_CHALLENGES = 1000;

interface Helpers {
  invited(st: PeopleState, token: unknown): Promise<PersonRecord>;
  spend(st: PeopleState, personId: string): PeopleState;
  start(st: PeopleState, p: PersonRecord): Promise<{ next: PeopleState; out: SessionStart }>;
  live(p: PersonRecord | undefined): p is PersonRecord;
}

/** Who enrols: through an invite token, or a signed-in person. */
export type Enrolment = { invite: string } | { personId: string };

const b64u = (s: string) => fromBase64(s.replace(/-/g, '+').replace(/_/g, '/'));
const refused = () => new DomainError('UNAUTHORIZED', 'The passkey was not accepted; try again.');

export function createPasskeys(store: PeopleStore, h: Helpers) {
  const challenges = new Map<
    string,
    { purpose: 'enrol' | 'sign-in'; personId?: string; expiresAt: number }
  >();
  const now = () => store.clock.now();
  const remember = (challenge: string, purpose: 'enrol' | 'sign-in', personId?: string) => {
    for (const [c, x] of challenges) if (x.expiresAt <= now()) challenges.delete(c);
    if (challenges.size >= MAX_CHALLENGES) challenges.delete(challenges.keys().next().value!);
    challenges.set(challenge, {
      purpose,
      ...(personId ? { personId } : {}),
      expiresAt: now() + CHALLENGE_TTL_MS,
    });
  };
  /** Takes (once) the challenge the browser signed, when it is ours, fresh and for `purpose`. */
  const take = (clientDataJSON: unknown, purpose: 'enrol' | 'sign-in') => {
    let challenge = '';
    try {
      challenge = JSON.parse(new TextDecoder().decode(b64u(String(clientDataJSON)))).challenge;
    } catch {
      throw refused();
    }
    const c = challenges.get(challenge);
    challenges.delete(challenge);
    if (!c || c.purpose !== purpose || c.expiresAt <= now()) throw refused();
    return { challenge, ...c };
  };
  const enrollee = async (st: PeopleState, who: Enrolment): Promise<PersonRecord> => {
    if ('invite' in who) return h.invited(st, who.invite);
    const p = st.people.find((x) => x.id === who.personId);
    if (!h.live(p)) throw new DomainError('UNAUTHORIZED', 'Sign in again.');
    return p;
  };

  return {
    /** Options for `navigator.credentials.create` (through @simplewebauthn/browser). */
    async passkeyEnrolOptions(who: Enrolment, rp: RelyingParty) {
      const st = store.cur();
      const p = await enrollee(st, who);
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: p.name,
        userID: new TextEncoder().encode(p.id),
        attestationType: 'none',
        excludeCredentials: st.passkeys.filter((k) => k.personId === p.id).map((k) => ({ id: k.id })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      remember(options.challenge, 'enrol', p.id);
      return options;
    },

    /** Checks the new credential and keeps it; through an invite, spends it and starts a session. */
    passkeyEnrol(
      who: Enrolment,
      response: RegistrationResponseJSON,
      rp: RelyingParty,
    ): Promise<SessionStart | { enrolled: string }> {
      return store.change<SessionStart | { enrolled: string }>(async (st) => {
        const p = await enrollee(st, who);
        const c = take(response?.response?.clientDataJSON, 'enrol');
        if (c.personId !== p.id) throw refused();
        const r = await (await webauthn())
          .verifyRegistrationResponse({
            response,
            expectedChallenge: c.challenge,
            expectedOrigin: rp.origin,
            expectedRPID: rp.id,
            requireUserVerification: false,
          })
          .catch(() => ({ verified: false as const }));
        if (!r.verified) throw refused();
        const cred = r.registrationInfo.credential;
        const key: Passkey = {
          id: cred.id,
          personId: p.id,
          publicKey: toBase64Url(cred.publicKey),
          counter: cred.counter,
          ...(cred.transports ? { transports: cred.transports } : {}),
          createdAt: store.iso(),
        };
        if (st.passkeys.some((k) => k.id === key.id))
          throw new DomainError('CONFLICT', 'This passkey is already enrolled.');
        const next = { ...st, passkeys: [...st.passkeys, key] };
        if ('invite' in who) return h.start(h.spend(next, p.id), p);
        return { next, out: { enrolled: key.id } };
      });
    },

    /** Options for `navigator.credentials.get`: any passkey of this server (discoverable). */
    async passkeySignInOptions(rp: RelyingParty) {
      const options = await (await webauthn()).generateAuthenticationOptions({
        rpID: rp.id,
        userVerification: 'preferred',
      });
      remember(options.challenge, 'sign-in');
      return options;
    },

    /** Checks the assertion against the stored passkey and starts a session. */
    passkeySignIn(response: AuthenticationResponseJSON, rp: RelyingParty): Promise<SessionStart> {
      return store.change(async (st) => {
        const c = take(response?.response?.clientDataJSON, 'sign-in');
        const key = st.passkeys.find((k) => k.id === response.id);
        const p = key && st.people.find((x) => x.id === key.personId);
        if (!key || !h.live(p)) throw refused();
        const r = await (await webauthn())
          .verifyAuthenticationResponse({
            response,
            expectedChallenge: c.challenge,
            expectedOrigin: rp.origin,
            expectedRPID: rp.id,
            credential: { id: key.id, publicKey: new Uint8Array(b64u(key.publicKey)), counter: key.counter },
            requireUserVerification: false,
          })
          .catch(() => ({ verified: false, authenticationInfo: { newCounter: 0 } }));
        if (!r.verified) throw refused();
        const counted = { ...key, counter: r.authenticationInfo.newCounter };
        const next = { ...st, passkeys: st.passkeys.map((k) => (k.id === key.id ? counted : k)) };
        return h.start(next, p);
      });
    },
  };
}
