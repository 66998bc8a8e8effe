import type { NoteLink, NoteSummary } from '../../core/notes/note-index.ts';
import { SUMMARY_FIELDS } from './list-query.ts';

/**
 * The note list column by column (`GET /api/v1/notes?format=columns`, docs/reference/api.md): the same
 * summaries as the spec's default answer, in the same order, written so that gzip's 32 KB window
 * finds what repeats. In the spec's shape most of the list is links and backlinks that spell out
 * paths of notes far away in the list, which deflate cannot reach; here a reference to a listed
 * note is its position in `path`, and each field is one array. `decodeColumns` gives back the
 * spec's summaries exactly (key order included), so a client can decode and use it as the list.
 */
export const COLUMNS_FORMAT = 'quire-columns/1';

/**
 * A link: `[target, path, code, extra?]`. `path` is the position of a listed note or the path as
 * a string (or null while unresolved). `target` is 0 when it is the path's last segment without
 * `.md`, 1 when it is the path without `.md`, else the text. `code` is `2 * k + (type === 'file')`
 * with `k` the position of the link's kind in `kinds`. `extra` holds `heading`/`alias` in order.
 * A link of any other form is sent as its object.
 */
type ColumnLink = [string | 0 | 1, number | string | null, number, Record<string, string>?] | NoteLink;

export interface ListColumns {
  format: typeof COLUMNS_FORMAT;
  count: number;
  kinds: string[];
  path: string[];
  /** 0 when the title is the path's last segment without `.md`. */
  title: (string | 0)[];
  tags: string[][];
  links: ColumnLink[][];
  /** A backlink from a listed note is its position (its title is that note's); others as objects. */
  backlinks: (number | { path: string; title: string })[][];
  wordCount: number[];
  createdAt: string[];
  /** null when equal to `createdAt`. */
  updatedAt: (string | null)[];
  checksum: string[];
}

const stem = (path: string): string => {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.toLowerCase().endsWith('.md') ? base.slice(0, -3) : base;
};
const noExt = (path: string): string => (path.toLowerCase().endsWith('.md') ? path.slice(0, -3) : path);

/** The per-note columns, in the order of `ListColumns`' fields after `kinds`: a summary's fields, in the list's order. */
const COLUMNS = SUMMARY_FIELDS;
type Column = (typeof COLUMNS)[number];

/** An encoder of one note's row at a time; `kinds` fills as links are seen. */
function rowEncoder(items: readonly NoteSummary[]) {
  const at = new Map<string, number>();
  for (let i = 0; i < items.length; i++) at.set(items[i]!.path, i);
  const kinds: string[] = [];
  const kindAt = new Map<string, number>();
  const link = (l: NoteLink): ColumnLink => {
    if (l.type !== 'note' && l.type !== 'file') return l;
    let k = kindAt.get(l.kind);
    if (k === undefined) {
      k = kinds.push(l.kind) - 1;
      kindAt.set(l.kind, k);
    }
    const target =
      l.path === null ? l.target : l.target === stem(l.path) ? 0 : l.target === noExt(l.path) ? 1 : l.target;
    const path = l.path === null ? null : (at.get(l.path) ?? l.path);
    const out: ColumnLink = [target, path, 2 * k + (l.type === 'file' ? 1 : 0)];
    // The index makes links as { target, path, kind, type } then heading and alias when present.
    if (l.heading !== undefined || l.alias !== undefined) {
      const extra: Record<string, string> = {};
      for (const key in l) {
        if (key !== 'target' && key !== 'path' && key !== 'kind' && key !== 'type') {
          extra[key] = (l as unknown as Record<string, string>)[key]!;
        }
      }
      out.push(extra);
    }
    return out;
  };
  const cell: { [C in Column]: (s: NoteSummary) => ListColumns[C][number] } = {
    path: (s) => s.path,
    title: (s) => (s.title === stem(s.path) ? 0 : s.title),
    tags: (s) => s.tags,
    links: (s) => s.links.map(link),
    backlinks: (s) =>
      s.backlinks.map((b) => {
        const i = at.get(b.path);
        return i !== undefined && items[i]!.title === b.title ? i : b;
      }),
    wordCount: (s) => s.wordCount,
    createdAt: (s) => s.createdAt,
    updatedAt: (s) => (s.updatedAt === s.createdAt ? null : s.updatedAt),
    checksum: (s) => s.checksum,
  };
  return { kinds, cell };
}

