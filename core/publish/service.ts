/**
 * Publishing: the owner (or a manager, inside the folders they manage) shows a note or a folder
 * read-only to anyone with its link, optionally until a date and behind a password, and revokes it.
 * Every page request looks the publication up again (`open`), so a revocation or an expiry is the
 * next request. What a publication shows is one predicate, `see`, that the pages ask for every
 * note, link, search hit and attachment (core/publish/pages.ts).
 */
import * as v from 'valibot';
import { newId } from '../auth/keys.ts';
import { constantTimeEqual, type RandomBytes, secureRandom, toBase64Url } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { parseJsonOr } from '../json.ts';
import { createMutex } from '../mutex.ts';
import { dirname, validateFolderPath, validateNotePath } from '../paths.ts';
import {
  DEFAULT_SCRYPT,
  hashPassword,
  PASSWORD_MAX,
  PASSWORD_MIN,
  type ScryptParams,
  verifyPassword,
} from '../people/password.ts';
import type { Clock, StateStore } from '../ports.ts';
import { checkBody } from '../schemas.ts';
import {
  PUBLICATIONS_STATE_KEY,
  type Publication,
  type PublicationInfo,
  type PublicationsState,
  PublicationsStateSchema,
} from './types.ts';

export interface PublicationDeps {
  state: StateStore;
  clock: Clock;
  random?: RandomBytes;
  /** scrypt parameters for publication passwords (default N=2^14, r=8, p=1, as people's). */
  scrypt?: ScryptParams;
  /**
   * Whether `by` (`owner` or `person:<id>`) may still publish in `folder`: a publication made by a
   * manager ends with their right (disabled, removed, or the share gone). Absent: always.
   */
  stillAllowed?: (by: string, folder: string) => boolean;
}

/** The folder a publication lies in, as shares name folders (`Team/`, '' the whole vault). */
export function folderOf(p: { kind: 'note' | 'folder'; path: string }): string {
  if (p.kind === 'folder') return p.path;
  const dir = dirname(p.path);
  return dir === '' ? '' : `${dir}/`;
}

/** How long an unlocked publication stays unlocked in a browser (the cookie's life). */
export const UNLOCK_TTL_MS = 12 * 3600_000;

/** Body of `POST /api/v1/publications`. */
export const NewPublicationSchema = v.strictObject({
  /** A note (`Blog/post.md`) or a folder (`Blog`, `Blog/`; '' the whole vault). */
  path: v.pipe(v.string(), v.maxLength(1024)),
  /** ISO 8601 instant in the future; absent: no expiry. */
  expiresAt: v.optional(v.pipe(v.string(), v.isoTimestamp('expiresAt is an ISO 8601 instant'))),
  password: v.optional(
    v.pipe(
      v.string(),
      v.minLength(PASSWORD_MIN, `a password has at least ${PASSWORD_MIN} characters`),
      v.maxLength(PASSWORD_MAX),
    ),
  ),
  /** Default true: search engines are asked not to index. */
  noindex: v.optional(v.boolean(), true),
});
export type NewPublication = v.InferInput<typeof NewPublicationSchema>;

/** The publication's shape for the API. */
export function publicationInfo(p: Publication, now: number): PublicationInfo {
  return {
    id: p.id,
    kind: p.kind,
    path: p.path,
    createdAt: p.createdAt,
    by: p.by,
    expiresAt: p.expiresAt ?? null,
    password: p.password !== undefined,
    noindex: p.noindex,
    active: !expired(p, now),
  };
}

const expired = (p: Publication, now: number) => p.expiresAt !== undefined && Date.parse(p.expiresAt) <= now;

/** Whether a vault path (note or folder) lies inside what `p` publishes. */
export function publishes(p: Publication, path: string): boolean {
  if (p.kind === 'note') return path === p.path;
  return path.startsWith(p.path);
}

/** What opening a publication gives: it, or why not. */
export type Opened = { state: 'open'; pub: Publication } | { state: 'expired' } | { state: 'missing' };

