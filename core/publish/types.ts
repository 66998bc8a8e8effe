/**
 * Publications as stored in `publications.json` (DATA_DIR, through the StateStore port, beside
 * `people.json`): a note or a folder shown read-only to anyone holding its link. The password is
 * never stored, only its scrypt hash.
 */
import * as v from 'valibot';

/** Where the publications live in the StateStore. */
export const PUBLICATIONS_STATE_KEY = 'publications.json';

const PublicationSchema = v.object({
  /** `pub_` and 16 random bytes: the link is the capability, so it cannot be guessed. */
  id: v.string(),
  kind: v.picklist(['note', 'folder']),
  /** A note path (`Blog/post.md`), or a folder ending in `/` ('' is the whole vault). */
  path: v.string(),
  createdAt: v.string(),
  /** Who published it: `owner` (a whole-vault key) or `person:<id>` (a manager). */
  by: v.string(),
  /** After this instant (ISO) the pages answer 410. */
  expiresAt: v.optional(v.string()),
  /** `scrypt$N$r$p$salt$hash`; absent: no password. */
  password: v.optional(v.string()),
  /** Ask search engines not to index (X-Robots-Tag and a robots meta); on unless turned off. */
  noindex: v.boolean(),
});

export const PublicationsStateSchema = v.object({
  v: v.literal(1),
  publications: v.array(PublicationSchema),
});

export type Publication = v.InferOutput<typeof PublicationSchema>;
export type PublicationsState = v.InferOutput<typeof PublicationsStateSchema>;

/** A publication as the API shows it: never the password hash. */
export interface PublicationInfo {
  id: string;
  kind: Publication['kind'];
  path: string;
  createdAt: string;
  by: string;
  expiresAt: string | null;
  password: boolean;
  noindex: boolean;
  /** Whether the pages answer now (false once expired). */
  active: boolean;
}
