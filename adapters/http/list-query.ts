import { DomainError } from '../../core/errors.ts';
import type { NoteSummary } from '../../core/notes/note-index.ts';

/** The fields of a note summary, in the order the list shows them. */
export const SUMMARY_FIELDS = [
  'path',
  'title',
  'tags',
  'links',
  'backlinks',
  'wordCount',
  'createdAt',
  'updatedAt',
  'checksum',
] as const;
/**
 * Fields `?fields=` may name beyond a summary's own: `aliases` (the frontmatter's `aliases` or
 * `alias`, always an array) is never in the default answer, so the spec's summary shape stays as is.
 */
export const EXTRA_FIELDS = ['aliases'] as const;
export const LIST_FIELDS = [...SUMMARY_FIELDS, ...EXTRA_FIELDS] as const;
export type SummaryField = (typeof LIST_FIELDS)[number];

/** The beyond-spec options of `GET /notes` (docs/reference/api.md, "Paging and field selection"). */
export interface ListQuery {
  /** Notes per page, 1 to 1,000; absent: every note from the cursor on. */
  limit?: number;
  /** The path after which the page starts (decoded from the opaque cursor). */
  after?: string;
  fields?: SummaryField[];
}

const MAX_LIMIT = 1000;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** An opaque cursor for the page after `path`: base64url of the path. */
export function encodeCursor(path: string): string {
  let bin = '';
  for (const b of encoder.encode(path)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeCursor(cursor: string): string {
  try {
    if (!/^[A-Za-z0-9_-]{1,2000}$/.test(cursor)) throw new Error('shape');
    const bin = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    return decoder.decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)));
  } catch {
    throw new DomainError(
      'VALIDATION_ERROR',
      '"cursor" is not a cursor this server gave out; start again without it.',
    );
  }
}

/**
 * Reads `format`: `columns` asks for the list column by column (adapters/http/list-columns.ts,
 * docs/reference/api.md); absent: the spec's shape. It stands alone: with `limit`, `cursor` or `fields`, or
 * any other value, 400 VALIDATION_ERROR.
 */
export function parseListFormat(get: (name: string) => string | undefined): 'columns' | null {
  const format = get('format');
  if (format === undefined) return null;
  if (format !== 'columns') {
    throw new DomainError('VALIDATION_ERROR', '"format" must be "columns" (or absent for the default list).');
  }
  if (get('limit') !== undefined || get('cursor') !== undefined || get('fields') !== undefined) {
    throw new DomainError(
      'VALIDATION_ERROR',
      '"format=columns" is the whole list: it cannot be combined with "limit", "cursor" or "fields".',
    );
  }
  return 'columns';
}

/**
 * Reads `limit`, `cursor` and `fields`; null when none is given (the spec's default answer).
 * Other query parameters are ignored, as before. Bad values: 400 VALIDATION_ERROR.
 */
export function parseListQuery(get: (name: string) => string | undefined): ListQuery | null {
  const limit = get('limit');
  const cursor = get('cursor');
  const fields = get('fields');
  if (limit === undefined && cursor === undefined && fields === undefined) return null;
  const q: ListQuery = {};
  if (limit !== undefined) {
    const n = Number(limit);
    if (!/^\d+$/.test(limit) || n < 1 || n > MAX_LIMIT) {
      throw new DomainError('VALIDATION_ERROR', `"limit" must be an integer from 1 to ${MAX_LIMIT}.`);
    }
    q.limit = n;
  }
  if (cursor !== undefined && cursor !== '') q.after = decodeCursor(cursor);
  if (fields !== undefined) {
    const names = fields.split(',').map((f) => f.trim());
    const unknown = names.filter((f) => !(LIST_FIELDS as readonly string[]).includes(f));
    if (names.length === 0 || unknown.length) {
      throw new DomainError(
        'VALIDATION_ERROR',
        `Unknown field${unknown.length === 1 ? '' : 's'} in "fields": ${unknown.map((f) => `"${f}"`).join(', ') || '(none given)'}; use any of ${LIST_FIELDS.join(', ')}.`,
        { allowed: LIST_FIELDS },
      );
    }
    q.fields = LIST_FIELDS.filter((f) => names.includes(f));
  }
  return q;
}

/** First index whose path sorts after `path` (items are sorted by path). */
function after(items: readonly NoteSummary[], path: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.path <= path) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One page of the sorted list, projected to the asked fields. The cursor is the last path
 * shown, so a note present from the first page to the last is listed exactly once however many
 * notes are created or deleted meanwhile; a note created behind the cursor shows up on the next
 * walk.
 */
export function listPage(
  items: readonly NoteSummary[],
  q: ListQuery,
  /** Each note's aliases by path (only notes that have some); read when `fields` names `aliases`. */
  aliases: () => ReadonlyMap<string, readonly string[]> = () => new Map(),
): { data: unknown[]; page: { limit: number | null; nextCursor: string | null } } {
  const start = q.after === undefined ? 0 : after(items, q.after);
  const end = q.limit === undefined ? items.length : Math.min(items.length, start + q.limit);
  const slice = items.slice(start, end);
  const fields = q.fields;
  const known = fields?.includes('aliases') ? aliases() : null;
  const data = fields
    ? slice.map((s) => {
        const o: Record<string, unknown> = {};
        for (const f of fields) o[f] = f === 'aliases' ? (known?.get(s.path) ?? []) : s[f];
        return o;
      })
    : slice;
  const nextCursor = end < items.length && end > start ? encodeCursor(items[end - 1]!.path) : null;
  return { data, page: { limit: q.limit ?? null, nextCursor } };
}