/** Encodes summaries (whose keys are in the spec's order, as the index makes them) column by column. */
export function encodeColumns(items: readonly NoteSummary[]): ListColumns {
  const { kinds, cell } = rowEncoder(items);
  const cols = {} as { [C in Column]: ListColumns[C] };
  for (const c of COLUMNS)
    (cols as Record<Column, unknown[]>)[c] = items.map(cell[c] as (s: NoteSummary) => unknown);
  return { format: COLUMNS_FORMAT, count: items.length, kinds, ...cols };
}

/** Notes encoded between two pauses of `encodeColumnsAnswer`. */
const SLICE = 2000;

/**
 * The whole answer `{"success":true,"data":<encodeColumns(items)>}` as bytes, the same text as
 * `JSON.stringify` of it, built `SLICE` notes at a time with `pause()` between (the event loop
 * serves other requests meanwhile at 100,000 notes).
 */
export async function encodeColumnsAnswer(
  items: readonly NoteSummary[],
  opts: { pause?: () => Promise<void>; slice?: number } = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const pause = opts.pause ?? (() => new Promise<void>((r) => setTimeout(r, 0)));
  const step = opts.slice ?? SLICE;
  const { kinds, cell } = rowEncoder(items);
  const pieces: Record<Column, string[]> = Object.fromEntries(COLUMNS.map((c) => [c, []])) as never;
  for (let start = 0; start < items.length; start += step) {
    if (start > 0) await pause();
    const slice = items.slice(start, start + step);
    for (const c of COLUMNS) {
      pieces[c].push(JSON.stringify(slice.map(cell[c] as (s: NoteSummary) => unknown)).slice(1, -1));
    }
  }
  const head = `{"success":true,"data":{"format":${JSON.stringify(COLUMNS_FORMAT)},"count":${items.length},"kinds":${JSON.stringify(kinds)}`;
  const text = `${head}${COLUMNS.map((c) => `,"${c}":[${pieces[c].join(',')}]`).join('')}}}`;
  return new TextEncoder().encode(text);
}

/** The spec's summaries back from `encodeColumns`' output (for clients and tests). */
export function decodeColumns(c: ListColumns): NoteSummary[] {
  if (c.format !== COLUMNS_FORMAT) throw new Error(`unknown list format ${String(c.format)}`);
  const title = (i: number) => {
    const t = c.title[i]!;
    return t === 0 ? stem(c.path[i]!) : t;
  };
  const link = (l: ColumnLink): NoteLink => {
    if (!Array.isArray(l)) return l;
    const [t, p, code, extra] = l;
    const path = typeof p === 'number' ? c.path[p]! : p;
    const target = t === 0 ? stem(path!) : t === 1 ? noExt(path!) : t;
    return {
      target,
      path,
      kind: c.kinds[code >> 1] as NoteLink['kind'],
      type: code & 1 ? 'file' : 'note',
      ...extra,
    };
  };
  const out: NoteSummary[] = [];
  for (let i = 0; i < c.count; i++) {
    out.push({
      path: c.path[i]!,
      title: title(i),
      tags: c.tags[i]!,
      links: c.links[i]!.map(link),
      backlinks: c.backlinks[i]!.map((b) =>
        typeof b === 'number' ? { path: c.path[b]!, title: title(b) } : b,
      ),
      wordCount: c.wordCount[i]!,
      createdAt: c.createdAt[i]!,
      updatedAt: c.updatedAt[i] ?? c.createdAt[i]!,
      checksum: c.checksum[i]!,
    });
  }
  return out;
}
