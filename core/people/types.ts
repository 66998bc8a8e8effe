/**
 * The people of a server and what they hold, as stored in `people.json` (DATA_DIR, through the
 * StateStore port): people, their shares, invites, sessions, keys and passkeys. Secrets are never
 * stored: invites, sessions and keys by their SHA-256, passwords by scrypt.
 */
import * as v from 'valibot';
import { KeyScopeSchema } from '../auth/scope.ts';

/** Where the people state lives in the StateStore. */
export const PEOPLE_STATE_KEY = 'people.json';

/** An owner holds the whole vault (as the first key does); a member holds what is shared with them. */
export const PERSON_ROLES = ['owner', 'member'] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

/** viewer: read; editor: read and write; manager: read, write and share that folder. */
export const SHARE_ROLES = ['viewer', 'editor', 'manager'] as const;
export type ShareRole = (typeof SHARE_ROLES)[number];

const PersonSchema = v.object({
  id: v.string(),
  name: v.string(),
  role: v.picklist(PERSON_ROLES),
  createdAt: v.string(),
  disabled: v.boolean(),
  /** `scrypt$N$r$p$salt$hash` (base64url); absent: no password (passkeys only, or not enrolled). */
  password: v.optional(v.string()),
  /** Failed sign-ins in a row, and until when the account refuses passwords (ISO). */
  failures: v.optional(v.number()),
  lockedUntil: v.optional(v.string()),
  /** The single sign-on identity linked through an invite (OpenID Connect: issuer and subject). */
  sso: v.optional(v.object({ issuer: v.string(), subject: v.string() })),
});

const ShareSchema = v.object({
  id: v.string(),
  personId: v.string(),
  /** A vault-relative folder ending in `/`, or '' for the whole vault. */
  folder: v.string(),
  role: v.picklist(SHARE_ROLES),
  createdAt: v.string(),
  /** Who shared it: `owner` (a whole-vault key) or `person:<id>` (a manager). */
  by: v.string(),
});

const InviteSchema = v.object({
  hash: v.string(),
  personId: v.string(),
  createdAt: v.string(),
  expiresAt: v.string(),
});

const SessionSchema = v.object({
  id: v.string(),
  hash: v.string(),
  personId: v.string(),
  createdAt: v.string(),
  expiresAt: v.string(),
  /** What it was started on (`Chrome on Linux`), for who-did-what; absent when not told. */
  device: v.optional(v.pipe(v.string(), v.maxLength(60))),
});

const PersonKeySchema = v.object({
  id: v.string(),
  personId: v.string(),
  name: v.string(),
  hash: v.string(),
  last4: v.string(),
  createdAt: v.string(),
  /** Absent: the key follows its person's shares as they change. */
  scope: v.optional(KeyScopeSchema),
});

const PasskeySchema = v.object({
  /** The credential id, base64url. */
  id: v.string(),
  personId: v.string(),
  /** The COSE public key, base64url. */
  publicKey: v.string(),
  counter: v.number(),
  transports: v.optional(v.array(v.string())),
  createdAt: v.string(),
});

export const PeopleStateSchema = v.object({
  v: v.literal(1),
  people: v.array(PersonSchema),
  shares: v.array(ShareSchema),
  invites: v.array(InviteSchema),
  sessions: v.array(SessionSchema),
  keys: v.array(PersonKeySchema),
  passkeys: v.array(PasskeySchema),
});

export type PersonRecord = v.InferOutput<typeof PersonSchema>;
export type Share = v.InferOutput<typeof ShareSchema>;
export type Invite = v.InferOutput<typeof InviteSchema>;
export type Session = v.InferOutput<typeof SessionSchema>;
export type PersonKey = v.InferOutput<typeof PersonKeySchema>;
export type Passkey = v.InferOutput<typeof PasskeySchema>;
export type PeopleState = v.InferOutput<typeof PeopleStateSchema>;

/** A person as the API shows them: never a password hash, a passkey or a session. */
export interface PersonInfo {
  id: string;
  name: string;
  role: PersonRole;
  createdAt: string;
  disabled: boolean;
  /** How they can sign in. */
  signIn: { password: boolean; passkeys: number; sso: boolean };
  shares: { id: string; folder: string; role: ShareRole }[];
}

export const emptyPeopleState = (): PeopleState => ({
  v: 1,
  people: [],
  shares: [],
  invites: [],
  sessions: [],
  keys: [],
  passkeys: [],
});

/** What a sign-in gives: the session token (the cookie, or a bearer through the relay) and who. */
export interface SessionStart {
  token: string;
  expiresAt: string;
  person: { id: string; name: string; role: PersonRecord['role'] };
}