export function createPublicationService(deps: PublicationDeps) {
  const random = deps.random ?? secureRandom;
  const mutex = createMutex();
  let st: PublicationsState | null = null;
  const cur = () => {
    if (!st) throw new Error('publications not loaded: call init() first');
    return st;
  };
  const save = async (next: PublicationsState) => {
    await deps.state.put(PUBLICATIONS_STATE_KEY, JSON.stringify(next));
    st = next;
  };
  const now = () => deps.clock.now();

  return {
    /** Loads the state (empty when absent); a damaged file stops the start with one line. */
    async init(): Promise<void> {
      const text = await deps.state.get(PUBLICATIONS_STATE_KEY);
      if (text === null) {
        st = { v: 1, publications: [] };
        return;
      }
      const where = PUBLICATIONS_STATE_KEY;
      const data = parseJsonOr(
        text,
        () => new Error(`${where} is not valid JSON; restore it from a backup.`),
      );
      const r = v.safeParse(PublicationsStateSchema, data);
      if (!r.success) throw new Error(`${where} is damaged; restore it from a backup.`);
      st = r.output;
    },

    /** Every publication, newest first. */
    list(): PublicationInfo[] {
      const t = now();
      return [...cur().publications].reverse().map((p) => publicationInfo(p, t));
    },

    /** The stored record (with its hash) or null; for the routes' own checks. */
    record(id: string): Publication | null {
      return cur().publications.find((p) => p.id === id) ?? null;
    },

    /** A page request's lookup: asked on every request, so revocation and expiry are immediate. */
    open(id: string): Opened {
      const p = cur().publications.find((x) => x.id === id);
      if (!p || (deps.stillAllowed && !deps.stillAllowed(p.by, folderOf(p)))) return { state: 'missing' };
      return expired(p, now()) ? { state: 'expired' } : { state: 'open', pub: p };
    },

    /**
     * Publishes `input.path` (a note when it ends in `.md`, else a folder); `by` is who. The
     * caller has checked that `by` may publish there and that the note exists.
     */
    async create(input: unknown, by: string): Promise<PublicationInfo> {
      const body = checkBody(NewPublicationSchema, input);
      const note = body.path.toLowerCase().endsWith('.md');
      const path = note ? validateNotePath(body.path) : validateFolderPath(body.path);
      if (body.expiresAt !== undefined && Date.parse(body.expiresAt) <= now())
        throw new DomainError('VALIDATION_ERROR', 'expiresAt must lie in the future.');
      const password =
        body.password === undefined
          ? undefined
          : await hashPassword(body.password, random, deps.scrypt ?? DEFAULT_SCRYPT);
      const pub: Publication = {
        id: newId('pub', random, 16),
        kind: note ? 'note' : 'folder',
        path: note || path === '' ? path : `${path}/`,
        createdAt: new Date(now()).toISOString(),
        by,
        noindex: body.noindex,
        ...(body.expiresAt ? { expiresAt: new Date(body.expiresAt).toISOString() } : {}),
        ...(password ? { password } : {}),
      };
      await mutex.run(() => save({ ...cur(), publications: [...cur().publications, pub] }));
      return publicationInfo(pub, now());
    },

    /** Ends a publication: its next request is a 404. NOT_FOUND when there is none. */
    async revoke(id: string): Promise<{ id: string; revoked: true }> {
      return mutex.run(async () => {
        const all = cur().publications;
        if (!all.some((p) => p.id === id)) throw new DomainError('NOT_FOUND', 'No publication has that id.');
        await save({ ...cur(), publications: all.filter((p) => p.id !== id) });
        return { id, revoked: true as const };
      });
    },

    /** True when `password` opens `pub`. */
    checkPassword: (pub: Publication, password: string): Promise<boolean> =>
      pub.password === undefined || password.length > PASSWORD_MAX
        ? Promise.resolve(pub.password === undefined)
        : verifyPassword(password, pub.password),

    /**
     * The value of the unlock cookie: an expiry and an HMAC keyed by the stored password hash,
     * so it needs no state, and a revocation or a new password voids it.
     */
    async unlockToken(pub: Publication): Promise<{ value: string; maxAge: number }> {
      const exp = now() + UNLOCK_TTL_MS;
      return { value: `${exp}.${await mac(pub, exp)}`, maxAge: UNLOCK_TTL_MS / 1000 };
    },

    /** Whether an unlock cookie's value still opens `pub`. */
    async unlocked(pub: Publication, value: string | undefined): Promise<boolean> {
      if (pub.password === undefined) return true;
      const m = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
      if (!m) return false;
      const exp = Number(m[1]);
      return exp > now() && constantTimeEqual(await mac(pub, exp), m[2]!);
    },
  };
}

async function mac(pub: Publication, exp: number): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    enc.encode(pub.password ?? ''),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const sig = await crypto.subtle.sign('HMAC', key, enc.encode(`${pub.id}.${exp}`));
  return toBase64Url(new Uint8Array(sig));
}

export type PublicationService = ReturnType<typeof createPublicationService>;
